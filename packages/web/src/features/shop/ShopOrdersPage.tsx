import { useState } from 'react';
import { Anchor, Badge, Button, Group, Paper, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { IconRepeat, IconSearch } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { SHOP_ORDER_FILTERS, type ShopOrder, type ShopOrderFilter, type ShopOrderTan } from '@lm/contract/shop';
import { formatTanCode } from '@lm/contract/tan';
import { ListTable, type ListColumn } from '../../components/ListTable.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { formatDateTimeToSecond } from '../../lib/format.ts';
import { useListState } from '../../lib/list-state.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { useReplayAnyShopEvent, useShopConnections, useShopOrders } from './api/shop.ts';
import { providerName } from './ShopConnectionForm.tsx';
import { OUTCOME_COLORS, reasonText } from './ShopEventLog.tsx';

/** A TAN an order made, its state, and the machines of the licenses activated from it (each a link to the license search). */
function OrderTan({ tan }: { tan: ShopOrderTan }) {
  const { t } = useTranslation();
  const code = formatTanCode(tan.code);
  return (
    <Stack gap={2} data-testid="order-tan">
      <Group gap={6} wrap="nowrap">
        <Anchor component={Link} to={`/tans?filter=${encodeURIComponent(tan.code)}`} size="sm" ff="monospace">
          {code}
        </Anchor>
        {tan.revoked ? (
          <Badge color="red" variant="light" size="sm">
            {t('shop.orders.revoked')}
          </Badge>
        ) : tan.suspended ? (
          <Badge color="orange" variant="light" size="sm">
            {t('shop.orders.suspended')}
          </Badge>
        ) : null}
      </Group>
      <Text size="xs" c="dimmed">
        {t('shop.orders.tanSummary', { product: tan.productName, activated: tan.activatedCount, count: tan.licenseCount })}
        {tan.validUntil ? ` · ${t('shop.orders.validUntil', { date: tan.validUntil })}` : ''}
      </Text>
      {tan.licenses.map((license) => (
        <Anchor key={license.id} component={Link} to={`/licenses?filter=${encodeURIComponent(license.machineId ?? tan.code)}`} size="xs" data-testid="order-license" td={license.revoked ? 'line-through' : undefined}>
          {t('shop.orders.license', { id: license.id, machine: license.machineId ?? '–' })}
        </Anchor>
      ))}
    </Stack>
  );
}

/**
 * Tools → Orders: what every connected shop sent and what became of it, with the TANs and licenses it
 * made; a failed event (no mapping, a product gone or inactive, …) is replayed here once it is fixed.
 */
export default function ShopOrdersPage() {
  const { t } = useTranslation();
  const state = useListState('-id', 20);
  // `?outcome=failed` opens the failed orders (the staff home links so).
  const [searchParams] = useSearchParams();
  const [outcome, setOutcome] = useState<'all' | ShopOrderFilter>(() => {
    const asked = searchParams.get('outcome');
    return (SHOP_ORDER_FILTERS as readonly (string | null)[]).includes(asked) ? (asked as ShopOrderFilter) : 'all';
  });
  const [connectionId, setConnectionId] = useState<string | null>(null);
  const connections = useShopConnections();
  const { data, isFetching, error } = useShopOrders({
    offset: state.query.offset,
    limit: state.query.limit,
    filter: state.query.filter,
    outcome: outcome === 'all' ? undefined : outcome,
    connectionId: connectionId ?? undefined,
  });
  const replay = useReplayAnyShopEvent();

  const run = async (order: ShopOrder) => {
    try {
      const result = await replay.mutateAsync({ connectionId: order.connectionId, eventId: order.id });
      if (result.outcome === 'failed') showError(new Error(reasonText(result.reason, t)), 'shop.replayFailed');
      else showSuccess(t('shop.replayed'));
    } catch (failure) {
      showError(failure, 'shop.replayFailed');
    }
  };

  const columns: ListColumn<ShopOrder>[] = [
    {
      key: 'order',
      kind: 'wrap',
      label: t('shop.orders.order'),
      render: (order) => (
        <Stack gap={2}>
          <Text size="sm" fw={500} ff="monospace" style={{ overflowWrap: 'anywhere' }}>
            {order.orderRef ?? '–'}
          </Text>
          {order.email && (
            <Text size="xs" style={{ overflowWrap: 'anywhere' }}>
              {order.email}
            </Text>
          )}
          <Text size="xs" c="dimmed">
            {order.connectionName} ({providerName(order.provider)})
          </Text>
        </Stack>
      ),
    },
    {
      key: 'event',
      kind: 'wrap',
      label: t('shop.event'),
      render: (order) => (
        <Stack gap={2}>
          <Text size="sm">{order.type}</Text>
          <Text size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
            {order.eventId}
          </Text>
        </Stack>
      ),
    },
    {
      key: 'outcome',
      kind: 'wrap',
      label: t('shop.outcome'),
      render: (order) => (
        <Stack gap={2}>
          <Text size="sm" fw={600} c={`${OUTCOME_COLORS[order.outcome]}.9`} data-testid="order-outcome">
            {t(`shop.outcomes.${order.outcome}`)}
          </Text>
          {order.reason && (
            <Text size="xs" c={order.outcome === 'failed' ? 'red.8' : 'dimmed'} data-testid="order-reason">
              {reasonText(order.reason, t)}
            </Text>
          )}
          {order.lines.length > 0 && (
            <Text size="xs" data-testid="order-lines">
              {order.lines.map((line) => `${line.externalId ?? `TAN ${line.tanId}`}: ${t(`shop.lineEffects.${line.effect}`)}`).join(' · ')}
            </Text>
          )}
          {order.deliveries > 1 && (
            <Text size="xs" c="dimmed">
              {t('shop.orders.deliveries', { count: order.deliveries })}
            </Text>
          )}
        </Stack>
      ),
    },
    {
      key: 'tans',
      kind: 'wrap',
      label: t('shop.orders.tansAndLicenses'),
      render: (order) => (order.tans.length ? <Stack gap="xs">{order.tans.map((tan) => <OrderTan key={tan.id} tan={tan} />)}</Stack> : <Text size="sm">–</Text>),
    },
    { key: 'receivedAt', kind: 'fit', label: t('shop.receivedAt'), render: (order) => <Text size="sm">{formatDateTimeToSecond(order.receivedAt)}</Text> },
    {
      key: 'actions',
      label: t('common.actions'),
      render: (order) =>
        (order.outcome === 'failed' || order.outcome === 'partial') && (
          <Button size="compact-sm" variant="light" leftSection={<IconRepeat size={14} />} onClick={() => void run(order)} loading={replay.isPending} data-testid="replay-order">
            {t('shop.replay')}
          </Button>
        ),
    },
  ];

  return (
    <>
      <PageTitle title={t('shop.orders.title')} />
      <Text size="sm" mb="md" maw={760}>
        {t('shop.orders.intro')}
      </Text>
      <Paper withBorder p="md">
        <Stack>
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <TextInput
              label={t('shop.orders.search')}
              leftSection={<IconSearch size={16} />}
              value={state.filter}
              onChange={(event) => state.setFilter(event.currentTarget.value)}
              data-testid="orders-search"
            />
            <Select
              label={t('shop.orders.connection')}
              placeholder={t('shop.orders.allConnections')}
              clearable
              value={connectionId}
              onChange={(value) => {
                setConnectionId(value);
                state.setOffset(0);
              }}
              data={(connections.data?.items ?? []).map((connection) => ({ value: String(connection.id), label: `${connection.name} (${providerName(connection.provider)})` }))}
            />
            <Select
              label={t('shop.outcome')}
              allowDeselect={false}
              value={outcome}
              onChange={(value) => {
                setOutcome((value ?? 'all') as typeof outcome);
                state.setOffset(0);
              }}
              data={(['all', ...SHOP_ORDER_FILTERS] as const).map((value) => ({ value, label: t(`shop.outcomes.${value}`) }))}
              data-testid="orders-outcome"
            />
          </SimpleGrid>
          <ListTable id="shop-orders" columns={columns} items={data?.items} totalCount={data?.totalCount} loading={isFetching} error={error} state={state} rowKey={(order) => order.id} emptyText={outcome === 'all' && !connectionId ? t('shop.orders.none') : undefined} />
        </Stack>
      </Paper>
    </>
  );
}
