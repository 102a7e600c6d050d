import type { ReactNode } from 'react';
import { Center, Group, Loader, Table, Text, UnstyledButton } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconArrowsSort } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { ListState } from '../lib/list-state.ts';
import { Paging } from './Paging.tsx';
import { LoadError } from './LoadError.tsx';
import rowActions from './RowActions.module.css';

export interface ListColumn<T> {
  /** `actions`: the row's buttons, kept in view where the table scrolls sideways. */
  key: string;
  label: string;
  /** The API sort field; the header then sorts on click. */
  sortField?: string;
  render(item: T): ReactNode;
}

interface ListTableProps<T> {
  columns: ListColumn<T>[];
  items: T[] | undefined;
  totalCount: number | undefined;
  loading: boolean;
  /** The list query's error, shown above the table in place of an empty list. */
  error?: unknown;
  state: ListState;
  rowKey(item: T): string | number;
  minWidth?: number;
}

function SortHeader({ label, field, state }: { label: string; field: string; state: ListState }) {
  const { t } = useTranslation();
  const direction = state.sort === field ? 'ascending' : state.sort === `-${field}` ? 'descending' : 'none';
  const Icon = direction === 'ascending' ? IconArrowUp : direction === 'descending' ? IconArrowDown : IconArrowsSort;
  return (
    <UnstyledButton onClick={() => state.toggleSort(field)} aria-label={t('catalogue.list.sortBy', { field: label })}>
      <Group gap={4} wrap="nowrap">
        <Text fw={600} size="sm">
          {label}
        </Text>
        <Icon size={14} aria-hidden opacity={direction === 'none' ? 0.4 : 1} />
      </Group>
    </UnstyledButton>
  );
}

/** A list page's table: sortable headers, the total count, and paging by the API's offset and limit. */
export function ListTable<T>({ columns, items, totalCount, loading, error, state, rowKey, minWidth = 800 }: ListTableProps<T>) {
  const { t } = useTranslation();
  const pages = Math.max(1, Math.ceil((totalCount ?? 0) / state.limit));
  return (
    <>
      <LoadError error={error} />
      <Table.ScrollContainer minWidth={minWidth}>
        <Table striped highlightOnHover verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              {columns.map((column) => {
                const sorted = column.sortField && (state.sort === column.sortField ? 'ascending' : state.sort === `-${column.sortField}` ? 'descending' : undefined);
                return (
                  <Table.Th key={column.key} aria-sort={sorted || undefined} className={column.key === 'actions' ? rowActions.cell : undefined}>
                    {column.sortField ? <SortHeader label={column.label} field={column.sortField} state={state} /> : column.label}
                  </Table.Th>
                );
              })}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items?.map((item) => (
              <Table.Tr key={rowKey(item)}>
                {columns.map((column) => (
                  <Table.Td key={column.key} className={column.key === 'actions' ? rowActions.cell : undefined}>
                    {column.render(item)}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {loading && !items && (
        <Center p="lg">
          <Loader size="sm" aria-label={t('common.loading')} />
        </Center>
      )}
      {items && items.length === 0 && (
        <Text c="dimmed" ta="center" p="lg">
          {t('catalogue.list.empty')}
        </Text>
      )}
      <Group justify="space-between" mt="sm">
        <Text size="sm" c="dimmed" data-testid="list-total">
          {t('catalogue.list.total', { count: totalCount ?? 0 })}
        </Text>
        {pages > 1 && <Paging size="sm" total={pages} value={Math.floor(state.offset / state.limit) + 1} onChange={(page) => state.setOffset((page - 1) * state.limit)} />}
      </Group>
    </>
  );
}
