import { useState } from 'react';
import { Switch, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { User } from '@lm/contract';
import { useFieldAccess } from '../../components/FieldAccess.tsx';
import { showError, showSuccess } from '../../lib/notify.ts';
import { accountsApi, myAccountKey } from './api.ts';

/**
 * E-mail consent of the own account (my-account page) on and off (`POST`/`DELETE /users/{id}/consent/email`), at once.
 * It speaks to the person ("I agree…"); the administrators' user form labels the same field in the third person.
 */
export function EmailConsent({ user }: { user: User }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const access = useFieldAccess('update', 'User', { id: user.id })('optInEmail');
  const [busy, setBusy] = useState(false);

  const toggle = async (consent: boolean) => {
    setBusy(true);
    try {
      queryClient.setQueryData(myAccountKey(user.id), await accountsApi.setEmailConsent(user.id, consent));
      showSuccess(t(consent ? 'accounts.consent.on' : 'accounts.consent.off'));
    } catch {
      showError(null, 'accounts.settings.saveFailed');
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Switch
        checked={user.optInEmail}
        onChange={(event) => void toggle(event.currentTarget.checked)}
        disabled={busy || !access.allowed}
        label={t('accounts.consent.label')}
        data-testid="email-consent"
      />
      <Text size="sm" c="dimmed" mt="xs">
        {t('accounts.consent.hint')}
      </Text>
    </>
  );
}
