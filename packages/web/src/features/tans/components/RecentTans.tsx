import { Badge, Button, CopyButton, Group, Paper, Table, Text, Title } from '@mantine/core';
import { IconCheck, IconCopy, IconDownload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { COPIED_LABEL_MS } from '@lm/contract';
import { formatTanCode } from '@lm/contract/tan';
import type { TanItem } from '../api/tans.ts';
import { downloadText } from '../../../lib/download.ts';
import { tansCsv } from '../form.ts';
import { formatDate } from '../../../lib/format.ts';

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
      {/* Rows hold no button: the region itself takes the focus, so that a keyboard scrolls it on a phone. */}
      <Table.ScrollContainer minWidth={560} scrollAreaProps={{ viewportProps: { tabIndex: 0, 'aria-labelledby': 'recent-tans-title' } }}>
        <Table striped highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('tans.code')}</Table.Th>
              <Table.Th>{t('tans.product')}</Table.Th>
              <Table.Th>{t('tans.licenseCount')}</Table.Th>
              <Table.Th>{t('tans.freeUpdatesUntil')}</Table.Th>
              <Table.Th>{t('tans.tags')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tans.slice(0, SHOWN).map((tan) => (
              <Table.Tr key={tan.id}>
                <Table.Td ff="monospace" data-testid="recent-tan-code">
                  {formatTanCode(tan.code)}
                </Table.Td>
                <Table.Td>{tan.productName}</Table.Td>
                <Table.Td>{tan.licenseCount}</Table.Td>
                <Table.Td>{tan.freeUpdatesUntil ? formatDate(tan.freeUpdatesUntil) : '–'}</Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {tan.tags.map((tag) => (
                      <Badge key={tag} variant="light" size="sm" tt="none">
                        {tag}
                      </Badge>
                    ))}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {tans.length > SHOWN && (
        <Text size="sm" c="dimmed" mt="xs">
          {t('tans.moreInCsv', { count: tans.length - SHOWN })}
        </Text>
      )}
    </Paper>
  );
}
