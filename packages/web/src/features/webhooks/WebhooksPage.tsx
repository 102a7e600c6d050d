import { useState } from 'react';
import { Anchor, Badge, Button, Group, Modal, Paper, Stack, Switch, Text, Tooltip } from '@mantine/core';
import { IconKey, IconList, IconPencil, IconPlus, IconSend, IconTrash } from '@tabler/icons-react';
import { Trans, useTranslation } from 'react-i18next';
import type { WebhookEndpoint } from '@lm/contract/webhook';
import { confirmDanger } from '../../components/confirm-danger.tsx';
import { ListSearch } from '../../components/ListSearch.tsx';
import { ListTable, type ListColumn } from '../../components/ListTable.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { RowAction } from '../../components/RowAction.tsx';
import { ShownOnce } from '../../components/ShownOnce.tsx';
import { currentLocale } from '../../lib/i18n.ts';
import { useListState } from '../../lib/list-state.ts';
import { showError, showFailure, showSuccess } from '../../lib/notify.ts';
import { useDeleteEndpoint, useEndpointList, useRotateSecret, useSendTestEvent, useSwitchEndpoint } from './api/webhooks.ts';
import { DeliveryLog } from './DeliveryLog.tsx';
import { EndpointForm } from './EndpointForm.tsx';
import { failureSentence, failureText } from './failure-text.ts';

