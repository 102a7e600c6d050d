import { useState } from 'react';
import { ActionIcon, Badge, Button, Group, Modal, Paper, Text, TextInput, Tooltip } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconPencil, IconPlus, IconSearch, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { featureLabel, type Feature } from '@lm/contract/feature';
import { ListTable, type ListColumn } from '../../components/ListTable.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useAbility } from '../../lib/auth.ts';
import { formatDate } from '../../lib/format.ts';
import { currentLocale } from '../../lib/i18n.ts';
import { useListState } from '../../lib/list-state.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { useDeleteFeature } from './api/delete-feature.ts';
import { useFeatureList } from './api/list-features.ts';
import { FeatureForm } from './FeatureForm.tsx';

/** The feature list: search, sort, edit in a dialog, delete with a confirmation. */
export default function FeatureListPage() {
  const { t } = useTranslation();
  const ability = useAbility();
  const state = useListState('name');
  const { data, isFetching } = useFeatureList(state.query);
  const [editing, setEditing] = useState<Feature | null>(null);
  const remove = useDeleteFeature();
  const locale = currentLocale();

  const confirmDelete = (feature: Feature) =>
    modals.openConfirmModal({
      title: t('catalogue.feature.deleteTitle'),
      children: <Text size="sm">{t('catalogue.feature.deleteText', { name: feature.name })}</Text>,
      labels: { confirm: t('common.delete'), cancel: t('common.cancel') },
      confirmProps: { color: 'red', 'data-testid': 'confirm-delete' },
      onConfirm: async () => {
        try {
          await remove.mutateAsync(feature.id);
          showSuccess(t('catalogue.deleted', { name: feature.name }));
        } catch (error) {
          showError(error, 'catalogue.deleteFailed');
        }
      },
    });

  const columns: ListColumn<Feature>[] = [
    { key: 'name', label: t('catalogue.feature.name'), sortField: 'name', render: (feature) => <Text fw={500}>{feature.name}</Text> },
    { key: 'description', label: t('catalogue.feature.description'), render: (feature) => (featureLabel(feature, locale) === feature.name ? '' : featureLabel(feature, locale)) },
    {
      key: 'expandTo',
      label: t('catalogue.feature.expandTo'),
      render: (feature) => (
        <Group gap={4}>
          {feature.expandToFeatures.map((name) => (
            <Badge key={name} variant="light" tt="none">
              {name}
            </Badge>
          ))}
        </Group>
      ),
    },
    { key: 'hidden', label: t('catalogue.feature.hidden'), sortField: 'hidden', render: (feature) => (feature.hidden ? <Badge color="gray">{t('common.yes')}</Badge> : '') },
    { key: 'createdAt', label: t('catalogue.createdAt'), sortField: 'createdAt', render: (feature) => formatDate(feature.createdAt) },
    {
      key: 'actions',
      label: t('common.actions'),
      render: (feature) => (
        <Group gap={4} wrap="nowrap">
          {ability.can('update', 'Feature') && (
            <Tooltip label={t('common.edit')}>
              <ActionIcon variant="subtle" onClick={() => setEditing(feature)} aria-label={`${t('common.edit')} ${feature.name}`}>
                <IconPencil size={18} />
              </ActionIcon>
            </Tooltip>
          )}
          {ability.can('delete', 'Feature') && (
            <Tooltip label={t('common.delete')}>
              <ActionIcon variant="subtle" color="red" onClick={() => confirmDelete(feature)} aria-label={`${t('common.delete')} ${feature.name}`}>
                <IconTrash size={18} />
              </ActionIcon>
            </Tooltip>
          )}
        </Group>
      ),
    },
  ];

  return (
    <>
      <PageTitle
        title={t('pages.features')}
        actions={
          ability.can('create', 'Feature') && (
            <Button component={Link} to="/features/create" leftSection={<IconPlus size={16} />}>
              {t('pages.featureCreate')}
            </Button>
          )
        }
      />
      <Paper withBorder p="md">
        <TextInput
          mb="sm"
          maw={360}
          leftSection={<IconSearch size={16} />}
          placeholder={t('common.search')}
          aria-label={t('common.search')}
          value={state.filter}
          onChange={(event) => state.setFilter(event.currentTarget.value)}
        />
        <ListTable columns={columns} items={data?.items} totalCount={data?.totalCount} loading={isFetching} state={state} rowKey={(feature) => feature.id} />
      </Paper>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={t('catalogue.feature.editTitle', { name: editing?.name })} size="xl">
        {editing && <FeatureForm feature={editing} onSaved={() => setEditing(null)} onCancel={() => setEditing(null)} />}
      </Modal>
    </>
  );
}
