import { useState } from 'react';
import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { IconGift } from '@tabler/icons-react';
import { openConfirmModal } from '../../../components/modals.tsx';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/notify.ts';
import { useUpgrade, type LicenseItem } from '../api/licenses.ts';

/** Opens the free-upgrade dialog (spec section 2) for a license that has an offer. */
export function useUpgradeOffer() {
  const { t } = useTranslation();
  const upgrade = useUpgrade();
  return (license: LicenseItem) => {
    if (!license.freeUpgrade) return;
    openConfirmModal({
      title: t('licenses.freeUpgradeTitle'),
      children: (
        <Stack gap="xs">
          <Text size="sm">
            {t('licenses.freeUpgradeText', { product: license.productName, machine: license.machineId ?? '–', newProduct: license.freeUpgrade.productName })}
          </Text>
          <Text size="sm" c="dimmed">
            {t('licenses.freeUpgradeWarning')}
          </Text>
        </Stack>
      ),
      labels: { confirm: t('licenses.freeUpgradeConfirm'), cancel: t('licenses.later') },
      onConfirm: async () => {
        try {
          await upgrade.mutateAsync(license.id);
          showSuccess(t('licenses.upgradedDone', { product: license.freeUpgrade?.productName }));
        } catch (error) {
          showError(error, 'licenses.updateFailed');
        }
      },
    });
  };
}

const DISMISSED_KEY = 'lm.freeUpgradeNoticeDismissed';

function dismissedThisVisit(): boolean {
  try {
    return sessionStorage.getItem(DISMISSED_KEY) === '1';
  } catch {
    return false;
  }
}

/**
 * The free upgrades on offer, as one notice per visit: the customer opens an offer when they want
 * to (nothing opens by itself, and no dialogs pile up), or dismisses the notice for this visit.
 */
export function FreeUpgradeNotice({ licenses }: { licenses: readonly LicenseItem[] }) {
  const { t } = useTranslation();
  const offer = useUpgradeOffer();
  const [dismissed, setDismissed] = useState(dismissedThisVisit);
  const offered = licenses.filter((license) => license.freeUpgrade && !license.revoked && license.upgradedToId === null);
  if (dismissed || offered.length === 0) return null;
  const dismiss = () => {
    try {
      sessionStorage.setItem(DISMISSED_KEY, '1');
    } catch {
      // Private mode: the notice simply stays dismissed until the page is left.
    }
    setDismissed(true);
  };
  return (
    <Alert
      color="grape"
      icon={<IconGift />}
      title={t('licenses.freeUpgradeNoticeTitle', { count: offered.length })}
      withCloseButton
      closeButtonLabel={t('licenses.dismissForThisVisit')}
      onClose={dismiss}
      data-testid="free-upgrade-notice"
    >
      <Stack gap={6}>
        {offered.map((license) => (
          <Group key={license.id} gap="xs" wrap="wrap" justify="space-between">
            <Text size="sm">{t('licenses.freeUpgradeNoticeItem', { product: license.productName, machine: license.machineId ?? '–', newProduct: license.freeUpgrade!.productName })}</Text>
            <Button size="compact-sm" variant="light" color="grape" onClick={() => offer(license)}>
              {t('licenses.showOffer')}
            </Button>
          </Group>
        ))}
      </Stack>
    </Alert>
  );
}
