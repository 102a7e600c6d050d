import { LoadingOverlay } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** Shown while a page or the session loads. */
export function BusyOverlay() {
  const { t } = useTranslation();
  return <LoadingOverlay visible zIndex={150} overlayProps={{ blur: 1 }} loaderProps={{ 'aria-label': t('common.loading') }} />;
}
