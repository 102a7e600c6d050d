import { Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useAuth } from '../../lib/auth.ts';
import { LicenseBrowser } from './components/LicenseBrowser.tsx';

/**
 * `/licenses`: every license the staff member may see across accounts (administrators all,
 * distributors those of their TANs), for support: a customer reads out a machine id, a TAN or a name.
 */
export default function LicenseSearchPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  return (
    <Stack>
      <PageTitle title={t('pages.licenses')} />
      <LicenseBrowser scope="all" offline={false} showOwner table organizationFilter={user?.accessRole === 'ADMIN'} searchLabel={t('licenses.staffSearch')} emptyText={t('licenses.noneAtAll')} />
    </Stack>
  );
}
