import { Badge, Button, CopyButton, Group, Paper, Text, Title } from '@mantine/core';
import { IconCheck, IconCopy, IconDownload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { COPIED_LABEL_MS } from '@lm/contract';
import { formatTanCode } from '@lm/contract/tan';
import type { TanItem } from '../api/tans.ts';
import { downloadText } from '../../../lib/download.ts';
import { tansCsv } from '../form.ts';
import { formatDate } from '../../../lib/format.ts';
import { DataTable, type DataColumn } from '../../../components/data-table/DataTable.tsx';

/** Rows shown; the copy and the CSV always carry every new code. */
const SHOWN = 100;

/**
 * The recent-TANs table of /tans/create, with a copy and a CSV download of the codes: what was just
 * created, or else the latest TANs the caller may see (so that the codes of a batch made before a
 * reload or on another day are still at hand).
 */
export function RecentTans({ tans, justCreated }: { tans: TanItem[]; justCreated: boolean }) {
  const { t } = useTranslation();
  if (!tans.length) return null;
  const codes = tans.map((tan) => formatTanCode(tan.code)).join('\n');
  const columns: DataColumn<TanItem>[] = [
    {
      key: 'code',
      label: t('tans.code'),
      kind: 'fit',
      render: (tan) => (
        <Text span size="sm" ff="monospace" data-testid="recent-tan-code">
          {formatTanCode(tan.code)}
        </Text>
      ),
    },
    { key: 'product', label: t('tans.product'), render: (tan) => tan.productName },
    { key: 'licenseCount', label: t('tans.licenseCount'), kind: 'fit', render: (tan) => tan.licenseCount },
    { key: 'freeUpdatesUntil', label: t('tans.freeUpdatesUntil'), kind: 'fit', render: (tan) => (tan.freeUpdatesUntil ? formatDate(tan.freeUpdatesUntil) : '–') },
    {
      key: 'tags',
      label: t('tans.tags'),
      kind: 'wrap',
      render: (tan) => (
        <Group gap={4}>
          {tan.tags.map((tag) => (
            <Badge key={tag} variant="light" size="sm" tt="none">
              {tag}
            </Badge>
          ))}
        </Group>
      ),
    },
  ];
  return (
    <Paper withBorder p="md" radius="md" aria-labelledby="recent-tans-title">
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Title order={3} id="recent-tans-title">
          {justCreated ? t('tans.recentTitle', { count: tans.length }) : t('tans.latestTitle')}
        </Title>
        <Group gap="xs">
          <CopyButton value={codes} timeout={COPIED_LABEL_MS}>
            {({ copied, copy }) => (
              <Button variant="light" color={copied ? 'teal' : undefined} leftSection={copied ? <IconCheck size={16} /> : <IconCopy size={16} />} onClick={copy}>
                {copied ? t('tans.copied') : t('tans.copyCodes')}
              </Button>
            )}
          </CopyButton>
          <Button variant="light" leftSection={<IconDownload size={16} />} onClick={() => downloadText(`tans-${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}.csv`, tansCsv(tans))}>
            {t('tans.downloadCsv')}
          </Button>
        </Group>
      </Group>
      <DataTable id="recent-tans" columns={columns} items={tans.slice(0, SHOWN)} rowKey={(tan) => tan.id} label={justCreated ? t('tans.recentTitle', { count: tans.length }) : t('tans.latestTitle')} />
      {tans.length > SHOWN && (
        <Text size="sm" c="dimmed" mt="xs">
          {t('tans.moreInCsv', { count: tans.length - SHOWN })}
        </Text>
      )}
    </Paper>
  );
}
