import { Button, Group, Text } from '@mantine/core';
import { IconChevronLeft, IconChevronRight } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { ListPaging } from '../lib/list-paging.ts';
import { Paging } from './Paging.tsx';

interface Counted {
  totalCount: number;
  totalCountExact?: boolean;
  nextCursor?: string | null;
}

/**
 * "{{count}} TANs", or honestly "More than 10,000 TANs" where the server stopped counting (at the
 * totalCount it answers): `key` is the plural text of the count; `${key}More` says "more than {{limit}}".
 * Nothing while the list is loading or could not be loaded: no count is known then, not even 0.
 */
export function useCountText() {
  const { t, i18n } = useTranslation();
  return (key: string, data: Counted | undefined) => {
    if (!data) return '';
    return data.totalCountExact === false ? t(`${key}More`, { limit: data.totalCount.toLocaleString(i18n.language) }) : t(key, { count: data.totalCount });
  };
}

/** Numbered pages while every match was counted; previous and next (by cursor) beyond the count limit. */
export function ListPager({ paging, data }: { paging: ListPaging; data: Counted | undefined }) {
  const { t } = useTranslation();
  if (!data) return null;
  if (data.totalCountExact !== false) {
    const pages = Math.ceil(data.totalCount / paging.limit);
    return pages > 1 ? <Paging total={pages} value={paging.page} onChange={paging.setPage} /> : null;
  }
  return (
    <Group gap="xs" component="nav" aria-label={t('common.pages')} data-testid="list-pager">
      <Button variant="default" size="xs" leftSection={<IconChevronLeft size={14} />} disabled={paging.page === 1} onClick={paging.previous}>
        {t('catalogue.list.previousPage')}
      </Button>
      <Text size="sm" aria-live="polite">
        {t('catalogue.list.page', { page: paging.page })}
      </Text>
      <Button variant="default" size="xs" rightSection={<IconChevronRight size={14} />} disabled={!data.nextCursor} onClick={() => data.nextCursor && paging.next(data.nextCursor)}>
        {t('catalogue.list.nextPage')}
      </Button>
    </Group>
  );
}
