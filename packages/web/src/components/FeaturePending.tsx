import { Alert, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { PageTitle } from './PageTitle.tsx';

/** A route whose screen a later release fills: it exists, is guarded and says so plainly. */
export function FeaturePending({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  return (
    <Stack>
      <PageTitle title={t(titleKey)} />
      <Alert color="gray" title={t('pending.title')}>
        {t('pending.text')}
      </Alert>
    </Stack>
  );
}
