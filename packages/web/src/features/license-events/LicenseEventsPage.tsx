import { useState } from 'react';
import { Anchor, Button, Paper, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconDownload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { SELECT_SEARCH_DEBOUNCE_MS } from '@lm/contract';
import { LICENSE_EVENT_TYPES, type LicenseEvent, type LicenseEventType } from '@lm/contract/license-events';
import { ListTable, type ListColumn } from '../../components/ListTable.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { formatDateTimeToSecond } from '../../lib/format.ts';
import { useListState } from '../../lib/list-state.ts';
import { licenseEventsCsvUrl, useLicenseEvents, type LicenseEventFilters } from './api.ts';
import { LicenseEventText } from '../../components/LicenseTimeline.tsx';

const positive = (text: string) => (/^[1-9][0-9]{0,9}$/.test(text.trim()) ? Number(text.trim()) : undefined);

/**
 * Tools → License events: refusals and their reasons, no seat, leases expired, clock tampering and
 * offline deactivations of every license staff may see, searchable and exported as CSV.
 */
export default function LicenseEventsPage() {
  const { t } = useTranslation();
  const state = useListState('-at', 50);
  const [type, setType] = useState<LicenseEventType | null>(null);
  const [typed, setTyped] = useState({ machineId: '', code: '', licenseId: '' });
  const [debounced] = useDebouncedValue(typed, SELECT_SEARCH_DEBOUNCE_MS);
  const filters: LicenseEventFilters = {
    type: type ?? undefined,
    machine: debounced.machineId.trim() || undefined,
    code: debounced.code.trim() || undefined,
    licenseId: positive(debounced.licenseId),
  };
  const { data, isFetching, error } = useLicenseEvents({ ...filters, sort: state.sort === 'at' ? 'at' : '-at', offset: state.offset, limit: state.limit });
  const edit = (field: keyof typeof typed) => (event: React.ChangeEvent<HTMLInputElement>) => {
    const value = event.currentTarget.value;
    setTyped((current) => ({ ...current, [field]: value }));
    state.setOffset(0);
  };

  const columns: ListColumn<LicenseEvent>[] = [
    { key: 'at', kind: 'fit', label: t('licenseEvents.at'), sortField: 'at', render: (event) => <Text size="sm">{formatDateTimeToSecond(event.at)}</Text> },
    { key: 'event', kind: 'wrap', label: t('licenseEvents.event'), render: (event) => <LicenseEventText event={event} /> },
    {
      key: 'license',
      kind: 'fit',
      label: t('licenseEvents.license'),
      render: (event) =>
        event.licenseId === null ? (
          '–'
        ) : (
          <Text size="sm" ff="monospace">
            #{event.licenseId}
          </Text>
        ),
    },
  ];

  return (
    <>
      <PageTitle title={t('licenseEvents.title')} />
      <Text size="sm" mb="md" maw={760}>
        {t('licenseEvents.intro')}
      </Text>
      <Paper withBorder p="md">
        <Stack>
          <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
            <Select
              label={t('licenseEvents.type')}
              placeholder={t('licenseEvents.allTypes')}
              clearable
              value={type}
              onChange={(value) => {
                setType(value as LicenseEventType | null);
                state.setOffset(0);
              }}
              data={LICENSE_EVENT_TYPES.map((value) => ({ value, label: t(`licenseEvents.types.${value}`) }))}
              data-testid="license-events-type"
            />
            <TextInput label={t('licenseEvents.machine')} value={typed.machineId} onChange={edit('machineId')} data-testid="license-events-machine" />
            <TextInput label={t('licenseEvents.code')} placeholder="ERR_NO_SEAT" value={typed.code} onChange={edit('code')} />
            <TextInput label={t('licenseEvents.licenseId')} inputMode="numeric" value={typed.licenseId} onChange={edit('licenseId')} />
          </SimpleGrid>
          <ListTable id="license-events" columns={columns} items={data?.items} totalCount={data?.totalCount} loading={isFetching} error={error} state={state} rowKey={(event) => event.id} emptyText={t('licenseEvents.none')} />
          <Anchor href={licenseEventsCsvUrl(filters)} download underline="never">
            <Button variant="light" leftSection={<IconDownload size={16} />} component="span">
              {t('licenseEvents.exportCsv')}
            </Button>
          </Anchor>
        </Stack>
      </Paper>
    </>
  );
}
