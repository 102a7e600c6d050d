import { Alert, Button, CopyButton, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { downloadText } from '../../lib/download.ts';
import { useProductName } from '../../lib/settings.ts';

/** Offers the codes as a text file, one per line, named after the product and account. */
function download(codes: string[], productName: string, email: string) {
  const text = [`${productName} – ${email}`, '', ...codes, ''].join('\n');
  downloadText(`recovery-codes-${email.replace(/[^a-z0-9.@-]/gi, '_')}.txt`, text, 'text/plain;charset=utf-8');
}

/** Recovery codes, shown once: each signs in once when the authenticator is lost. */
export function RecoveryCodes({ codes, email, onDone }: { codes: string[]; email: string; onDone: () => void }) {
  const { t } = useTranslation();
  const productName = useProductName();
  return (
    <Stack data-testid="recovery-codes">
      <Alert color="orange" title={t('security.recovery.title')}>
        {t('security.recovery.explain', { count: codes.length })}
      </Alert>
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs" component="ol" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {codes.map((code) => (
          <Text component="li" key={code} ff="monospace" size="lg" data-testid="recovery-code">
            {code}
          </Text>
        ))}
      </SimpleGrid>
      <Group>
        <CopyButton value={codes.join('\n')}>
          {({ copied, copy }) => (
            <Button variant="light" onClick={copy}>
              {copied ? t('security.copied') : t('security.recovery.copy')}
            </Button>
          )}
        </CopyButton>
        <Button variant="light" onClick={() => download(codes, productName, email)}>
          {t('security.recovery.download')}
        </Button>
        <Button onClick={onDone} data-testid="recovery-codes-done">
          {t('security.recovery.done')}
        </Button>
      </Group>
    </Stack>
  );
}
