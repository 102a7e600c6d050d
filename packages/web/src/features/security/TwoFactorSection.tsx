import { Badge, Button, CopyButton, Group, Image, Loader, PinInput, Stack, Text } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { TwoFactorSetup } from '@lm/contract/two-factor';
import { useAuth } from '../../lib/auth.ts';
import { formatDate, formatNumber } from '../../lib/format.ts';
import { errorText, showError, showSuccess } from '../../lib/notify.ts';
import { useConfirmEnrolment, useDisableTwoFactor, useNewRecoveryCodes, useStartEnrolment, useTwoFactorStatus } from './api.ts';
import { PasswordPrompt } from './PasswordPrompt.tsx';
import { RecoveryCodes } from './RecoveryCodes.tsx';
import { LoadError } from '../../components/LoadError.tsx';

/** The secret as an authenticator app takes it typed in: groups of four. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

/** Scan or type the secret, then prove it with a current code. */
function Enrolment({ setup, onConfirmed }: { setup: TwoFactorSetup; onConfirmed: (codes: string[]) => void }) {
  const { t } = useTranslation();
  const confirm = useConfirmEnrolment();
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (code.length !== 6) return setError(t('security.twoFactor.codeLength'));
    try {
      onConfirmed((await confirm.mutateAsync(code)).recoveryCodes);
    } catch (failure) {
      setError(errorText(failure, 'security.failed'));
      setCode('');
    }
  };
  return (
    <Stack data-testid="two-factor-enrolment">
      <Text>{t('security.twoFactor.scan')}</Text>
      <Image
        src={`data:image/svg+xml;base64,${btoa(setup.qrCodeSvg)}`}
        alt={t('security.twoFactor.qrAlt')}
        w={200}
        h={200}
        style={{ background: 'white' }}
      />
      <Text size="sm">{t('security.twoFactor.typeKey')}</Text>
      <Group gap="xs">
        <Text ff="monospace" size="lg" data-testid="two-factor-secret" data-secret={setup.secret}>
          {grouped(setup.secret)}
        </Text>
        <CopyButton value={setup.secret}>
          {({ copied, copy }) => (
            <Button size="xs" variant="light" onClick={copy}>
              {copied ? t('security.copied') : t('security.twoFactor.copyKey')}
            </Button>
          )}
        </CopyButton>
      </Group>
      <form onSubmit={submit} noValidate>
        <Stack gap="xs">
          <Text component="label" htmlFor="two-factor-code" fw={500}>
            {t('security.twoFactor.enterCode')}
          </Text>
          <PinInput
            id="two-factor-code"
            length={6}
            type="number"
            oneTimeCode
            value={code}
            onChange={(value) => {
              setCode(value);
              setError(null);
            }}
            error={Boolean(error)}
            aria-label={t('security.twoFactor.enterCode')}
            data-testid="two-factor-code"
          />
          {error && (
            <Text c="red.8" size="sm" role="alert">
              {error}
            </Text>
          )}
          <Group>
            <Button type="submit" loading={confirm.isPending} data-testid="two-factor-confirm">
              {t('security.twoFactor.turnOn')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}

/** Two-factor sign-in: set it up, see its state, new recovery codes, turn it off. */
export function TwoFactorSection() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const status = useTwoFactorStatus();
  const start = useStartEnrolment();
  const disable = useDisableTwoFactor();
  const renew = useNewRecoveryCodes();
  const [setup, setSetup] = useState<TwoFactorSetup | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [prompt, setPrompt] = useState<'disable' | 'renew' | null>(null);

  if (codes) return <RecoveryCodes codes={codes} email={user?.username ?? ''} onDone={() => setCodes(null)} />;
  if (status.isPending) return <Loader aria-label={t('common.loading')} />;
  if (status.isError) return <LoadError error={status.error} />;
  const { enabled, enabledAt, recoveryCodesLeft, required } = status.data;

  if (!enabled) {
    return (
      <Stack>
        <Text>{t('security.twoFactor.explain')}</Text>
        {setup ? (
          <Enrolment
            setup={setup}
            onConfirmed={(recoveryCodes) => {
              setSetup(null);
              setCodes(recoveryCodes);
              showSuccess(t('security.twoFactor.turnedOn'));
            }}
          />
        ) : (
          <Group>
            <Button
              loading={start.isPending}
              data-testid="two-factor-start"
              onClick={() => start.mutateAsync().then(setSetup, (error: unknown) => showError(error, 'security.failed'))}
            >
              {t('security.twoFactor.setUp')}
            </Button>
          </Group>
        )}
      </Stack>
    );
  }

  return (
    <Stack>
      <Group gap="xs">
        <Badge color="green" data-testid="two-factor-on">
          {t('security.twoFactor.on')}
        </Badge>
        <Text size="sm">{t('security.twoFactor.onSince', { date: formatDate(enabledAt) })}</Text>
      </Group>
      <Text size="sm" c={recoveryCodesLeft < 3 ? 'red.8' : undefined} data-testid="recovery-codes-left">
        {t('security.recovery.left', { count: recoveryCodesLeft, formatted: formatNumber(recoveryCodesLeft) })}
      </Text>
      {required && <Text size="sm">{t('security.twoFactor.requiredHint')}</Text>}
      <Group>
        <Button variant="light" onClick={() => setPrompt('renew')}>
          {t('security.recovery.renew')}
        </Button>
        <Button variant="light" color="red" onClick={() => setPrompt('disable')} data-testid="two-factor-disable">
          {t('security.twoFactor.turnOff')}
        </Button>
      </Group>
      {prompt === 'renew' && (
        <PasswordPrompt
          title={t('security.recovery.renew')}
          confirmLabel={t('security.recovery.renewConfirm')}
          run={async (password) => setCodes((await renew.mutateAsync(password)).recoveryCodes)}
          onClose={() => setPrompt(null)}
        />
      )}
      {prompt === 'disable' && (
        <PasswordPrompt
          title={t('security.twoFactor.turnOff')}
          confirmLabel={t('security.twoFactor.turnOffConfirm')}
          danger
          run={async (password) => {
            await disable.mutateAsync(password);
            showSuccess(t('security.twoFactor.turnedOff'));
          }}
          onClose={() => setPrompt(null)}
        />
      )}
    </Stack>
  );
}
