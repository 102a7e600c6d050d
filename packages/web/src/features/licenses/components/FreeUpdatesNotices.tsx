import { Alert, List, Stack } from '@mantine/core';
import { IconInfoCircle, IconClockExclamation } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { daysBetween, todayOf } from '@lm/contract/license';
import type { LicenseItem } from '../api/licenses.ts';
import { formatDate } from '../../../lib/format.ts';

/** Ended free updates are announced for this long; after that the card alone tells. */
const ENDED_NOTICE_DAYS = 90;

/** Free-updates-expiry notifications (spec section 2): ending within 30 days, and recently ended. */
export function FreeUpdatesNotices({ licenses }: { licenses: readonly LicenseItem[] }) {
  const { t } = useTranslation();
  const today = todayOf();
  const live = licenses.filter((license) => !license.revoked && license.upgradedToId === null && license.freeUpdatesUntil);
  const expiring = live.filter((license) => license.freeUpdatesState === 'expiring');
  const expired = live.filter((license) => license.freeUpdatesState === 'expired' && daysBetween(license.freeUpdatesUntil!, today) <= ENDED_NOTICE_DAYS);
  const item = (license: LicenseItem) => (
    <List.Item key={license.id}>
      {t('licenses.noticeItem', { product: license.productName, machine: license.machineId ?? '–', date: formatDate(license.freeUpdatesUntil!) })}
    </List.Item>
  );
  if (!expiring.length && !expired.length) return null;
  return (
    <Stack gap="xs">
      {expiring.length > 0 && (
        <Alert color="yellow" icon={<IconClockExclamation />} title={t('licenses.expiringTitle', { count: expiring.length })} role="status">
          <List size="sm">{expiring.map(item)}</List>
        </Alert>
      )}
      {expired.length > 0 && (
        <Alert color="gray" variant="light" icon={<IconInfoCircle />} title={t('licenses.expiredTitle', { count: expired.length })} role="status">
          <List size="sm">{expired.map(item)}</List>
        </Alert>
      )}
    </Stack>
  );
}
