import { useState } from 'react';
import { Loader, Select, type SelectProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { SELECT_PAGE_SIZE, SELECT_SEARCH_DEBOUNCE_MS, type ListResult, type Role, type User } from '@lm/contract';
import { api } from '../lib/api.ts';

export interface UserSelectProps extends Omit<SelectProps<number>, 'data' | 'value' | 'onChange' | 'searchValue' | 'onSearchChange' | 'filter'> {
  value: number | null;
  onChange: (userId: number | null, user: User | null) => void;
  /** Only accounts of this role (spec section 6: "The user select can filter by accessRole"). */
  accessRole?: Role;
}

/** How an account reads in the select: its name, and its address when the name is not the address. */
export function userOptionLabel(user: Pick<User, 'formattedName' | 'email'>): string {
  return user.formattedName && user.formattedName !== user.email ? `${user.formattedName} · ${user.email}` : user.email;
}

/**
 * Picks an account from GET /api/users (administrators): searched on the server as the user types
 * (debounced 300 ms), 50 at a time, the next 50 loaded at the end of the list (spec section 9).
 */
export function UserSelect({ value, onChange, accessRole, ...props }: UserSelectProps) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');

  const selected = useQuery({
    queryKey: ['users', 'one', value],
    queryFn: ({ signal }) => api<User>(`/users/${value}`, { signal }),
    enabled: value !== null,
    staleTime: 60_000,
  });
  const selectedLabel = selected.data ? userOptionLabel(selected.data) : '';
  // The input shows the chosen account's label; only what the user types is a search.
  const typed = search === selectedLabel ? '' : search.trim();
  const [query] = useDebouncedValue(typed, SELECT_SEARCH_DEBOUNCE_MS);

  const pages = useInfiniteQuery({
    queryKey: ['users', 'select', accessRole ?? null, query],
    queryFn: ({ pageParam, signal }) =>
      api<ListResult<User>>('/users', { query: { offset: pageParam, limit: SELECT_PAGE_SIZE, filter: query, accessRole, sort: 'email' }, signal }),
    initialPageParam: 0,
    getNextPageParam: (last, all) => {
      const loaded = all.reduce((count, page) => count + page.items.length, 0);
      return loaded < last.totalCount ? loaded : undefined;
    },
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });

  const users = new Map<number, User>();
  if (selected.data) users.set(selected.data.id, selected.data);
  for (const page of pages.data?.pages ?? []) for (const user of page.items) users.set(user.id, user);
  const data = [...users.values()].map((user) => ({ value: user.id, label: userOptionLabel(user) }));

  return (
    <Select<number>
      searchable
      clearable
      placeholder={t('users.select.placeholder')}
      nothingFoundMessage={pages.isFetching ? t('common.loading') : t('users.select.nothingFound')}
      {...props}
      data={data}
      value={value}
      onChange={(id) => onChange(id, id === null ? null : (users.get(id) ?? null))}
      searchValue={search}
      onSearchChange={setSearch}
      filter={({ options }) => options}
      rightSection={pages.isFetching ? <Loader size="xs" /> : undefined}
      scrollAreaProps={{ onBottomReached: () => void (pages.hasNextPage && !pages.isFetchingNextPage && pages.fetchNextPage()) }}
    />
  );
}
