import { Box, Group, Paper, SimpleGrid, Skeleton, Stack, Text, UnstyledButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Dashboard, DashboardTile } from '@lm/contract/dashboard';
import { DASHBOARD_DAYS, DASHBOARD_ENDING_DAYS } from '@lm/contract/dashboard';
import { PageTitle } from '../../components/PageTitle.tsx';
import { LoadError } from '../../components/LoadError.tsx';
import { formatDate, formatNumber } from '../../lib/format.ts';
import { useDashboard } from './api.ts';
import classes from './StaffHome.module.css';

type Days = { day: string; count: number }[];

/** Seven small bars, one a day: the shape of the week at a glance (the numbers are in each bar's title). */
function DayBars({ days }: { days: Days }) {
  const most = Math.max(1, ...days.map((day) => day.count));
  return (
    <Group gap={3} align="flex-end" h={28} wrap="nowrap" aria-hidden data-testid="dashboard-days">
      {days.map((day) => (
        <Box key={day.day} className={classes.bar} style={{ height: `${Math.max(8, (day.count / most) * 100)}%` }} data-empty={day.count === 0} title={`${formatDate(day.day)}: ${formatNumber(day.count)}`} />
      ))}
    </Group>
  );
}

interface TileProps {
  id: string;
  label: string;
  tile: DashboardTile & { days?: Days };
  /** What the figure means, under it. */
  hint: string;
  /** A figure that asks for someone when it is not 0 (not mere activity). */
  attention?: boolean;
}

/** One figure: the whole tile is the link to the list it counts. */
function Tile({ id, label, tile, hint, attention }: TileProps) {
  const { t } = useTranslation();
  const needsSomeone = Boolean(attention && tile.count > 0);
  return (
    <UnstyledButton component={Link} to={tile.link} className={classes.tile} data-attention={needsSomeone} data-testid={`dashboard-${id}`}>
      <Paper withBorder p="md" radius="md" h="100%">
        <Stack gap={6}>
          <Text size="sm" fw={600}>
            {label}
          </Text>
          <Group justify="space-between" align="flex-end" wrap="nowrap">
            <Text fz={32} fw={700} lh={1} data-testid="dashboard-count">
              {formatNumber(tile.count)}
            </Text>
            {tile.days && <DayBars days={tile.days} />}
          </Group>
          <Text size="xs" c="dimmed">
            {attention && tile.count === 0 ? t('dashboard.nothingToDo') : hint}
          </Text>
        </Stack>
      </Paper>
    </UnstyledButton>
  );
}

function Tiles({ home }: { home: Dashboard }) {
  const { t } = useTranslation();
  const lastDays = t('dashboard.lastDays', { count: DASHBOARD_DAYS, date: formatDate(home.since) });
  return (
    <>
      <Text component="h2" size="sm" fw={600} c="dimmed" tt="uppercase" mb={-4}>
        {t('dashboard.needsYou')}
      </Text>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3, lg: 4 }} spacing="md">
        <Tile id="subscriptions-ending" label={t('dashboard.subscriptionsEnding')} tile={home.subscriptionsEnding} hint={t('dashboard.withinDays', { count: DASHBOARD_ENDING_DAYS })} attention />
        <Tile id="suspended" label={t('dashboard.suspended')} tile={home.suspended} hint={t('dashboard.suspendedHint')} attention />
        <Tile id="near-count" label={t('dashboard.tansNearCount')} tile={home.tansNearCount} hint={t('dashboard.nearCountHint')} attention />
        {home.failedShopEvents && <Tile id="failed-shop-events" label={t('dashboard.failedShopEvents')} tile={home.failedShopEvents} hint={t('dashboard.failedShopEventsHint')} attention />}
        <Tile id="failing-webhooks" label={t('dashboard.failingWebhooks')} tile={home.failingWebhooks} hint={t('dashboard.failingWebhooksHint')} attention />
        {home.refusals && <Tile id="refusals" label={t('dashboard.refusals')} tile={home.refusals} hint={lastDays} attention />}
      </SimpleGrid>
      <Text component="h2" size="sm" fw={600} c="dimmed" tt="uppercase" mb={-4} mt="md">
        {t('dashboard.activity')}
      </Text>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3, lg: 4 }} spacing="md">
        <Tile id="activations" label={t('dashboard.activations')} tile={home.activations} hint={lastDays} />
        {home.refreshes && <Tile id="refreshes" label={t('dashboard.refreshes')} tile={home.refreshes} hint={lastDays} />}
      </SimpleGrid>
    </>
  );
}

/** `/` for administrators and distributors: what needs them today, each figure a way to the list behind it (issue 49). */
export default function StaffHomePage() {
  const { t } = useTranslation();
  const { data, error } = useDashboard();
  return (
    <Stack gap="md" data-testid="staff-home">
      <PageTitle title={t('dashboard.title')} />
      <LoadError error={error} />
      {data ? <Tiles home={data} /> : !error && <Skeleton height={240} radius="md" />}
    </Stack>
  );
}
