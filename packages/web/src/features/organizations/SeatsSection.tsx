import { useState } from 'react';
import { Button, Group, Select, Stack, TextInput, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatTanCode } from '@lm/contract/tan';
import type { Organization, OrganizationLicense, OrganizationTan, Seat } from '@lm/contract/organization';
import { DataTable, type DataColumn } from '../../components/data-table/DataTable.tsx';
import { formatDateTime } from '../../lib/format.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { useAssignSeat, useClaimTan, useLicenses, useMembers, useSeats, useTans, useUnassignSeat } from './api.ts';

/** The organization's TANs and named-user seats (managers assign and unassign), and its licenses. */
export function SeatsSection({ organization, manages }: { organization: Organization; manages: boolean }) {
  const { t } = useTranslation();
  const seats = useSeats(organization.id);
  const tans = useTans(organization.id, manages);
  const members = useMembers(organization.id);
  const licenses = useLicenses(organization.id);
  const claim = useClaimTan(organization.id);
  const assign = useAssignSeat(organization.id);
  const unassign = useUnassignSeat(organization.id);
  const [code, setCode] = useState('');
  const [tanId, setTanId] = useState<string | null>(null);
  const [userId, setUserId] = useState<string | null>(null);
  const run = (work: Promise<unknown>, done: string) => work.then(() => showSuccess(done), (error: unknown) => showError(error, 'organizations.failed'));
  const seatTans = (tans.data?.items ?? []).filter((tan) => tan.seatMode === 'USER');
  const tanColumns: DataColumn<OrganizationTan>[] = [
    { key: 'code', label: 'TAN', kind: 'fit', render: (tan) => <Text span size="sm" ff="monospace">{formatTanCode(tan.code)}</Text> },
    { key: 'product', label: t('organizations.product'), render: (tan) => tan.productName },
    { key: 'inUse', label: t('organizations.inUse'), kind: 'fit', render: (tan) => t(tan.seatMode === 'USER' ? 'organizations.seatsUsed' : 'organizations.machinesUsed', { used: tan.used, count: tan.licenseCount }) },
  ];
  const seatColumns: DataColumn<Seat>[] = [
    { key: 'person', label: t('organizations.person'), render: (seat) => seat.userName },
    { key: 'product', label: t('organizations.product'), render: (seat) => seat.productName },
    { key: 'assignedAt', label: t('organizations.assignedAt'), kind: 'fit', render: (seat) => formatDateTime(seat.assignedAt) },
    ...(manages
      ? [
          {
            key: 'actions',
            label: t('common.actions'),
            render: (seat: Seat) => (
              <Button size="compact-sm" variant="subtle" color="red" onClick={() => void run(unassign.mutateAsync(seat.id), t('organizations.unassigned'))}>
                {t('organizations.unassign')}
              </Button>
            ),
          },
        ]
      : []),
  ];
  const licenseColumns: DataColumn<OrganizationLicense>[] = [
    { key: 'product', label: t('licenses.product'), render: (license) => license.productName },
    { key: 'machine', label: t('licenses.machineId'), render: (license) => <Text span size="sm" ff="monospace">{license.machineId ?? ''}</Text>, text: (license) => license.machineId ?? '' },
    { key: 'owner', label: t('licenses.owner'), render: (license) => license.ownerName },
    { key: 'state', label: t('licenses.state'), kind: 'fit', render: (license) => (license.revoked ? t('organizations.revoked') : '') },
  ];

  return (
    <Stack>
      {manages && (
        <>
          <DataTable id="organization-tans" testId="organization-tans" label={t('organizations.seats')} columns={tanColumns} items={tans.data?.items} rowKey={(tan) => tan.id} />
          <form
            data-testid="claim-form"
            onSubmit={(event) => {
              event.preventDefault();
              void run(claim.mutateAsync(code), t('organizations.claimed')).then(() => setCode(''));
            }}
          >
            <Group align="end" wrap="wrap">
              <TextInput label={t('organizations.claimTan')} value={code} onChange={(event) => setCode(event.currentTarget.value)} placeholder="xxxx-xxxx-xxxx" />
              <Button type="submit" loading={claim.isPending}>
                {t('organizations.claim')}
              </Button>
            </Group>
          </form>
          <form
            data-testid="assign-form"
            onSubmit={(event) => {
              event.preventDefault();
              if (tanId && userId) void run(assign.mutateAsync({ tanId: Number(tanId), userId: Number(userId) }), t('organizations.assigned'));
            }}
          >
            <Group align="end" wrap="wrap">
              <Select label={t('organizations.seatOf')} data={seatTans.map((tan) => ({ value: String(tan.id), label: `${tan.productName} (${formatTanCode(tan.code)})` }))} value={tanId} onChange={setTanId} miw={220} />
              <Select label={t('organizations.person')} data={(members.data?.items ?? []).map((member) => ({ value: String(member.userId), label: member.name }))} value={userId} onChange={setUserId} searchable miw={220} />
              <Button type="submit" loading={assign.isPending} disabled={!tanId || !userId}>
                {t('organizations.assign')}
              </Button>
            </Group>
          </form>
        </>
      )}
      <DataTable id="organization-seats" testId="seats" label={t('organizations.seats')} columns={seatColumns} items={seats.data?.items} rowKey={(seat) => seat.id} rowProps={() => ({ 'data-testid': 'seat-row' })} />
      <Text fw={500}>{t('organizations.licenses')}</Text>
      {licenses.data?.items.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('organizations.noLicenses')}
        </Text>
      ) : (
        <DataTable id="organization-licenses" testId="organization-licenses" label={t('organizations.licenses')} columns={licenseColumns} items={licenses.data?.items} rowKey={(license) => license.id} />
      )}
    </Stack>
  );
}
