import { Anchor, Badge, Loader, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ListResult } from '@lm/contract';
import { formatTanCode } from '@lm/contract/tan';
import { api } from '../../../lib/api.ts';
import type { TanItem } from '../api/tans.ts';
import { formatDateTime } from '../../../lib/format.ts';
import { Dialog } from '../../../components/Dialog.tsx';

interface ActivatedLicense {
  id: number;
  ownerId: number;
  ownerName: string;
  ownerEmail: string;
  machineId: string | null;
  productName: string;
  revoked: boolean;
  seat: { leasedUntil: string; borrowedUntil: string | null } | null;
  createdAt: Date;
}

/** A floating TAN's license: whether its machine holds a seat now, or has borrowed one until when. */
function SeatCell({ seat }: { seat: ActivatedLicense['seat'] }) {
  const { t } = useTranslation();
  if (!seat) return <Text span size="sm" c="dimmed">{t('licenses.seatFree')}</Text>;
  if (seat.borrowedUntil) return <Badge color="violet" variant="light" tt="none">{t('licenses.seatBorrowed', { date: formatDateTime(seat.borrowedUntil) })}</Badge>;
  return <Badge color="green" variant="light" tt="none">{t('tans.seatInUse')}</Badge>;
}

/** The licenses activated from one TAN; each owner links to that account's licenses; a floating TAN's say who holds a seat. */
export function TanLicensesModal({ tan, onClose }: { tan: TanItem; onClose: () => void }) {
  const { t } = useTranslation();
  const { data, isLoading } = useQuery({
    queryKey: ['licenses', 'of-tan', tan.id],
    queryFn: ({ signal }) => api<ListResult<ActivatedLicense>>('/licenses', { signal, query: { tanId: tan.id, limit: 1000 } }),
  });
  const floating = tan.policyType === 'FLOATING';
  return (
    <Dialog onClose={onClose} size="lg" title={t('tans.activationsTitle', { code: formatTanCode(tan.code) })}>
      {isLoading && <Loader size="sm" />}
      {data && data.items.length === 0 && <Text c="dimmed">{t('tans.noActivations')}</Text>}
      {data && floating && (
        <Text size="sm" mb="xs" data-testid="tan-seats-in-use">
          {t('tans.seatsInUse', { used: data.items.filter((license) => license.seat !== null).length, count: tan.licenseCount })}
        </Text>
      )}
      {data && data.items.length > 0 && (
        <Table.ScrollContainer minWidth={480}>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('tans.owner')}</Table.Th>
                <Table.Th>{t('tans.machine')}</Table.Th>
                <Table.Th>{t('tans.activatedAt')}</Table.Th>
                {floating && <Table.Th>{t('licenses.seat')}</Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.items.map((license) => (
                <Table.Tr key={license.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/users/${license.ownerId}/licenses`} onClick={onClose}>
                      {license.ownerName}
                    </Anchor>
                    <Text size="xs" c="dimmed">
                      {license.ownerEmail}
                    </Text>
                  </Table.Td>
                  <Table.Td ff="monospace">{license.machineId ?? '–'}</Table.Td>
                  <Table.Td>{formatDateTime(license.createdAt)}</Table.Td>
                  {floating && (
                    <Table.Td data-testid="tan-license-seat">
                      <SeatCell seat={license.seat} />
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Dialog>
  );
}
