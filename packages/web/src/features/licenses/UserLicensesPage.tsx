import { Anchor, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useParams } from 'react-router';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useLicenses } from './api/licenses.ts';
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
  const owner = useLicenses({ userId: id, offline: false, offset: 0, limit: 1 }).data?.items[0];
  if (!Number.isInteger(id) || id <= 0) return <Navigate to="/" replace />;
  if (showOffline !== undefined && !offline) return <Navigate to={`/users/${id}/licenses`} replace />;
  const title = owner ? t('licenses.userPageTitle', { name: owner.ownerName }) : t('pages.userLicenses');
  return (
    <Stack>
      <PageTitle title={title} />
      {owner && (
        <Text c="dimmed" mt={-12}>
          {owner.ownerEmail}
        </Text>
      )}
      {offline && <OfflineLicenseInstructions />}
      <Anchor component={Link} to={offline ? `/users/${id}/licenses` : `/users/${id}/licenses/offline`}>
        {offline ? t('licenses.allLicenses') : t('licenses.offlineLink')}
      </Anchor>
      <LicenseBrowser key={`${id}-${offline}`} userId={id} offline={offline} />
    </Stack>
  );
}
