import { Anchor, Badge, Loader, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ListResult } from '@lm/contract';
import { formatTanCode } from '@lm/contract/tan';
import { api } from '../../../lib/api.ts';
import type { TanItem } from '../api/tans.ts';
import { formatDateTime } from '../../../lib/format.ts';
import { Dialog } from '../../../components/Dialog.tsx';
import { DataTable, type DataColumn } from '../../../components/data-table/DataTable.tsx';
import { LicenseTimeline } from '../../../components/LicenseTimeline.tsx';

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
  const columns: DataColumn<ActivatedLicense>[] = [
    {
      key: 'owner',
      label: t('tans.owner'),
      text: (license) => `${license.ownerName} ${license.ownerEmail}`,
      render: (license) => (
        <>
          <Anchor component={Link} to={`/users/${license.ownerId}/licenses`} onClick={onClose} size="sm">
            {license.ownerName}
          </Anchor>
          <Text size="xs" c="dimmed">
            {license.ownerEmail}
          </Text>
        </>
      ),
    },
    {
      key: 'machine',
      label: t('tans.machine'),
      render: (license) => (
        <Text span size="sm" ff="monospace">
          {license.machineId ?? '–'}
        </Text>
      ),
    },
    { key: 'activatedAt', label: t('tans.activatedAt'), kind: 'fit', render: (license) => formatDateTime(license.createdAt) },
    ...(floating
      ? [
          {
            key: 'seat',
            label: t('licenses.seat'),
            kind: 'fit' as const,
            render: (license: ActivatedLicense) => (
              <span data-testid="tan-license-seat">
                <SeatCell seat={license.seat} />
              </span>
            ),
          },
        ]
      : []),
  ];
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
        <DataTable id="tan-licenses" columns={columns} items={data.items} rowKey={(license) => license.id} />
      )}
      <Title order={4} size="h5" mt="md" mb="xs">
        {t('licenseEvents.timeline')}
      </Title>
      <LicenseTimeline tanId={tan.id} />
    </Dialog>
  );
}
