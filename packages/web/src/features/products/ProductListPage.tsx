import { useState } from 'react';
import { ActionIcon, Badge, Button, Group, Modal, Paper, SegmentedControl, Text, TextInput, Tooltip } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconCopy, IconPencil, IconPlus, IconSearch, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Product } from '@lm/contract/product';
import { ListTable, type ListColumn } from '../../components/ListTable.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useAbility } from '../../lib/auth.ts';
import { formatDate } from '../../lib/format.ts';
import { policyLabel, useAllLicensePolicies } from '../../lib/license-policies.ts';
import { useListState } from '../../lib/list-state.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { useDeleteProduct } from './api/delete-product.ts';
import { useProductList } from './api/list-products.ts';
import { ProductForm } from './ProductForm.tsx';
import { ProductVersions } from './ProductVersions.tsx';

const ACTIVE_FILTERS = { all: undefined, active: true, inactive: false } as const;
type ActiveFilter = keyof typeof ACTIVE_FILTERS;

/** The product list: search, active filter, sort; edit in a dialog, duplicate, delete with a confirmation. */
export default function ProductListPage() {
  const { t } = useTranslation();
  const ability = useAbility();
  const state = useListState('name');
  const [active, setActive] = useState<ActiveFilter>('all');
  const { data, isFetching } = useProductList({ ...state.query, active: ACTIVE_FILTERS[active] });
  const policies = useAllLicensePolicies();
  const [editing, setEditing] = useState<Product | null>(null);
  const remove = useDeleteProduct();
  const policyName = (id: number | null) => {
    const policy = policies.data?.find((candidate) => candidate.id === id);
    return policy ? policyLabel(policy, t) : '';
  };

  const confirmDelete = (product: Product) =>
    modals.openConfirmModal({
      title: t('catalogue.product.deleteTitle'),
      children: <Text size="sm">{t('catalogue.product.deleteText', { name: product.formattedName })}</Text>,
      labels: { confirm: t('common.delete'), cancel: t('common.cancel') },
      confirmProps: { color: 'red', 'data-testid': 'confirm-delete' },
      onConfirm: async () => {
        try {
          await remove.mutateAsync(product.id);
          showSuccess(t('catalogue.deleted', { name: product.formattedName }));
        } catch (error) {
          showError(error, 'catalogue.deleteFailed');
        }
      },
    });

  const columns: ListColumn<Product>[] = [
    { key: 'name', label: t('catalogue.product.name'), sortField: 'name', render: (product) => <Text fw={500}>{product.name}</Text> },
    { key: 'version', label: t('catalogue.product.version'), sortField: 'version', render: (product) => product.version },
    {
      key: 'active',
      label: t('catalogue.product.active'),
      sortField: 'active',
      render: (product) => (
        <Badge color={product.active ? 'green' : 'gray'} variant="light">
          {product.active ? t('catalogue.product.isActive') : t('catalogue.product.isInactive')}
        </Badge>
      ),
    },
    { key: 'trial', label: t('catalogue.product.trialDays'), render: (product) => product.trialDays ?? t('common.none') },
    { key: 'release', label: t('catalogue.product.releaseDate'), sortField: 'releaseDate', render: (product) => formatDate(product.releaseDate) },
    {
      key: 'features',
      label: t('catalogue.product.features'),
      render: (product) => (
        <Tooltip label={product.features.join(', ')} disabled={product.features.length === 0} multiline maw={400}>
          <Text size="sm">{t('catalogue.product.featureCount', { count: product.features.length })}</Text>
        </Tooltip>
      ),
    },
    { key: 'policy', label: t('catalogue.product.defaultLicensePolicy'), render: (product) => policyName(product.defaultLicensePolicyId) },
    { key: 'createdAt', label: t('catalogue.createdAt'), sortField: 'createdAt', render: (product) => formatDate(product.createdAt) },
    {
      key: 'actions',
      label: t('common.actions'),
      render: (product) => (
        <Group gap={4} wrap="nowrap">
          {ability.can('update', 'Product') && (
            <Tooltip label={t('common.edit')}>
              <ActionIcon variant="subtle" onClick={() => setEditing(product)} aria-label={`${t('common.edit')} ${product.formattedName}`}>
                <IconPencil size={18} />
              </ActionIcon>
            </Tooltip>
          )}
          {ability.can('create', 'Product') && (
            <Tooltip label={t('catalogue.product.duplicate')}>
              <ActionIcon variant="subtle" component={Link} to={`/products/create?duplicate=${product.id}`} aria-label={`${t('catalogue.product.duplicate')} ${product.formattedName}`}>
                <IconCopy size={18} />
              </ActionIcon>
            </Tooltip>
          )}
          {ability.can('delete', 'Product') && (
            <Tooltip label={t('common.delete')}>
              <ActionIcon variant="subtle" color="red" onClick={() => confirmDelete(product)} aria-label={`${t('common.delete')} ${product.formattedName}`}>
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
        title={t('pages.products')}
        actions={
          ability.can('create', 'Product') && (
            <Button component={Link} to="/products/create" leftSection={<IconPlus size={16} />}>
              {t('pages.productCreate')}
            </Button>
          )
        }
      />
      <Paper withBorder p="md">
        <Group mb="sm" gap="sm">
          <TextInput
            maw={360}
            style={{ flex: 1 }}
            leftSection={<IconSearch size={16} />}
            placeholder={t('common.search')}
            aria-label={t('common.search')}
            value={state.filter}
            onChange={(event) => state.setFilter(event.currentTarget.value)}
          />
          <SegmentedControl
            value={active}
            onChange={(value) => {
              setActive(value as ActiveFilter);
              state.setOffset(0);
            }}
            data={[
              { value: 'all', label: t('catalogue.all') },
              { value: 'active', label: t('catalogue.product.isActive') },
              { value: 'inactive', label: t('catalogue.product.isInactive') },
            ]}
          />
        </Group>
        <ListTable columns={columns} items={data?.items} totalCount={data?.totalCount} loading={isFetching} state={state} rowKey={(product) => product.id} minWidth={1050} />
      </Paper>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={t('catalogue.product.editTitle', { name: editing?.formattedName })} size="xl">
        {editing && (
          <>
            <ProductVersions productId={editing.id} />
            <ProductForm product={editing} onSaved={() => setEditing(null)} onCancel={() => setEditing(null)} />
          </>
        )}
      </Modal>
    </>
  );
}
