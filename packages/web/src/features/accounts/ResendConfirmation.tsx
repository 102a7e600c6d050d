import { useState } from 'react';
import { Button, Group, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { email as emailSchema } from '@lm/contract/user';
import { showError, showSuccess } from '../../lib/notify.ts';
import { accountsApi } from './api.ts';

/**
 * Sends the confirmation mail again (spec section 2: the confirmation screen "can resend"). Without
 * a known address (a link opened without it) the person types the address they registered with.
 */
export function ResendConfirmation({ email: knownEmail }: { email: string }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [typed, setTyped] = useState('');
  const [typedError, setTypedError] = useState<string | null>(null);
  const email = knownEmail || typed.trim();
  const resend = async () => {
    if (!knownEmail && !emailSchema.safeParse(email).success) {
      setTypedError(t('accounts.confirm.emailNeeded'));
      return;
    }
    setBusy(true);
    try {
      await accountsApi.resendConfirmation(email);
      showSuccess(t('accounts.confirm.resent', { email }));
    } catch (error) {
      showError(error, 'accounts.confirm.resendFailed');
    } finally {
      setBusy(false);
    }
  };
  const button = (
    <Button variant="light" onClick={() => void resend()} loading={busy} data-testid="resend-confirmation">
      {t('accounts.confirm.resend')}
    </Button>
  );
  if (knownEmail) return button;
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void resend();
      }}
      noValidate
    >
      <Group align="flex-end">
        <TextInput
          label={t('accounts.confirm.registeredEmail')}
          type="email"
          autoComplete="email"
          value={typed}
          onChange={(event) => {
            setTyped(event.currentTarget.value);
            setTypedError(null);
          }}
          error={typedError}
          style={{ flex: 1, minWidth: 220 }}
        />
        {button}
      </Group>
    </form>
  );
}
