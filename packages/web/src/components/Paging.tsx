import { Pagination, type PaginationProps } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** Page buttons with names a screen reader can say (Mantine's arrows and numbers have none). */
export function Paging(props: PaginationProps) {
  const { t } = useTranslation();
  const names = { first: t('common.firstPage'), previous: t('common.previousPage'), next: t('common.nextPage'), last: t('common.lastPage') };
  return (
    <nav aria-label={t('common.pages')}>
      <Pagination getControlProps={(control) => ({ 'aria-label': names[control] })} getItemProps={(page) => ({ 'aria-label': t('common.page', { page }) })} {...props} />
    </nav>
  );
}
