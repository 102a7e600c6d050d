import { useState } from 'react';
import { Loader, Select, type SelectProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { SELECT_PAGE_SIZE, SELECT_SEARCH_DEBOUNCE_MS, type ListResult, type Role, type User } from '@lm/contract';
import { api } from '../lib/api.ts';
import { nextPageOffset, searchTerm, selectOptions, userOptionLabel } from './user-select-logic.ts';

export { userOptionLabel };

export interface UserSelectProps extends Omit<SelectProps<number>, 'data' | 'value' | 'onChange' | 'searchValue' | 'onSearchChange' | 'filter'> {
  value: number | null;
  onChange: (userId: number | null, user: User | null) => void;
  /** Only accounts of this role (spec section 6: "The user select can filter by accessRole"). */
  accessRole?: Role;
}

/**
 * Picks an account from GET /api/users (administrators): searched on the server as the user types
 * (debounced 300 ms), 50 at a time, the next 50 loaded at the end of the list (spec section 9).
 */
export function UserSelect({ value, onChange, accessRole, ...props }: UserSelectProps) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  // The list loads when the dropdown first opens, not for every select on a page.
  const [opened, setOpened] = useState(false);

  const selected = useQuery({
    queryKey: ['users', 'one', value],
    queryFn: ({ signal }) => api<User>(`/users/${value}`, { signal }),
    enabled: value !== null,
    staleTime: 60_000,
  });
  const selectedLabel = selected.data ? userOptionLabel(selected.data) : '';
  const [query] = useDebouncedValue(searchTerm(search, selectedLabel), SELECT_SEARCH_DEBOUNCE_MS);

  const pages = useInfiniteQuery({
    queryKey: ['users', 'select', accessRole ?? null, query],
    queryFn: ({ pageParam, signal }) =>
      api<ListResult<User>>('/users', { query: { offset: pageParam, limit: SELECT_PAGE_SIZE, filter: query, accessRole, sort: 'email' }, signal }),
    initialPageParam: 0,
    getNextPageParam: nextPageOffset,
    enabled: opened,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });

  const { options, byId } = selectOptions(selected.data, pages.data?.pages ?? []);

  return (
    <Select<number>
      searchable
      clearable
      placeholder={t('users.select.placeholder')}
      nothingFoundMessage={pages.isFetching ? t('common.loading') : t('users.select.nothingFound')}
      {...props}
      data={options}
      value={value}
      onChange={(id) => onChange(id, id === null ? null : (byId.get(id) ?? null))}
      searchValue={search}
      onSearchChange={setSearch}
      onDropdownOpen={() => {
        setOpened(true);
        props.onDropdownOpen?.();
      }}
      filter={({ options }) => options}
      rightSection={pages.isFetching ? <Loader size="xs" /> : undefined}
      scrollAreaProps={{ onBottomReached: () => void (pages.hasNextPage && !pages.isFetchingNextPage && pages.fetchNextPage()) }}
    />
  );
}
