import { useState } from 'react';
import { Anchor, Button, Group, Stack } from '@mantine/core';
import { IconClockPlus, IconKey } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useParams } from 'react-router';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useAbility, useAuth } from '../../lib/auth.ts';
import { ActivateDialog, TemporaryDialog } from './components/AddLicenseDialogs.tsx';
import { FreeUpdatesNotices } from './components/FreeUpdatesNotices.tsx';
import { FreeUpgradeNotice } from './components/FreeUpgrade.tsx';
import { LicenseBrowser } from './components/LicenseBrowser.tsx';
import { ReadyToActivate } from './components/ReadyToActivate.tsx';
import { OfflineLicenseInstructions } from '../../components/OfflineLicenseInstructions.tsx';

/** `/account/licenses/{showOffline}` (and `/` when logged in): my licenses, or with 'offline' the offline view. */
export default function MyLicensesPage() {
  const { t } = useTranslation();
  const { showOffline } = useParams();
  const { user } = useAuth();
  const ability = useAbility();
  const offline = showOffline === 'offline';
  const [dialog, setDialog] = useState<'activate' | 'temporary' | null>(null);
  const [tanToActivate, setTanToActivate] = useState('');
  const canCreate = user ? ability.can('create', 'License') : false;
  // The route's optional segment is the literal 'offline' (spec section 2); anything else is the plain list.
  if (showOffline !== undefined && !offline) return <Navigate to="/account/licenses" replace />;
  return (
    <Stack>
      <PageTitle
        title={offline ? t('licenses.offlinePageTitle') : t('pages.myLicenses')}
        actions={
          canCreate && (
            <Group gap="xs">
              <Button leftSection={<IconKey size={16} />} onClick={() => setDialog('activate')}>
                {t('licenses.activate')}
              </Button>
              <Button variant="light" leftSection={<IconClockPlus size={16} />} onClick={() => setDialog('temporary')}>
                {t('licenses.addTemporary')}
              </Button>
            </Group>
          )
        }
      />
      {offline ? (
        <>
          <OfflineLicenseInstructions />
          <Anchor component={Link} to="/account/offline">
            {t('nav.offlineActivation')}
          </Anchor>
          <Anchor component={Link} to="/account/licenses">
            {t('licenses.allLicenses')}
          </Anchor>
        </>
      ) : (
        <Anchor component={Link} to="/account/licenses/offline">
          {t('licenses.offlineLink')}
        </Anchor>
      )}
      {!offline && (
        <ReadyToActivate
          enabled={canCreate}
          onActivate={(code) => {
            setTanToActivate(code);
            setDialog('activate');
          }}
        />
      )}
      <LicenseBrowser
        key={offline ? 'offline' : 'all'}
        offline={offline}
        header={(page) => (
          <>
            <FreeUpdatesNotices licenses={page.items} />
            <FreeUpgradeNotice licenses={page.items} />
          </>
        )}
      />
      {dialog === 'activate' && (
        <ActivateDialog
          tan={tanToActivate}
          onClose={() => {
            setDialog(null);
            setTanToActivate('');
          }}
        />
      )}
      {dialog === 'temporary' && <TemporaryDialog onClose={() => setDialog(null)} />}
    </Stack>
  );
}
