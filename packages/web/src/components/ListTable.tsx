import { Center, Group, Loader, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ListState } from '../lib/list-state.ts';
import { Paging } from './Paging.tsx';
import { LoadError } from './LoadError.tsx';
import { DataTable, type DataColumn } from './data-table/DataTable.tsx';

export type ListColumn<T> = DataColumn<T>;

interface ListTableProps<T> {
  /** The list's name for the browser's memory of its hidden columns (DataTable). */
  id: string;
  columns: ListColumn<T>[];
  items: T[] | undefined;
  totalCount: number | undefined;
  loading: boolean;
  /** The list query's error, shown above the table in place of an empty list. */
  error?: unknown;
  state: ListState;
  rowKey(item: T): string | number;
  /**
   * What the list says when it is empty and nothing narrows it (no search, and none of the page's own
   * filters): that there is none yet and how one is added. A searched list says "Nothing found".
   */
  emptyText?: string;
}

/** A list page's table: sortable headers, the total count, and paging by the API's offset and limit. */
export function ListTable<T>({ id, columns, items, totalCount, loading, error, state, rowKey, emptyText }: ListTableProps<T>) {
  const { t } = useTranslation();
  const pages = Math.max(1, Math.ceil((totalCount ?? 0) / state.limit));
  return (
    <>
      <LoadError error={error} />
      <DataTable id={id} columns={columns} items={items} rowKey={rowKey} sort={state.sort} onSort={(sort) => state.toggleSort(sort.replace(/^-/, ''))} busy={loading && Boolean(items)} />
      {loading && !items && (
        <Center p="lg">
          <Loader size="sm" aria-label={t('common.loading')} />
        </Center>
      )}
      {items && items.length === 0 && (
        <Text c="dimmed" ta="center" p="lg" data-testid="list-empty">
          {(!state.query.filter && emptyText) || t('catalogue.list.empty')}
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
