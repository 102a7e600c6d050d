import { useState, type ReactNode } from 'react';
import { Group, Loader, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { LIST_FILTER_MAX_LENGTH, SELECT_SEARCH_DEBOUNCE_MS, type ListResult, type OrganizationRef } from '@lm/contract';
import { ListPager, useCountText } from '../../../components/ListPager.tsx';
import { useListPaging } from '../../../lib/list-paging.ts';
import { useLicenses, type LicenseItem } from '../api/licenses.ts';
import { LicenseCard } from './LicenseCard.tsx';
import { LicenseTable } from './LicenseTable.tsx';
import { LoadError } from '../../../components/LoadError.tsx';
import { OrganizationSelect } from '../../../components/OrganizationSelect.tsx';

interface Props {
  userId?: number;
  offline: boolean;
  showOwner?: boolean;
  /** Above the cards, given the loaded page (notices, the upgrade offer). */
  header?: (page: ListResult<LicenseItem>) => ReactNode;
  /** What an empty list says; by default it speaks to the owner ("You have no licenses yet"). */
  emptyText?: string;
  /** Every license the caller may see across accounts (the staff's search), with a choice of order. */
  scope?: 'all';
  searchLabel?: string;
  /** A row a license (the staff's list of many), rather than a card each. */
  table?: boolean;
  /** A filter by organization (administrators, who may list every organization). */
  organizationFilter?: boolean;
}

const ORDERS = ['-createdAt', 'createdAt', 'machineId', 'validUntil', '-validUntil', 'freeUpdatesUntil'] as const;

/** Licenses as cards, searchable by machine id and TAN, 50 a page. */
export function LicenseBrowser({ userId, offline, showOwner, header, emptyText, scope, searchLabel, table, organizationFilter }: Props) {
  const { t } = useTranslation();
  // `?filter=` opens the list searched (the Orders page links a license's machine so).
  const [searchParams] = useSearchParams();
  const [search, setSearch] = useState(() => searchParams.get('filter') ?? '');
  const [sort, setSort] = useState<(typeof ORDERS)[number]>('-createdAt');
  const [organization, setOrganization] = useState<OrganizationRef | null>(null);
  const [filter] = useDebouncedValue(search.trim(), SELECT_SEARCH_DEBOUNCE_MS);
  const paging = useListPaging(JSON.stringify([userId, offline, filter, sort, organization?.id]));
  const countText = useCountText();
  const { data, isLoading, isFetching, error } = useLicenses({
    scope,
    userId,
    offline,
    organizationId: organization?.id,
    filter: filter || undefined,
    ...paging.request,
    limit: paging.limit,
    sort: scope ? sort : undefined,
  });
  const label = searchLabel ?? t('licenses.search');
  return (
    <Stack>
      {data && header?.(data)}
      <Group justify="space-between" wrap="wrap">
        {/* Its basis puts the count under the fields on a phone, where beside them it squeezed the search field and cut its placeholder. */}
        <Group gap="sm" wrap="wrap" style={{ flex: '1 1 20rem' }}>
          <TextInput
            aria-label={label}
            placeholder={label}
            leftSection={<IconSearch size={16} />}
            value={search}
            onChange={(event) => setSearch(event.currentTarget.value)}
            w={{ base: '100%', sm: 420 }}
            maxLength={LIST_FILTER_MAX_LENGTH}
          />
          {scope && (
            <Select
              aria-label={t('licenses.order')}
              data={ORDERS.map((value) => ({ value, label: t(`licenses.orders.${value}`) }))}
              value={sort}
              onChange={(value) => value && setSort(value as (typeof ORDERS)[number])}
              allowDeselect={false}
              w={{ base: '100%', sm: 240 }}
            />
          )}
          {organizationFilter && <OrganizationSelect label={undefined} aria-label={t('organizations.filter')} value={organization} onChange={setOrganization} w={{ base: '100%', sm: 240 }} />}
        </Group>
        <Text size="sm" c="dimmed" aria-live="polite">
          {countText('licenses.totalCount', data)}
        </Text>
      </Group>
      <LoadError error={error} />
      {isLoading && <Loader />}
      {data && data.items.length === 0 && <Text c="dimmed">{filter ? t('licenses.noMatch') : (emptyText ?? (offline ? t('licenses.noneOffline') : t('licenses.none')))}</Text>}
      {table ? (
        data && data.items.length > 0 && <LicenseTable items={data.items} busy={isFetching} />
      ) : (
        <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }}>
          {data?.items.map((license) => <LicenseCard key={license.id} license={license} showOwner={showOwner} />)}
        </SimpleGrid>
      )}
      <ListPager paging={paging} data={data} />
    </Stack>
  );
}
