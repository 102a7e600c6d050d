import { useState } from 'react';
import { Button, Group, Select, Stack, Table, TextInput, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatTanCode } from '@lm/contract/tan';
import type { Organization } from '@lm/contract/organization';
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

  return (
    <Stack>
      {manages && (
        <>
          <Table.ScrollContainer minWidth={420} scrollAreaProps={{ viewportProps: { tabIndex: 0 } }}>
            <Table data-testid="organization-tans">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>TAN</Table.Th>
                  <Table.Th>{t('organizations.product')}</Table.Th>
                  <Table.Th>{t('organizations.inUse')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {(tans.data?.items ?? []).map((tan) => (
                  <Table.Tr key={tan.id}>
                    <Table.Td ff="monospace">{formatTanCode(tan.code)}</Table.Td>
                    <Table.Td>{tan.productName}</Table.Td>
                    <Table.Td>{t(tan.seatMode === 'USER' ? 'organizations.seatsUsed' : 'organizations.machinesUsed', { used: tan.used, count: tan.licenseCount })}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
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
      <Table.ScrollContainer minWidth={420} scrollAreaProps={{ viewportProps: { tabIndex: 0 } }}>
        <Table data-testid="seats">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('organizations.person')}</Table.Th>
              <Table.Th>{t('organizations.product')}</Table.Th>
              <Table.Th>{t('organizations.assignedAt')}</Table.Th>
              {manages && <Table.Th>{t('common.actions')}</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(seats.data?.items ?? []).map((seat) => (
              <Table.Tr key={seat.id} data-testid="seat-row">
                <Table.Td>{seat.userName}</Table.Td>
                <Table.Td>{seat.productName}</Table.Td>
                <Table.Td>{formatDateTime(seat.assignedAt)}</Table.Td>
                {manages && (
                  <Table.Td>
                    <Button size="compact-sm" variant="subtle" color="red" onClick={() => void run(unassign.mutateAsync(seat.id), t('organizations.unassigned'))}>
                      {t('organizations.unassign')}
                    </Button>
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Text fw={500}>{t('organizations.licenses')}</Text>
      <Table.ScrollContainer minWidth={420} scrollAreaProps={{ viewportProps: { tabIndex: 0 } }}>
        <Table data-testid="organization-licenses">
          <Table.Tbody>
            {(licenses.data?.items ?? []).map((license) => (
              <Table.Tr key={license.id}>
                <Table.Td>{license.productName}</Table.Td>
                <Table.Td ff="monospace">{license.machineId ?? ''}</Table.Td>
                <Table.Td>{license.ownerName}</Table.Td>
                <Table.Td>{license.revoked ? t('organizations.revoked') : ''}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
