import { useState } from 'react';
import { Button, Paper, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { PageTitle } from '../../components/PageTitle.tsx';
import { buildUrl } from '../../lib/api.ts';

/** `/export`: users who agreed to e-mails, as CSV (a plain download: the server streams it). */
export default function ExportPage() {
  const { t } = useTranslation();
  const [separator, setSeparator] = useState<'comma' | 'semicolon'>('comma');
  return (
    <Stack maw={720}>
      <PageTitle title={t('pages.export')} />
      <Paper withBorder p="lg" radius="md">
        <Stack>
          <Title order={3}>{t('users.export.consentTitle')}</Title>
          <Text size="sm">{t('users.export.consentText')}</Text>
          <div>
            <Text size="sm" fw={500} mb={4} id="separator-label">
              {t('users.export.separator')}
            </Text>
            <SegmentedControl
              aria-labelledby="separator-label"
              value={separator}
              onChange={(value) => setSeparator(value as 'comma' | 'semicolon')}
              data={[
                { value: 'comma', label: t('users.export.comma') },
                { value: 'semicolon', label: t('users.export.semicolon') },
              ]}
            />
          </div>
          <div>
            <Button component="a" href={buildUrl('/users/export/email-consent', { separator })} download leftSection={<IconDownload size={18} />} data-testid="export-consent">
              {t('users.export.download')}
            </Button>
          </div>
        </Stack>
      </Paper>
    </Stack>
  );
}
