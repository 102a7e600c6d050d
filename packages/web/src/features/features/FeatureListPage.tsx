import { useState } from 'react';
import { Badge, Button, Group, Modal, Paper, Text } from '@mantine/core';
import { IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { featureLabel, type Feature } from '@lm/contract/feature';
import { ChangeLogLink } from '../../components/ChangeLogLink.tsx';
import { ListTable, type ListColumn } from '../../components/ListTable.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useAbility } from '../../lib/auth.ts';
import { formatDate } from '../../lib/format.ts';
import { currentLocale } from '../../lib/i18n.ts';
import { useListState } from '../../lib/list-state.ts';
import { useDeleteFeature } from './api/delete-feature.ts';
import { useFeatureList } from './api/list-features.ts';
import { FeatureForm } from './FeatureForm.tsx';
import { confirmDanger } from '../../components/confirm-danger.tsx';
import { ListSearch } from '../../components/ListSearch.tsx';
import { RowAction } from '../../components/RowAction.tsx';

/** The feature list: search, sort, edit in a dialog, delete with a confirmation. */
export default function FeatureListPage() {
  const { t } = useTranslation();
  const ability = useAbility();
  const state = useListState('name');
  const { data, isFetching, error } = useFeatureList(state.query);
  const [editing, setEditing] = useState<Feature | null>(null);
  const remove = useDeleteFeature();
  const locale = currentLocale();

  const confirmDelete = (feature: Feature) =>
    confirmDanger({
      title: t('catalogue.feature.deleteTitle'),
      text: t('catalogue.feature.deleteText', { name: feature.name }),
      confirmTestId: 'confirm-delete',
      run: () => remove.mutateAsync(feature.id),
      done: t('catalogue.deleted', { name: feature.name }),
      failedKey: 'catalogue.deleteFailed',
    });

  const columns: ListColumn<Feature>[] = [
    { key: 'name', label: t('catalogue.feature.name'), sortField: 'name', render: (feature) => <Text span fw={500} size="sm">{feature.name}</Text> },
    { key: 'description', label: t('catalogue.feature.description'), render: (feature) => (featureLabel(feature, locale) === feature.name ? '' : featureLabel(feature, locale)) },
    {
      key: 'expandTo',
      label: t('catalogue.feature.expandTo'),
      kind: 'wrap',
      // Nothing for a feature that is not replaced: a phone's card then leaves the line out.
      render: (feature) =>
        feature.expandToFeatures.length > 0 && (
        <Group gap={4}>
          {feature.expandToFeatures.map((name) => (
            <Badge key={name} variant="light" tt="none">
              {name}
            </Badge>
          ))}
        </Group>
      ),
    },
    { key: 'hidden', label: t('catalogue.feature.hidden'), kind: 'fit', sortField: 'hidden', render: (feature) => (feature.hidden ? <Badge color="gray">{t('common.yes')}</Badge> : '') },
    { key: 'createdAt', label: t('catalogue.createdAt'), kind: 'fit', sortField: 'createdAt', render: (feature) => formatDate(feature.createdAt) },
  ];
  // Readers who may change nothing (distributors) get no empty Actions column.
  if (ability.can('update', 'Feature') || ability.can('delete', 'Feature')) {
    columns.push({
      key: 'actions',
      label: t('common.actions'),
      render: (feature) => (
        <Group gap={4} wrap="nowrap">
          {ability.can('update', 'Feature') && (
            <RowAction label={t('common.edit')} subject={feature.name} icon={<IconPencil size={18} />} onClick={() => setEditing(feature)} />
          )}
          {ability.can('delete', 'Feature') && (
            <RowAction label={t('common.delete')} subject={feature.name} icon={<IconTrash size={18} />} color="red" onClick={() => confirmDelete(feature)} />
          )}
        </Group>
      ),
    });
  }

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
        <ListSearch state={state} mb="sm" />
        <ListTable id="features" columns={columns} items={data?.items} totalCount={data?.totalCount} loading={isFetching} error={error} state={state} rowKey={(feature) => feature.id} emptyText={t('catalogue.feature.none')} />
      </Paper>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={t('catalogue.feature.editTitle', { name: editing?.name })} size="xl">
        {editing && (
          <>
            <ChangeLogLink model="Feature" recordId={editing.id} />
            <FeatureForm feature={editing} onSaved={() => setEditing(null)} onCancel={() => setEditing(null)} />
          </>
        )}
      </Modal>
    </>
  );
}
