import { useState } from 'react';
import { Badge, Button, Code, Group, SegmentedControl, Stack, Text, Tooltip } from '@mantine/core';
import { IconRepeat } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { WebhookAttempt, WebhookDelivery, WebhookDeliveryStatus } from '@lm/contract/webhook';
import { ListTable, type ListColumn } from '../../components/ListTable.tsx';
import { formatDateTimeToSecond } from '../../lib/format.ts';
import { useListState } from '../../lib/list-state.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { useDeliveries, useRedeliver } from './api/webhooks.ts';
import { failureText } from './failure-text.ts';

const STATUS_COLORS: Record<WebhookDeliveryStatus, string> = { pending: 'yellow', delivered: 'green', failed: 'red' };

/** Why an attempt failed, in the reader's words; the server's technical detail (English) beside it, smaller and dimmed. */
function AttemptFailure({ attempt }: { attempt: WebhookAttempt }) {
  const { t } = useTranslation();
  const failure = failureText(attempt, t);
  if (!failure) return null;
  return (
    <>
      <Text size="xs" c="red.8" data-testid="attempt-failure" data-reason={failure.reason}>
        {failure.message}
      </Text>
      {failure.detail && (
        <Tooltip label={t('webhooks.failure.detail')}>
          <Text fz={11} c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
            {failure.detail}
          </Text>
        </Tooltip>
      )}
    </>
  );
}

/** The attempts of one delivery, newest first: time, status code, duration, the receiver's answer or why it failed. */
function Attempts({ delivery }: { delivery: WebhookDelivery }) {
  const { t } = useTranslation();
  if (!delivery.attempts.length) {
    return (
      <Text size="xs" c="dimmed">
        {delivery.nextAttemptAt ? t('webhooks.log.waiting', { time: formatDateTimeToSecond(delivery.nextAttemptAt) }) : t('webhooks.log.noAttempt')}
      </Text>
    );
  }
  return (
    <Stack gap={4}>
      {delivery.attempts.map((attempt, index) => (
        <Group key={index} gap={6} wrap="wrap" align="baseline" data-testid="delivery-attempt">
          <Text size="xs" c="dimmed" component="time" dateTime={new Date(attempt.attemptedAt).toISOString()}>
            {formatDateTimeToSecond(attempt.attemptedAt)}
          </Text>
          <Badge size="sm" variant="outline" color={attempt.statusCode !== null && attempt.statusCode < 300 ? 'green' : 'red'}>
            {attempt.statusCode ?? t('webhooks.log.noAnswer')}
          </Badge>
          <Text size="xs">{t('webhooks.log.duration', { ms: attempt.durationMs })}</Text>
          <AttemptFailure attempt={attempt} />
          {attempt.response && (
            <Tooltip label={attempt.response} multiline maw={420}>
              <Code style={{ maxWidth: '18rem', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', display: 'inline-block' }}>{attempt.response}</Code>
            </Tooltip>
          )}
        </Group>
      ))}
      {delivery.nextAttemptAt && (
        <Text size="xs" c="dimmed">
          {t('webhooks.log.nextAttempt', { time: formatDateTimeToSecond(delivery.nextAttemptAt) })}
        </Text>
      )}
    </Stack>
  );
}

/** The delivery log of one endpoint, newest first, with "Redeliver"; it refreshes while deliveries wait. */
export function DeliveryLog({ endpointId }: { endpointId: number }) {
  const { t } = useTranslation();
  const state = useListState('-createdAt', 20);
  const [status, setStatus] = useState<'all' | WebhookDeliveryStatus>('all');
  const { data, isFetching, error } = useDeliveries(endpointId, { ...state.query, status: status === 'all' ? undefined : status });
  const redeliver = useRedeliver();

  const resend = async (delivery: WebhookDelivery) => {
    try {
      await redeliver.mutateAsync(delivery.id);
      showSuccess(t('webhooks.log.redelivered'));
    } catch (error) {
      showError(error, 'webhooks.log.redeliverFailed');
    }
  };

  const columns: ListColumn<WebhookDelivery>[] = [
    {
      key: 'event',
      label: t('webhooks.log.event'),
      render: (delivery) => (
        <Stack gap={2}>
          <Text size="sm" fw={500}>
            {delivery.eventType}
          </Text>
          <Text size="xs" c="dimmed" ff="monospace">
            {delivery.eventId}
          </Text>
        </Stack>
      ),
    },
    {
      key: 'status',
      label: t('webhooks.log.status'),
      kind: 'fit',
      render: (delivery) => (
        <Text size="sm" fw={600} c={`${STATUS_COLORS[delivery.status]}.9`} style={{ whiteSpace: 'nowrap' }} data-testid="delivery-status">
          {t(`webhooks.log.statuses.${delivery.status}`)}
        </Text>
      ),
    },
    { key: 'createdAt', label: t('webhooks.log.createdAt'), kind: 'fit', sortField: 'createdAt', render: (delivery) => <Text size="sm">{formatDateTimeToSecond(delivery.createdAt)}</Text> },
    { key: 'attempts', label: t('webhooks.log.attempts'), kind: 'wrap', render: (delivery) => <Attempts delivery={delivery} /> },
    {
      key: 'actions',
      label: t('common.actions'),
      render: (delivery) =>
        !delivery.erased && (
          <Button size="compact-sm" variant="light" leftSection={<IconRepeat size={14} />} onClick={() => void resend(delivery)} data-testid="redeliver">
            {delivery.status === 'pending' ? t('webhooks.log.retryNow') : t('webhooks.log.redeliver')}
          </Button>
        ),
    },
  ];

  return (
    <Stack>
      <SegmentedControl
        value={status}
        onChange={(value) => {
          setStatus(value as typeof status);
          state.setOffset(0);
        }}
        data={(['all', 'pending', 'delivered', 'failed'] as const).map((value) => ({ value, label: t(`webhooks.log.statuses.${value}`) }))}
        fullWidth
      />
      <ListTable id="webhook-deliveries" columns={columns} items={data?.items} totalCount={data?.totalCount} loading={isFetching} error={error} state={state} rowKey={(delivery) => delivery.id} />
    </Stack>
  );
}
