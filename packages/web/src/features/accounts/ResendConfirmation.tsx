import { useState } from 'react';
import { Button } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../lib/notify.ts';
import { accountsApi } from './api.ts';

/** Sends the confirmation mail again (spec section 2: the confirmation screen "can resend"). */
export function ResendConfirmation({ email }: { email: string }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const resend = async () => {
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
  return (
    <Button variant="light" onClick={() => void resend()} loading={busy} disabled={!email} data-testid="resend-confirmation">
      {t('accounts.confirm.resend')}
    </Button>
  );
}
