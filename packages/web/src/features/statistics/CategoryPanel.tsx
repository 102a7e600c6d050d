import { useState } from 'react';
import { Anchor, Button, Group, Paper, SegmentedControl, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { StatisticsCategory } from '@lm/contract';
import { STATISTICS_METRICS, type StatisticsResult } from '@lm/contract/statistics';
import { useStatistics, type StatisticsFilter } from './api.ts';
import { CategoryChart } from './CategoryChart.tsx';
import { downloadText } from '../../lib/download.ts';
import { statisticsCsv } from './csv.ts';
import { formatMetric } from './format.ts';
import { StatisticsTable } from './StatisticsTable.tsx';
import { LoadError } from '../../components/LoadError.tsx';

function Totals({ category, result, compact }: { category: StatisticsCategory; result: StatisticsResult; compact?: boolean }) {
  const { t } = useTranslation();
  return (
    <SimpleGrid cols={{ base: 2, sm: compact ? 4 : STATISTICS_METRICS[category].length }} spacing="xs">
      {STATISTICS_METRICS[category].map((metric) => (
        <Paper key={metric} withBorder p={compact ? 'xs' : 'sm'} data-testid={`total-${category}-${metric}`}>
          <Text size="xs" c="dimmed" lh={1.2}>
            {t(`statistics.metrics.${category}.${metric}`)}
          </Text>
          <Text fw={700} size={compact ? 'lg' : 'xl'}>
            {formatMetric(metric, result.totals)}
          </Text>
        </Paper>
      ))}
    </SimpleGrid>
  );
}

interface Props {
  category: StatisticsCategory;
  filter: StatisticsFilter;
  /** In the overview: smaller, with a link to the category's own page. */
  compact?: boolean;
  detailPath?: string;
}

/** One category: its totals and chart, and on its own page also the table view and the CSV download. */
export function CategoryPanel({ category, filter, compact, detailPath }: Props) {
  const { t } = useTranslation();
  const [view, setView] = useState<'chart' | 'table'>('chart');
  const statistics = useStatistics(category, filter);
  const result = statistics.data;
  const title = t(`statistics.categories.${category}`);

  const download = () => {
    if (!result) return;
    const csv = statisticsCsv(result, STATISTICS_METRICS[category], {
      month: t('statistics.month'),
      total: t('statistics.total'),
      metric: (metric) => t(`statistics.metrics.${category}.${metric}`),
    });
    downloadText(`statistics-${category}-${result.from}-${result.to}.csv`, csv);
  };

  return (
    <Paper withBorder p="md" component="section" aria-label={title} data-testid={`category-${category}`}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <div>
            <Title order={compact ? 4 : 3}>
              {detailPath ? (
                <Anchor component={Link} to={detailPath} inherit>
                  {title}
                </Anchor>
              ) : (
                title
              )}
            </Title>
            <Text size="sm" c="dimmed">
              {t(`statistics.descriptions.${category}`)}
            </Text>
          </div>
          {!compact && (
            <Group gap="xs">
              <SegmentedControl
                size="xs"
                value={view}
                onChange={(value) => setView(value as 'chart' | 'table')}
                data={[
                  { value: 'chart', label: t('statistics.chartView') },
                  { value: 'table', label: t('statistics.tableView') },
                ]}
              />
              <Button size="xs" variant="light" leftSection={<IconDownload size={16} aria-hidden />} onClick={download} disabled={!result}>
                {t('statistics.downloadCsv')}
              </Button>
            </Group>
          )}
        </Group>
        <LoadError error={statistics.error} />
        {!result && statistics.isPending && <Skeleton h={compact ? 280 : 380} />}
        {result && (
          <>
            <Totals category={category} result={result} compact={compact} />
            {view === 'table' && !compact ? <StatisticsTable category={category} result={result} /> : <CategoryChart category={category} result={result} height={compact ? 220 : 320} />}
          </>
        )}
      </Stack>
    </Paper>
  );
}
