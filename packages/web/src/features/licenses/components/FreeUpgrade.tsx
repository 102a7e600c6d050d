import { useEffect } from 'react';
import { Stack, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/notify.ts';
import { useUpgrade, type LicenseItem } from '../api/licenses.ts';

/** Opens the free-upgrade dialog (spec section 2) for a license that has an offer. */
export function useUpgradeOffer() {
  const { t } = useTranslation();
  const upgrade = useUpgrade();
  return (license: LicenseItem) => {
    if (!license.freeUpgrade) return;
    modals.openConfirmModal({
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

const offeredKey = (id: number) => `lm.freeUpgradeOffered.${id}`;

/** Offers the first available free upgrade once per browser session, unasked. */
export function FreeUpgradeOffer({ licenses }: { licenses: readonly LicenseItem[] }) {
  const offer = useUpgradeOffer();
  const candidate = licenses.find((license) => license.freeUpgrade && !sessionStorage.getItem(offeredKey(license.id)));
  useEffect(() => {
    if (!candidate) return;
    sessionStorage.setItem(offeredKey(candidate.id), '1');
    offer(candidate);
    // Offer once for this license; the list refreshing must not open it again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [candidate?.id]);
  return null;
}
