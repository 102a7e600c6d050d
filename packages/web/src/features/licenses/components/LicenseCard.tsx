import { useState, type ReactNode } from 'react';
import { ActionIcon, Alert, Badge, Button, Card, Group, Popover, Stack, Table, Text, Title } from '@mantine/core';
import { openConfirmModal } from '../../../components/modals.tsx';
import { IconArrowsExchange, IconCalendarPlus, IconDeviceDesktop, IconDownload, IconEdit, IconGift, IconHistory, IconInfoCircle, IconListCheck, IconPackage, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { todayOf } from '@lm/contract/license';
import { formatTanCode } from '@lm/contract/tan';
import { ChangeLogLink } from '../../../components/ChangeLogLink.tsx';
import { useAbility, useAuth } from '../../../lib/auth.ts';
import { Link } from 'react-router';
import { showError, showSuccess } from '../../../lib/notify.ts';
import { licenseFileUrl, useDelete, type LicenseItem } from '../api/licenses.ts';
import { currentLocale } from '../../../lib/i18n.ts';
import { formatDate, formatDateTime } from '../../../lib/format.ts';
import { hasEnded, lastValidDay, licenseSubject, policyName } from '../format.ts';
import { AdminEditDialog, ChangeMachineDialog, ExtendDialog, MoveDialog } from './LicenseDialogs.tsx';
import { useUpgradeOffer } from './FreeUpgrade.tsx';
import { LicenseTimelineDialog } from '../../../components/LicenseTimeline.tsx';

import { LicenseEntitlementsDialog } from '../../../components/LicenseEntitlementsDialog.tsx';

type Dialog = 'extend' | 'machine' | 'move' | 'edit' | 'events' | 'entitlements' | null;

function FreeUpdatesInfo({ license }: { license: LicenseItem }) {
  const { t } = useTranslation();
  const date = license.freeUpdatesUntil ? formatDate(license.freeUpdatesUntil) : '';
  const color = { none: 'gray', active: 'green', expiring: 'yellow', expired: 'red' }[license.freeUpdatesState];
  return (
    <Group gap={4} wrap="nowrap" align="center">
      {/* Wraps instead of being cut off: "Se terminent le 1 déc. 2025" does not fit a phone's badge. */}
      <Badge color={color} variant="light" tt="none" h="auto" py={2} styles={{ label: { whiteSpace: 'normal' } }} data-testid="license-free-updates">
        {t(`licenses.freeUpdates.${license.freeUpdatesState}`, { date })}
      </Badge>
      {/* The text takes the focus (and gives it back): there Escape closes it, as it does a dialog. */}
      <Popover width={280} position="top" withArrow shadow="md" trapFocus returnFocus>
        <Popover.Target>
          <ActionIcon variant="subtle" size="sm" aria-label={t('licenses.freeUpdatesInfo')}>
            <IconInfoCircle size={16} />
          </ActionIcon>
        </Popover.Target>
        <Popover.Dropdown tabIndex={-1} data-autofocus>
          <Text size="sm">{license.freeUpdatesUntil ? t('licenses.freeUpdatesExplained', { date }) : t('licenses.noFreeUpdatesExplained')}</Text>
        </Popover.Dropdown>
      </Popover>
    </Group>
  );
}

/** A floating license's seat: held now by its machine, borrowed for offline use until a date, or free. */
function SeatInfo({ seat }: { seat: LicenseItem['seat'] }) {
  const { t } = useTranslation();
  if (!seat) return <Text span size="sm" c="dimmed">{t('licenses.seatFree')}</Text>;
  if (seat.borrowedUntil) return <Badge color="violet" variant="light" tt="none">{t('licenses.seatBorrowed', { date: formatDateTime(seat.borrowedUntil) })}</Badge>;
  return <Badge color="green" variant="light" tt="none">{t('licenses.seatInUse')}</Badge>;
}

/** One license (spec section 2): product, machine, validity, free updates, and the actions the rules allow. */
export function LicenseCard({ license, showOwner = false }: { license: LicenseItem; showOwner?: boolean }) {
  const { t } = useTranslation();
  const ability = useAbility();
  const { user } = useAuth();
  const remove = useDelete();
  const offerUpgrade = useUpgradeOffer();
  const [dialog, setDialog] = useState<Dialog>(null);
  const subject = licenseSubject(license);
  const today = todayOf();
  const live = !license.revoked && license.upgradedToId === null;
  const ended = hasEnded(license, today);
  // What the server would refuse to sign: no download link that only leads to an error.
  const downloadable = live && !license.suspended && !ended;
  const isTemporary = license.kind === 'TEMPORARY';
  const can = (action: 'update' | 'extend' | 'delete' | 'download' | 'create', field?: string) => ability.can(action, subject, field);

  const lastDay = lastValidDay(license);
  const validity = lastDay ? formatDate(lastDay) : license.permanent ? t('licenses.permanent') : t('licenses.unlimited');
  // A shop subscription's end is the license's when it comes first: said so, since a renewal moves it.
  // An end set by hand on the TAN is no subscription and is not described as one.
  const bySubscription = license.tanSubscription && lastDay !== null && lastDay === license.tanValidUntil;

  const confirmDelete = () =>
    openConfirmModal({
      title: t('licenses.deleteTitle'),
      children: <Text size="sm">{t('licenses.deleteText', { product: license.productName, machine: license.machineId ?? '–' })}</Text>,
      labels: { confirm: t('common.delete'), cancel: t('common.cancel') },
      confirmProps: { color: 'red' },
      onConfirm: async () => {
        try {
          await remove.mutateAsync(license.id);
          showSuccess(t('licenses.deleted'));
        } catch (error) {
          showError(error, 'licenses.updateFailed');
        }
      },
    });

  return (
    <Card withBorder shadow="sm" radius="md" padding="md" data-testid="license-card" aria-label={`${license.productName} ${license.machineId ?? ''}`}>
      <Stack gap="xs" h="100%">
        <Group justify="space-between" align="start" wrap="nowrap">
          <Title order={4}>{license.productName}</Title>
          <Group gap={4} justify="flex-end">
            {isTemporary && <Badge color="yellow">{t('licenses.temporary')}</Badge>}
            {license.revoked && <Badge color="red">{t('licenses.revoked')}</Badge>}
            {license.upgradedToId !== null && <Badge color="gray">{t('licenses.upgraded')}</Badge>}
            {license.suspended && !license.revoked && <Badge color="orange">{t('licenses.suspended')}</Badge>}
            {ended && !license.revoked && <Badge color="red" variant="outline">{t('licenses.ended')}</Badge>}
          </Group>
        </Group>
        {license.suspended && !license.revoked && (
          <Alert color="orange" variant="light" p="xs" data-testid="license-suspended">
            <Text size="sm">{t('licenses.suspendedNotice')}</Text>
          </Alert>
        )}
        <Table variant="vertical" withRowBorders={false} verticalSpacing={2} fz="sm">
          <Table.Tbody>
            <Table.Tr>
              <Table.Th w={130}>{t('licenses.machine')}</Table.Th>
              <Table.Td ff="monospace" style={{ wordBreak: 'break-all' }} data-testid="license-machine">
                {license.machineId ?? t('licenses.noMachine')}
              </Table.Td>
            </Table.Tr>
            {license.tanCode && (
              <Table.Tr>
                <Table.Th>{t('licenses.tan')}</Table.Th>
                <Table.Td ff="monospace">{formatTanCode(license.tanCode)}</Table.Td>
              </Table.Tr>
            )}
            <Table.Tr>
              <Table.Th>{t('licenses.validUntil')}</Table.Th>
              <Table.Td data-testid="license-valid-until">
                {validity}
                {bySubscription && (
                  <Text span size="xs" c="dimmed" ml={6} data-testid="license-subscription">
                    {t('licenses.bySubscription')}
                  </Text>
                )}
              </Table.Td>
            </Table.Tr>
            {license.licensePolicyType === 'FLOATING' && live && (
              <Table.Tr>
                <Table.Th>{t('licenses.seat')}</Table.Th>
                <Table.Td data-testid="license-seat">
                  <SeatInfo seat={license.seat} />
                </Table.Td>
              </Table.Tr>
            )}
            <Table.Tr>
              <Table.Th>{t('licenses.policy')}</Table.Th>
              <Table.Td>{policyName(license, currentLocale(), t)}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>{t('licenses.freeUpdatesLabel')}</Table.Th>
              <Table.Td>
                <FreeUpdatesInfo license={license} />
              </Table.Td>
            </Table.Tr>
            {showOwner && (
              <Table.Tr>
                <Table.Th>{t('licenses.owner')}</Table.Th>
                <Table.Td>
                  {license.ownerName} <Text span size="xs" c="dimmed">{license.ownerEmail}</Text>
                </Table.Td>
              </Table.Tr>
            )}
          </Table.Tbody>
        </Table>
        {license.freeUpgrade && can('create') && (
          <Button
            variant="light"
            color="grape"
            leftSection={<IconGift size={16} />}
            onClick={() => offerUpgrade(license)}
            // A long product name wraps on a phone instead of being cut off.
            h="auto"
            py={6}
            styles={{ label: { whiteSpace: 'normal', textAlign: 'start', lineHeight: 1.35 } }}
          >
            {t('licenses.freeUpgradeButton', { product: license.freeUpgrade.productName })}
          </Button>
        )}
        <Group gap="xs" mt="auto">
          {can('download') && (
            <Button.Group>
              <FileButton href={downloadable ? licenseFileUrl(license.id, 'lic') : null} title={downloadable ? undefined : t('licenses.noDownload')} leftSection={<IconDownload size={14} />}>
                {t('licenses.download')}
              </FileButton>
              <FileButton href={downloadable ? licenseFileUrl(license.id, 'json') : null} title={downloadable ? t('licenses.downloadJson') : t('licenses.noDownload')}>
                .json
              </FileButton>
            </Button.Group>
          )}
          {downloadable && license.ownerId === user?.id && (
            <Button size="xs" variant="light" component={Link} to={`/account/downloads?licenseId=${license.id}`} leftSection={<IconPackage size={14} />} data-testid="software-downloads">
              {t('releases.open')}
            </Button>
          )}
          {live && can('update', 'machineId') && (
            <Button size="xs" variant="light" leftSection={<IconDeviceDesktop size={14} />} onClick={() => setDialog('machine')}>
              {t('licenses.changeMachine')}
            </Button>
          )}
          {live && can('update', 'ownerId') && (
            <Button size="xs" variant="light" leftSection={<IconArrowsExchange size={14} />} onClick={() => setDialog('move')}>
              {t('licenses.move')}
            </Button>
          )}
          {live && isTemporary && !ended && can('extend') && (
            <Button size="xs" variant="light" leftSection={<IconCalendarPlus size={14} />} onClick={() => setDialog('extend')}>
              {t('licenses.extend')}
            </Button>
          )}
          {can('update', 'revoked') && (
            <Button size="xs" variant="light" color="orange" leftSection={<IconEdit size={14} />} onClick={() => setDialog('edit')}>
              {t('licenses.edit')}
            </Button>
          )}
          <Button size="xs" variant="light" leftSection={<IconListCheck size={14} />} onClick={() => setDialog('entitlements')} data-testid="license-entitlements-button">
            {t('entitlements.button')}
          </Button>
          {can('delete') && (
            <Button size="xs" variant="light" color="red" leftSection={<IconTrash size={14} />} onClick={confirmDelete}>
              {t('common.delete')}
            </Button>
          )}
          <Button size="xs" variant="subtle" leftSection={<IconHistory size={14} />} onClick={() => setDialog('events')} data-testid="license-events-open">
            {t('licenseEvents.open')}
          </Button>
          <ChangeLogLink model="License" recordId={license.id} inline />
        </Group>
      </Stack>
      {dialog === 'extend' && <ExtendDialog license={license} onClose={() => setDialog(null)} />}
      {dialog === 'machine' && <ChangeMachineDialog license={license} onClose={() => setDialog(null)} />}
      {dialog === 'move' && <MoveDialog license={license} onClose={() => setDialog(null)} />}
      {dialog === 'edit' && <AdminEditDialog license={license} onClose={() => setDialog(null)} />}
      {dialog === 'events' && <LicenseTimelineDialog licenseId={license.id} title={license.productName} onClose={() => setDialog(null)} />}
      {dialog === 'entitlements' && (
        <LicenseEntitlementsDialog licenseId={license.id} productName={license.productName} editable={can('update', 'entitlements')} onClose={() => setDialog(null)} />
      )}
    </Card>
  );
}

/**
 * A license file's download: a link while there is a file, else a disabled button. A link cannot be
 * disabled (`<a disabled>` was still a link to assistive technology, and read as 1.7:1 text).
 */
function FileButton({ href, title, leftSection, children }: { href: string | null; title?: string; leftSection?: ReactNode; children: ReactNode }) {
  const common = { size: 'xs', variant: 'light', title, leftSection } as const;
  return href ? (
    <Button component="a" href={href} download {...common}>
      {children}
    </Button>
  ) : (
    <Button disabled {...common}>
      {children}
    </Button>
  );
}
