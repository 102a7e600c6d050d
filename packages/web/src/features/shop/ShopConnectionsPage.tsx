import { useState } from 'react';
import { Anchor, Badge, Button, Code, Group, Modal, Paper, Text } from '@mantine/core';
import { IconList, IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ShopConnection } from '@lm/contract/shop';
import { confirmDanger } from '../../components/confirm-danger.tsx';
import { ListTable, type ListColumn } from '../../components/ListTable.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { RowAction } from '../../components/RowAction.tsx';
import { useListState } from '../../lib/list-state.ts';
import { useDeleteShopConnection, useShopConnections } from './api/shop.ts';
import { providerName, ShopConnectionForm } from './ShopConnectionForm.tsx';
import { ShopEventLog } from './ShopEventLog.tsx';

/** Tools → Shop connections: each shop's webhook address, its mappings, and its events with failed ones to replay (docs/selling.md). */
export default function ShopConnectionsPage() {
  const { t } = useTranslation();
  const state = useListState('id');
  const { data, isFetching, error } = useShopConnections();
  const [editing, setEditing] = useState<ShopConnection | 'new' | null>(null);
  const [eventsOf, setEventsOf] = useState<ShopConnection | null>(null);
  const remove = useDeleteShopConnection();

  const confirmDelete = (connection: ShopConnection) =>
    confirmDanger({
      title: t('shop.deleteTitle'),
      text: t('shop.deleteText', { name: connection.name }),
      confirmTestId: 'confirm-delete',
      run: () => remove.mutateAsync(connection.id),
      done: t('shop.deleted'),
      failedKey: 'shop.deleteFailed',
    });

  const columns: ListColumn<ShopConnection>[] = [
    {
      key: 'name',
      label: t('shop.name'),
      render: (connection) => (
        <Text span size="sm" fw={500}>
          {connection.name}
        </Text>
      ),
    },
    // One line a row (issue 38): the provider in a column of its own, not under the name.
    { key: 'provider', label: t('shop.provider'), kind: 'fit', render: (connection) => providerName(connection.provider) },
    {
      key: 'url',
      label: t('shop.webhookUrl'),
      kind: 'wrap',
      render: (connection) => <Code style={{ overflowWrap: 'anywhere' }}>{`${window.location.origin}${connection.webhookPath}`}</Code>,
    },
    { key: 'mappings', label: t('shop.mappings'), kind: 'fit', render: (connection) => <Text size="sm">{t('shop.mappingCount', { count: connection.mappings.length })}</Text> },
    {
      key: 'failed',
      label: t('shop.outcomes.failed'),
      kind: 'fit',
      render: (connection) =>
        connection.failedEvents > 0 ? (
          <Badge color="red" variant="light" data-testid="failed-events">
            {t('shop.failedEvents', { count: connection.failedEvents })}
          </Badge>
        ) : (
          '–'
        ),
    },
    {
      key: 'actions',
      label: t('common.actions'),
      render: (connection) => (
        <Group gap={4} wrap="nowrap">
          <RowAction label={t('shop.events')} subject={connection.name} icon={<IconList size={18} />} onClick={() => setEventsOf(connection)} testId="open-events" />
          <RowAction label={t('common.edit')} subject={connection.name} icon={<IconPencil size={18} />} onClick={() => setEditing(connection)} />
          <RowAction label={t('common.delete')} subject={connection.name} icon={<IconTrash size={18} />} color="red" onClick={() => confirmDelete(connection)} />
        </Group>
      ),
    },
  ];

  return (
    <>
      <PageTitle
        title={t('shop.title')}
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} data-testid="add-shop-connection">
            {t('shop.add')}
          </Button>
        }
      />
      <Text size="sm" mb="md" maw={760}>
        <Trans i18nKey="shop.intro" components={{ guide: <Anchor component={Link} to="/help/selling" /> }} />
      </Text>
      <Paper withBorder p="md">
        {data && data.items.length === 0 ? (
          // No empty wide table: on a phone it would be a scrolling region with nothing to focus.
          <Text size="sm" c="dimmed" data-testid="no-shop-connections">
            {t('shop.none')}
          </Text>
        ) : (
          <ListTable id="shop-connections" columns={columns} items={data?.items} totalCount={data?.totalCount} loading={isFetching} error={error} state={state} rowKey={(connection) => connection.id} />
        )}
      </Paper>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={editing === null ? '' : editing === 'new' ? t('shop.add') : t('shop.editTitle')} size="xl">
        {editing !== null && <ShopConnectionForm connection={editing === 'new' ? null : editing} onCancel={() => setEditing(null)} onSaved={() => setEditing(null)} />}
      </Modal>
      <Modal opened={eventsOf !== null} onClose={() => setEventsOf(null)} title={t('shop.eventsOf', { name: eventsOf?.name })} size="70rem">
        {eventsOf && <ShopEventLog connectionId={eventsOf.id} />}
      </Modal>
    </>
  );
}
