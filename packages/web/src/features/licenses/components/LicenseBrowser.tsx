import { useState, type ReactNode } from 'react';
import { Group, Loader, Pagination, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { LIST_DEFAULT_LIMIT, SELECT_SEARCH_DEBOUNCE_MS, type ListResult } from '@lm/contract';
import { useLicenses, type LicenseItem } from '../api/licenses.ts';
import { LicenseCard } from './LicenseCard.tsx';

interface Props {
  userId?: number;
  offline: boolean;
  showOwner?: boolean;
  /** Above the cards, given the loaded page (notices, the upgrade offer). */
  header?: (page: ListResult<LicenseItem>) => ReactNode;
}

/** Licenses as cards, searchable by machine id and TAN, 50 a page. */
export function LicenseBrowser({ userId, offline, showOwner, header }: Props) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const [filter] = useDebouncedValue(search.trim(), SELECT_SEARCH_DEBOUNCE_MS);
  const [page, setPage] = useState(1);
  const { data, isLoading } = useLicenses({ userId, offline, filter: filter || undefined, offset: (page - 1) * LIST_DEFAULT_LIMIT, limit: LIST_DEFAULT_LIMIT });
  const pages = Math.max(1, Math.ceil((data?.totalCount ?? 0) / LIST_DEFAULT_LIMIT));
  return (
    <Stack>
      {data && header?.(data)}
      <Group justify="space-between" wrap="wrap">
        <TextInput
          aria-label={t('licenses.search')}
          placeholder={t('licenses.search')}
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(event) => {
            setSearch(event.currentTarget.value);
            setPage(1);
          }}
          w={{ base: '100%', sm: 340 }}
        />
        <Text size="sm" c="dimmed" aria-live="polite">
          {t('licenses.totalCount', { count: data?.totalCount ?? 0 })}
        </Text>
      </Group>
      {isLoading && <Loader />}
      {data && data.items.length === 0 && <Text c="dimmed">{filter ? t('licenses.noMatch') : offline ? t('licenses.noneOffline') : t('licenses.none')}</Text>}
      <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }}>
        {data?.items.map((license) => <LicenseCard key={license.id} license={license} showOwner={showOwner} />)}
      </SimpleGrid>
      {pages > 1 && <Pagination total={pages} value={page} onChange={setPage} />}
    </Stack>
  );
}
