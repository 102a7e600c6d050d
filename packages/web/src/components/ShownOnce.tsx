import { Alert, Button, CopyButton, Group, Stack, Text, TextInput } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { COPIED_LABEL_MS } from '@lm/contract';

/** A secret shown this once, with a copy button ('copied' for 700 ms) and a button to put it away. */
export function ShownOnce({ title, hint, label, value, onDone, testId }: { title: string; hint: string; label: string; value: string; onDone(): void; testId: string }) {
  const { t } = useTranslation();
  return (
    <Alert color="green" title={title} role="status" mb="md">
      <Stack gap="sm">
        <Text size="sm">{hint}</Text>
        <Group gap="xs" align="flex-end" wrap="wrap">
          <TextInput label={label} value={value} readOnly style={{ flex: '1 1 16rem' }} ff="monospace" onFocus={(event) => event.currentTarget.select()} data-testid={testId} />
          <CopyButton value={value} timeout={COPIED_LABEL_MS}>
            {({ copied, copy }) => (
              <Button color={copied ? 'teal' : 'blue'} leftSection={copied ? <IconCheck size={16} /> : <IconCopy size={16} />} onClick={copy} miw={120}>
                {copied ? t('anylic.copied') : t('anylic.copy')}
              </Button>
            )}
          </CopyButton>
        </Group>
        <Group justify="flex-end">
          <Button variant="default" size="xs" onClick={onDone}>
            {t('apiTokens.stored')}
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}
