import { useState } from 'react';
import { Badge, Button, Group, Modal, Paper, SegmentedControl, Text } from '@mantine/core';
import { IconCopy, IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Product } from '@lm/contract/product';
import { ChangeLogLink } from '../../components/ChangeLogLink.tsx';
import { ListTable, type ListColumn } from '../../components/ListTable.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useAbility } from '../../lib/auth.ts';
import { formatDate } from '../../lib/format.ts';
import { policyLabel, useAllLicensePolicies } from '../../lib/license-policies.ts';
import { useListState } from '../../lib/list-state.ts';
import { useDeleteProduct } from './api/delete-product.ts';
import { useProductList } from './api/list-products.ts';
import { ProductForm } from './ProductForm.tsx';
import { ProductVersions } from './ProductVersions.tsx';
import { ProductFeatures } from './ProductFeatures.tsx';
import { confirmDanger } from '../../components/confirm-danger.tsx';
import { ListSearch } from '../../components/ListSearch.tsx';
import { RowAction } from '../../components/RowAction.tsx';

const ACTIVE_FILTERS = { all: undefined, active: true, inactive: false } as const;
type ActiveFilter = keyof typeof ACTIVE_FILTERS;

/** The product list: search, active filter, sort; edit in a dialog, duplicate, delete with a confirmation. */
export default function ProductListPage() {
  const { t } = useTranslation();
  const ability = useAbility();
  const state = useListState('name');
  const [active, setActive] = useState<ActiveFilter>('all');
  const { data, isFetching, error } = useProductList({ ...state.query, active: ACTIVE_FILTERS[active] });
  const policies = useAllLicensePolicies();
  const [editing, setEditing] = useState<Product | null>(null);
  const remove = useDeleteProduct();
  const policyName = (id: number | null) => {
    const policy = policies.data?.find((candidate) => candidate.id === id);
    return policy ? policyLabel(policy, t) : '';
  };

  const confirmDelete = (product: Product) =>
    confirmDanger({
      title: t('catalogue.product.deleteTitle'),
      text: t('catalogue.product.deleteText', { name: product.formattedName }),
      confirmTestId: 'confirm-delete',
      run: () => remove.mutateAsync(product.id),
      done: t('catalogue.deleted', { name: product.formattedName }),
      failedKey: 'catalogue.deleteFailed',
    });

  const columns: ListColumn<Product>[] = [
    { key: 'name', label: t('catalogue.product.name'), sortField: 'name', render: (product) => <Text span fw={500} size="sm">{product.name}</Text> },
    { key: 'version', label: t('catalogue.product.version'), kind: 'fit', sortField: 'version', render: (product) => product.version },
    {
      key: 'active',
      label: t('catalogue.product.active'),
      kind: 'fit',
      sortField: 'active',
      render: (product) => (
        <Badge color={product.active ? 'green' : 'gray'} variant="light">
          {product.active ? t('catalogue.product.isActive') : t('catalogue.product.isInactive')}
        </Badge>
      ),
    },
    { key: 'trial', label: t('catalogue.product.trialDays'), kind: 'fit', render: (product) => product.trialDays ?? t('common.none') },
    { key: 'release', label: t('catalogue.product.releaseDate'), kind: 'fit', sortField: 'releaseDate', render: (product) => formatDate(product.releaseDate) },
    { key: 'features', label: t('catalogue.product.features'), kind: 'fit', render: (product) => <ProductFeatures product={product} /> },
    { key: 'policy', label: t('catalogue.product.defaultLicensePolicy'), render: (product) => policyName(product.defaultLicensePolicyId) },
    { key: 'createdAt', label: t('catalogue.createdAt'), kind: 'fit', sortField: 'createdAt', hiddenByDefault: true, render: (product) => formatDate(product.createdAt) },
  ];
  // Readers who may change nothing (distributors) get no empty Actions column.
  if (ability.can('update', 'Product') || ability.can('create', 'Product') || ability.can('delete', 'Product')) {
    columns.push({
      key: 'actions',
      label: t('common.actions'),
      render: (product) => (
        <Group gap={4} wrap="nowrap">
          {ability.can('update', 'Product') && (
            <RowAction label={t('common.edit')} subject={product.formattedName} icon={<IconPencil size={18} />} onClick={() => setEditing(product)} />
          )}
          {ability.can('create', 'Product') && (
            <RowAction label={t('catalogue.product.duplicate')} subject={product.formattedName} icon={<IconCopy size={18} />} to={`/products/create?duplicate=${product.id}`} />
          )}
          {ability.can('delete', 'Product') && (
            <RowAction label={t('common.delete')} subject={product.formattedName} icon={<IconTrash size={18} />} color="red" onClick={() => confirmDelete(product)} />
          )}
        </Group>
      ),
    });
  }

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
          <ListSearch state={state} />
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
        <ListTable id="products" columns={columns} items={data?.items} totalCount={data?.totalCount} loading={isFetching} error={error} state={state} rowKey={(product) => product.id} emptyText={active === 'all' ? t('catalogue.product.none') : undefined} />
      </Paper>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={t('catalogue.product.editTitle', { name: editing?.formattedName })} size="xl">
        {editing && (
          <>
            <ChangeLogLink model="Product" recordId={editing.id} />
            <ProductVersions productId={editing.id} />
            <ProductForm product={editing} onSaved={() => setEditing(null)} onCancel={() => setEditing(null)} />
          </>
        )}
      </Modal>
    </>
  );
}
