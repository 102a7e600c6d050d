import { useState } from 'react';
import { Alert, Button, Code, Group, Paper, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { normalizeUserCode } from '@lm/contract/organization';
import { LoadError } from '../../components/LoadError.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { showError } from '../../lib/notify.ts';
import { useDecideDevice, useDevicePending } from './api.ts';

/** `/device`: a desktop program's sign-in (RFC 8628): the code typed or prefilled, product and machine shown, approve or deny. */
export default function DevicePage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const [typed, setTyped] = useState(params.get('code') ?? '');
  const [code, setCode] = useState<string | null>(params.get('code') ? normalizeUserCode(params.get('code')!) : null);
  const pending = useDevicePending(code);
  const decide = useDecideDevice();
  const [outcome, setOutcome] = useState<'approved' | 'denied' | null>(null);
  const choose = (approve: boolean) =>
    decide.mutateAsync({ userCode: code!, approve }).then(
      () => setOutcome(approve ? 'approved' : 'denied'),
      (error: unknown) => showError(error, 'organizations.failed'),
    );

  return (
    <Stack maw={560}>
      <PageTitle title={t('device.title')} />
      <Paper withBorder p="lg" radius="md">
        {outcome ? (
          <Alert color={outcome === 'approved' ? 'green' : 'gray'} data-testid="device-outcome">
            {t(outcome === 'approved' ? 'device.approved' : 'device.denied')}
          </Alert>
        ) : (
          <Stack>
            <form
              onSubmit={(event) => {
                event.preventDefault();
                setCode(normalizeUserCode(typed));
              }}
            >
              <Group align="end">
                <TextInput label={t('device.code')} description={t('device.codeHint')} value={typed} onChange={(event) => setTyped(event.currentTarget.value)} ff="monospace" />
                <Button type="submit" variant="light">
                  {t('device.show')}
                </Button>
              </Group>
            </form>
            {pending.isError && <LoadError error={pending.error} />}
            {pending.data && (
              <Stack data-testid="device-pending">
                <Text>{t('device.question', { product: pending.data.productName })}</Text>
                <Text size="sm">
                  {t('device.machine')} <Code>{pending.data.machineId}</Code>
                </Text>
                <Group>
                  <Button data-testid="device-approve" loading={decide.isPending} onClick={() => void choose(true)}>
                    {t('device.approve')}
                  </Button>
                  <Button variant="default" color="red" data-testid="device-deny" onClick={() => void choose(false)}>
                    {t('device.deny')}
                  </Button>
                </Group>
              </Stack>
            )}
          </Stack>
        )}
      </Paper>
    </Stack>
  );
}
