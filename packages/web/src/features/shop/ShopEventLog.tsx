import { useState } from 'react';
import { Button, SegmentedControl, Stack, Text } from '@mantine/core';
import { IconRepeat } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { ShopEvent, ShopEventOutcome } from '@lm/contract/shop';
import { ListTable, type ListColumn } from '../../components/ListTable.tsx';
import { formatDateTimeToSecond } from '../../lib/format.ts';
import { useListState } from '../../lib/list-state.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { useReplayShopEvent, useShopEvents } from './api/shop.ts';

export const OUTCOME_COLORS: Record<ShopEventOutcome, string> = { processed: 'green', partial: 'yellow', ignored: 'gray', failed: 'red', pending: 'orange' };

/** A stored reason (`code` or `code:detail`, e.g. `unknown-mapping:price_123`) in the reader's words. */
export function reasonText(reason: string | null, t: TFunction): string {
  if (!reason) return '';
  const [code, ...rest] = reason.split(':');
  const detail = rest.join(':');
  return t(`shop.reasons.${code}`, { detail, defaultValue: reason });
}

/** The events a shop sent, newest first, with their outcome, the TANs they made, and "Replay" for a failed one. */
export function ShopEventLog({ connectionId }: { connectionId: number }) {
  const { t } = useTranslation();
  const state = useListState('-id', 20);
  const [outcome, setOutcome] = useState<'all' | ShopEventOutcome>('all');
  const { data, isFetching, error } = useShopEvents(connectionId, { offset: state.query.offset, limit: state.query.limit, outcome: outcome === 'all' ? undefined : outcome });
  const replay = useReplayShopEvent(connectionId);

  const run = async (event: ShopEvent) => {
    try {
      const result = await replay.mutateAsync(event.id);
      if (result.outcome === 'failed') showError(new Error(reasonText(result.reason, t)), 'shop.replayFailed');
      else showSuccess(t('shop.replayed'));
    } catch (failure) {
      showError(failure, 'shop.replayFailed');
    }
  };

  const columns: ListColumn<ShopEvent>[] = [
    {
      key: 'event',
      label: t('shop.event'),
      render: (event) => (
        <Stack gap={2}>
          <Text size="sm" fw={500}>
            {event.type}
          </Text>
          <Text size="xs" c="dimmed" ff="monospace">
            {event.eventId}
          </Text>
        </Stack>
      ),
    },
    {
      key: 'outcome',
      label: t('shop.outcome'),
      kind: 'wrap',
      render: (event) => (
        <Stack gap={2}>
          <Text size="sm" fw={600} c={`${OUTCOME_COLORS[event.outcome]}.9`} data-testid="shop-event-outcome">
            {t(`shop.outcomes.${event.outcome}`)}
          </Text>
          {event.reason && (
            <Text size="xs" c={event.outcome === 'failed' ? 'red.8' : 'dimmed'}>
              {reasonText(event.reason, t)}
            </Text>
          )}
        </Stack>
      ),
    },
    { key: 'tans', label: t('shop.tans'), kind: 'wrap', render: (event) => <Text size="sm">{event.tanIds.length ? event.tanIds.map((id) => `#${id}`).join(', ') : '–'}</Text> },
    { key: 'receivedAt', label: t('shop.receivedAt'), kind: 'fit', render: (event) => <Text size="sm">{formatDateTimeToSecond(event.receivedAt)}</Text> },
    {
      key: 'actions',
      label: t('common.actions'),
      render: (event) =>
        (event.outcome === 'failed' || event.outcome === 'partial') && (
          <Button size="compact-sm" variant="light" leftSection={<IconRepeat size={14} />} onClick={() => void run(event)} loading={replay.isPending} data-testid="replay-event">
            {t('shop.replay')}
          </Button>
        ),
    },
  ];

  return (
    <Stack>
      <SegmentedControl
        value={outcome}
        onChange={(value) => {
          setOutcome(value as typeof outcome);
          state.setOffset(0);
        }}
        data={(['all', 'processed', 'partial', 'pending', 'ignored', 'failed'] as const).map((value) => ({ value, label: t(`shop.outcomes.${value}`) }))}
        fullWidth
      />
      <ListTable id="shop-events" columns={columns} items={data?.items} totalCount={data?.totalCount} loading={isFetching} error={error} state={state} rowKey={(event) => event.id} />
    </Stack>
  );
}
