import { useState } from 'react';
import { useDebouncedValue } from '@mantine/hooks';
import { LIST_DEFAULT_LIMIT, SELECT_SEARCH_DEBOUNCE_MS } from '@lm/contract';

/** Paging, filter and sort of a list page, as the API's list query takes them. */
export interface ListState {
  offset: number;
  limit: number;
  /** What the user typed; `query.filter` follows it after the debounce. */
  filter: string;
  /** `field` or `-field`. */
  sort: string;
  setOffset(offset: number): void;
  setFilter(filter: string): void;
  toggleSort(field: string): void;
  query: { offset: number; limit: number; filter?: string; sort?: string };
}

export function useListState(defaultSort: string, limit = LIST_DEFAULT_LIMIT): ListState {
  const [offset, setOffset] = useState(0);
  const [filter, setFilterValue] = useState('');
  const [sort, setSort] = useState(defaultSort);
  const [debouncedFilter] = useDebouncedValue(filter.trim(), SELECT_SEARCH_DEBOUNCE_MS);
  return {
    offset,
    limit,
    filter,
    sort,
    setOffset,
    setFilter(value) {
      setFilterValue(value);
      setOffset(0);
    },
    toggleSort(field) {
      setSort((current) => (current === field ? `-${field}` : field));
      setOffset(0);
    },
    query: { offset, limit, filter: debouncedFilter || undefined, sort: sort || undefined },
  };
}
