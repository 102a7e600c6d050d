import { useState, type ReactNode } from 'react';
import { Badge, Group, Modal, Text } from '@mantine/core';
import { IconListDetails } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { todayOf } from '@lm/contract/license';
import { formatTanCode } from '@lm/contract/tan';
import { DataTable, type DataColumn } from '../../../components/data-table/DataTable.tsx';
import { RowAction } from '../../../components/RowAction.tsx';
import { currentLocale } from '../../../lib/i18n.ts';
import { formatDate } from '../../../lib/format.ts';
import type { LicenseItem } from '../api/licenses.ts';
import { hasEnded, lastValidDay, policyName } from '../format.ts';
import { LicenseCard } from './LicenseCard.tsx';

const FREE_UPDATES_COLORS = { none: 'gray', active: 'green', expiring: 'yellow', expired: 'red' } as const;

/**
 * A license's state as badges: temporary, revoked, upgraded, suspended, ended; none for a plainly live
 * one, whose cell then stays empty and whose phone card leaves the line out.
 */
function licenseStateBadges(license: LicenseItem, t: TFunction): ReactNode[] {
  const ended = hasEnded(license, todayOf());
  const badge = (label: string, color: string, variant?: 'outline') => (
    <Badge key={label} color={color} variant={variant} size="sm">
      {label}
    </Badge>
  );
  return [
    license.kind === 'TEMPORARY' && badge(t('licenses.temporary'), 'yellow'),
    license.revoked && badge(t('licenses.revoked'), 'red'),
    license.upgradedToId !== null && badge(t('licenses.upgraded'), 'gray'),
    license.suspended && !license.revoked && badge(t('licenses.suspended'), 'orange'),
    ended && !license.revoked && badge(t('licenses.ended'), 'red', 'outline'),
  ].filter(Boolean);
}

/**
 * The staff's license list (issue 38): a row a license, so that a support call finds it among many;
 * "Details" opens the license's card with every action the rules allow.
 */
export function LicenseTable({ items, busy }: { items: LicenseItem[] | undefined; busy: boolean }) {
  const { t } = useTranslation();
  const [shownId, setShownId] = useState<number | null>(null);
  const shown = items?.find((license) => license.id === shownId);
  const columns: DataColumn<LicenseItem>[] = [
    { key: 'product', label: t('licenses.product'), render: (license) => license.productName },
    // Nothing for a plainly live license: a phone's card then leaves the line out rather than show a bare label.
    {
      key: 'state',
      label: t('licenses.state'),
      kind: 'fit',
      render: (license) => {
        const badges = licenseStateBadges(license, t);
        return (
          badges.length > 0 && (
            <Group gap={4} wrap="nowrap">
              {badges}
            </Group>
          )
        );
      },
    },
    {
      key: 'machine',
      label: t('licenses.machine'),
      render: (license) => (
        <Text span size="sm" ff="monospace" data-testid="license-machine">
          {license.machineId ?? t('licenses.noMachine')}
        </Text>
      ),
    },
    {
      key: 'owner',
      label: t('licenses.owner'),
      text: (license) => `${license.ownerName} ${license.ownerEmail}`,
      render: (license) => (
        <>
          {license.ownerName}{' '}
          <Text span size="xs" c="dimmed">
            {license.ownerEmail}
          </Text>
        </>
      ),
    },
    {
      key: 'tan',
      label: t('licenses.tan'),
      kind: 'fit',
      render: (license) => (
        <Text span size="sm" ff="monospace">
          {license.tanCode ? formatTanCode(license.tanCode) : '–'}
        </Text>
      ),
    },
    {
      key: 'validUntil',
      label: t('licenses.validUntil'),
      kind: 'fit',
      render: (license) => {
        const last = lastValidDay(license);
        return last ? formatDate(last) : license.permanent ? t('licenses.permanent') : t('licenses.unlimited');
      },
    },
    { key: 'organization', label: t('organizations.column'), hiddenByDefault: true, render: (license) => license.organization?.name ?? '–' },
    { key: 'policy', label: t('licenses.policy'), hiddenByDefault: true, render: (license) => policyName(license, currentLocale(), t) },
    {
      key: 'freeUpdates',
      label: t('licenses.freeUpdatesLabel'),
      kind: 'fit',
      render: (license) => (
        <Badge color={FREE_UPDATES_COLORS[license.freeUpdatesState]} variant="light" size="sm" tt="none">
          {t(`licenses.freeUpdates.${license.freeUpdatesState}`, { date: license.freeUpdatesUntil ? formatDate(license.freeUpdatesUntil) : '' })}
        </Badge>
      ),
    },
    { key: 'createdAt', label: t('licenses.activatedOn'), kind: 'fit', render: (license) => formatDate(license.createdAt) },
    {
      key: 'actions',
      label: t('common.actions'),
      render: (license) => (
        <RowAction label={t('licenses.details')} subject={`${license.productName} ${license.machineId ?? ''}`.trim()} icon={<IconListDetails size={18} />} onClick={() => setShownId(license.id)} testId="license-details" />
      ),
    },
  ];
  return (
    <>
      <DataTable id="licenses" columns={columns} items={items} rowKey={(license) => license.id} rowProps={() => ({ 'data-testid': 'license-row' })} busy={busy} testId="license-table" />
      <Modal opened={shown !== undefined} onClose={() => setShownId(null)} title={shown ? `${shown.productName} · ${shown.machineId ?? t('licenses.noMachine')}` : ''} size="lg">
        {shown && <LicenseCard license={shown} showOwner />}
      </Modal>
    </>
  );
}