/** Tools → Webhooks: endpoints with their events, the secret shown once and rotatable, the delivery log, test events. */
export default function WebhooksPage() {
  const { t } = useTranslation();
  const state = useListState('createdAt');
  const { data, isFetching, error } = useEndpointList(state.query);
  const [editing, setEditing] = useState<WebhookEndpoint | 'new' | null>(null);
  const [logOf, setLogOf] = useState<WebhookEndpoint | null>(null);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const remove = useDeleteEndpoint();
  const rotate = useRotateSecret();
  const test = useSendTestEvent();
  const switchEndpoint = useSwitchEndpoint();

  const confirmDelete = (endpoint: WebhookEndpoint) =>
    confirmDanger({
      title: t('webhooks.deleteTitle'),
      text: t('webhooks.deleteText', { url: endpoint.url }),
      confirmTestId: 'confirm-delete',
      run: () => remove.mutateAsync(endpoint.id),
      done: t('webhooks.deleted'),
      failedKey: 'webhooks.deleteFailed',
    });

  const confirmRotate = (endpoint: WebhookEndpoint) =>
    confirmDanger({
      title: t('webhooks.rotateTitle'),
      text: t('webhooks.rotateText'),
      confirmLabel: t('webhooks.rotate'),
      confirmTestId: 'confirm-rotate',
      run: async () => setSecret({ url: endpoint.url, secret: (await rotate.mutateAsync(endpoint.id)).secret }),
      done: t('webhooks.rotated'),
      failedKey: 'webhooks.rotateFailed',
    });

  const sendTest = async (endpoint: WebhookEndpoint) => {
    try {
      const delivery = await test.mutateAsync(endpoint.id);
      const attempt = delivery.attempts[0];
      if (delivery.status === 'delivered') showSuccess(t('webhooks.testDelivered', { status: attempt.statusCode, ms: attempt.durationMs }));
      else {
        const failure = attempt && failureText(attempt, t);
        // Already in the person's words: errorText would put its generic text in place of an Error's message.
        showFailure(t('webhooks.testNotDelivered', { reason: failure ? failureSentence(failure) : '' }));
      }
    } catch (error) {
      showError(error, 'webhooks.testFailed');
    }
  };

  const setEnabled = async (endpoint: WebhookEndpoint, enabled: boolean) => {
    try {
      await switchEndpoint.mutateAsync({ id: endpoint.id, enabled });
    } catch (error) {
      showError(error, 'webhooks.saveFailed');
    }
  };

  const columns: ListColumn<WebhookEndpoint>[] = [
    {
      key: 'url',
      label: t('webhooks.endpoint'),
      sortField: 'url',
      render: (endpoint) => (
        <Text span size="sm" fw={500} data-testid="endpoint-url">
          {endpoint.url}
        </Text>
      ),
    },
    // One line a row (issue 38): the description and the owner in columns of their own, not under the address.
    { key: 'description', label: t('webhooks.description'), render: (endpoint) => endpoint.description ?? '' },
    { key: 'owner', label: t('webhooks.owner'), render: (endpoint) => endpoint.ownerName },
    {
      key: 'events',
      label: t('webhooks.events'),
      text: (endpoint) => endpoint.events.join(', '),
      render: (endpoint) => (
        <Group gap={4} wrap="nowrap">
          {endpoint.events.map((type) => (
            <Badge key={type} variant="light" tt="none" size="sm">
              {type}
            </Badge>
          ))}
        </Group>
      ),
    },
    {
      key: 'state',
      label: t('webhooks.state'),
      kind: 'fit',
      render: (endpoint) => (
        <Stack gap={4}>
          <Switch
            checked={endpoint.enabled}
            onChange={(event) => void setEnabled(endpoint, event.currentTarget.checked)}
            label={endpoint.enabled ? t('webhooks.on') : t('webhooks.off')}
            aria-label={`${t('webhooks.enabled')} ${endpoint.url}`}
          />
          {endpoint.disabledReason === 'failing' && (
            <Badge color="red" variant="light" size="sm">
              {t('webhooks.switchedOff')}
            </Badge>
          )}
          {endpoint.failingSince && endpoint.enabled && (
            <Tooltip label={t('webhooks.failingHint')}>
              <Badge color="orange" variant="light" size="sm">
                {t('webhooks.failingSince', { time: new Date(endpoint.failingSince).toLocaleString(currentLocale(), { dateStyle: 'short', timeStyle: 'short' }) })}
              </Badge>
            </Tooltip>
          )}
          {endpoint.pendingCount > 0 && (
            <Text size="xs" c="dimmed">
              {t('webhooks.pending', { count: endpoint.pendingCount })}
            </Text>
          )}
        </Stack>
      ),
    },
    {
      key: 'actions',
      label: t('common.actions'),
      render: (endpoint) => (
        <Group gap={4} wrap="nowrap">
          <RowAction label={t('webhooks.log.title')} subject={endpoint.url} icon={<IconList size={18} />} onClick={() => setLogOf(endpoint)} testId="open-log" />
          <RowAction label={t('webhooks.sendTest')} subject={endpoint.url} icon={<IconSend size={18} />} onClick={() => void sendTest(endpoint)} testId="send-test" />
          <RowAction label={t('common.edit')} subject={endpoint.url} icon={<IconPencil size={18} />} onClick={() => setEditing(endpoint)} />
          <RowAction label={t('webhooks.rotate')} subject={endpoint.url} icon={<IconKey size={18} />} onClick={() => confirmRotate(endpoint)} testId="rotate-secret" />
          <RowAction label={t('common.delete')} subject={endpoint.url} icon={<IconTrash size={18} />} color="red" onClick={() => confirmDelete(endpoint)} />
        </Group>
      ),
    },
  ];

  return (
    <>
      <PageTitle
        title={t('webhooks.title')}
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} data-testid="add-endpoint">
            {t('webhooks.add')}
          </Button>
        }
      />
      <Text size="sm" mb="md" maw={760}>
        <Trans i18nKey="webhooks.intro" components={{ docs: <Anchor href="https://www.standardwebhooks.com" target="_blank" rel="noreferrer" /> }} />
      </Text>
      {secret && (
        <ShownOnce
          title={t('webhooks.secretTitle', { url: secret.url })}
          hint={t('webhooks.secretShownOnce')}
          label={t('webhooks.secret')}
          value={secret.secret}
          onDone={() => setSecret(null)}
          testId="endpoint-secret"
        />
      )}
      <Paper withBorder p="md">
        <ListSearch state={state} mb="sm" />
        <ListTable id="webhooks" columns={columns} items={data?.items} totalCount={data?.totalCount} loading={isFetching} error={error} state={state} rowKey={(endpoint) => endpoint.id} emptyText={t('webhooks.none')} />
      </Paper>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={editing === null ? '' : editing === 'new' ? t('webhooks.add') : t('webhooks.editTitle')} size="lg">
        {editing !== null && (
          <EndpointForm
            endpoint={editing === 'new' ? null : editing}
            onCancel={() => setEditing(null)}
            onSaved={(saved) => {
              setEditing(null);
              if ('secret' in saved) setSecret({ url: saved.url, secret: saved.secret });
            }}
          />
        )}
      </Modal>
      <Modal opened={logOf !== null} onClose={() => setLogOf(null)} title={t('webhooks.log.titleOf', { url: logOf?.url })} size="70rem">
        {logOf && <DeliveryLog endpointId={logOf.id} />}
      </Modal>
    </>
  );
}
