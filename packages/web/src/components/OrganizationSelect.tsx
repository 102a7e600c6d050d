import { useState } from 'react';
import { Loader, Select, type SelectProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { SELECT_PAGE_SIZE, SELECT_SEARCH_DEBOUNCE_MS, type ListResult, type OrganizationRef } from '@lm/contract';
import { api } from '../lib/api.ts';

interface Props extends Omit<SelectProps, 'data' | 'value' | 'onChange' | 'searchValue' | 'onSearchChange' | 'filter'> {
  value: OrganizationRef | null;
  onChange(organization: OrganizationRef | null): void;
}

/**
 * The staff lists' filter by organization (DESIGN.md section 6f): every organization of the
 * installation (`GET /api/organizations?all=true`, administrators), searched on the server as one types.
 */
export function OrganizationSelect({ value, onChange, ...props }: Props) {
  const { t } = useTranslation();
  const [search, setSearch] = useState(value?.name ?? '');
  // The input shows the chosen name; only what is typed beyond it is a search.
  const typed = value && search === value.name ? '' : search.trim();
  const [query] = useDebouncedValue(typed, SELECT_SEARCH_DEBOUNCE_MS);
  const found = useQuery({
    queryKey: ['organizations', 'all', query],
    queryFn: ({ signal }) => api<ListResult<OrganizationRef>>('/organizations', { query: { all: 'true', filter: query || undefined, limit: SELECT_PAGE_SIZE, sort: 'name' }, signal }),
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
  const byId = new Map<string, OrganizationRef>();
  if (value) byId.set(String(value.id), value);
  for (const organization of found.data?.items ?? []) byId.set(String(organization.id), { id: organization.id, name: organization.name });
  return (
    <Select
      searchable
      clearable
      label={t('organizations.filter')}
      placeholder={t('organizations.filterAll')}
      nothingFoundMessage={found.isFetching ? t('common.loading') : t('organizations.nothingFound')}
      {...props}
      data={[...byId.entries()].map(([id, organization]) => ({ value: id, label: organization.name }))}
      value={value ? String(value.id) : null}
      onChange={(id) => onChange(id === null ? null : (byId.get(id) ?? null))}
      searchValue={search}
      onSearchChange={setSearch}
      filter={({ options }) => options}
      rightSection={found.isFetching ? <Loader size="xs" /> : undefined}
      data-testid="organization-filter"
    />
  );
}
