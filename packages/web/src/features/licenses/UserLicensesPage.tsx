import { Anchor, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useParams } from 'react-router';
import { LoadError } from '../../components/LoadError.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { ApiError } from '../../lib/api.ts';
import { useAbility } from '../../lib/auth.ts';
import { useAccount, useLicenses } from './api/licenses.ts';
import { LicenseBrowser } from './components/LicenseBrowser.tsx';
import { OfflineLicenseInstructions } from '../../components/OfflineLicenseInstructions.tsx';

/**
 * `/users/{userId}/licenses/{showOffline}`: another account's licenses. Administrators see and change
 * all of them (revoke, validity, delete); distributors see those from their TANs.
 */
export default function UserLicensesPage() {
  const { t } = useTranslation();
  const { userId, showOffline } = useParams();
  const id = Number(userId);
  const offline = showOffline === 'offline';
  const valid = Number.isInteger(id) && id > 0;
  // Whose licenses these are: the account itself where the reader may see accounts, else the owner named on a license.
  // view-list: only those who may read every account (a type-level 'view' also holds for one's own).
  const mayReadAccounts = useAbility().can('view-list', 'User');
  const accountQuery = useAccount(id, valid && mayReadAccounts);
  const account = accountQuery.data;
  const firstLicense = useLicenses({ userId: id, offline: false, offset: 0, limit: 1 }).data?.items[0];
  const owner = account ? { name: account.formattedName, email: account.email } : firstLicense ? { name: firstLicense.ownerName, email: firstLicense.ownerEmail } : null;
  if (!valid) return <Navigate to="/" replace />;
  if (showOffline !== undefined && !offline) return <Navigate to={`/users/${id}/licenses`} replace />;
  const title = owner ? t('licenses.userPageTitle', { name: owner.name }) : t('pages.userLicenses');
  // An account that does not exist (or no longer) is said so: its empty license list would read as an account without licenses.
  if (accountQuery.error) {
    const missing = accountQuery.error instanceof ApiError && accountQuery.error.status === 404;
    return (
      <Stack align="flex-start">
        <PageTitle title={missing ? t('notFound.title') : title} />
        {missing ? <Text>{t('notFound.text')}</Text> : <LoadError error={accountQuery.error} />}
        <Anchor component={Link} to="/users">
          {t('pages.users')}
        </Anchor>
      </Stack>
    );
  }
  return (
    <Stack>
      <PageTitle title={title} />
      {owner && (
        <Text c="dimmed" mt={-12} data-testid="license-owner-email">
          {owner.email}
        </Text>
      )}
      {offline && <OfflineLicenseInstructions />}
      <Anchor component={Link} to={offline ? `/users/${id}/licenses` : `/users/${id}/licenses/offline`}>
        {offline ? t('licenses.allLicenses') : t('licenses.offlineLink')}
      </Anchor>
      <LicenseBrowser key={`${id}-${offline}`} userId={id} offline={offline} emptyText={offline ? t('licenses.accountNoneOffline') : t('licenses.accountNone')} />
    </Stack>
  );
}
