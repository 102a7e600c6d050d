import { Alert, Anchor, Button, CopyButton, Group, Stack, Text, TextInput } from '@mantine/core';
import { IconCheck, IconCopy, IconDownload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { COPIED_LABEL_MS } from '@lm/contract';
import type { AnyLicLink } from '@lm/contract/anylic';
import { formatDate } from '../../lib/format.ts';

/** The created link, with a copy button whose label reads 'copied' for 700 ms. */
export function AnyLicResult({ link, validUntil }: { link: AnyLicLink; validUntil: string }) {
  const { t } = useTranslation();
  // The link ends with its valid-until day in UTC (expiresAt is the next midnight, UTC).
  const lastDay = formatDate(validUntil);
  return (
    <Alert color="green" title={t('anylic.resultTitle')} role="status">
      <Stack gap="sm">
        <Group gap="xs" align="flex-end" wrap="nowrap">
          <TextInput label={t('anylic.link')} value={link.url} readOnly style={{ flex: 1 }} onFocus={(event) => event.currentTarget.select()} data-testid="anylic-url" />
          <CopyButton value={link.url} timeout={COPIED_LABEL_MS}>
            {({ copied, copy }) => (
              <Button color={copied ? 'teal' : 'blue'} leftSection={copied ? <IconCheck size={16} /> : <IconCopy size={16} />} onClick={copy} miw={120}>
                {copied ? t('anylic.copied') : t('anylic.copy')}
              </Button>
            )}
          </CopyButton>
        </Group>
        <Text size="sm">{t('anylic.resultHint', { date: lastDay })}</Text>
        <Anchor href={link.url} size="sm">
          <Group gap={4} component="span">
            <IconDownload size={14} />
            {t('anylic.downloadNow')}
          </Group>
        </Anchor>
      </Stack>
    </Alert>
  );
}
