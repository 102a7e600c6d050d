import { useState } from 'react';
import { Alert, Button, Group, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { api, ApiError } from '../lib/api.ts';
import { useAuth } from '../lib/auth.ts';
import { forgetKeptChange, keptChange } from '../lib/kept-change.ts';
import { showError, showSuccess } from '../lib/notify.ts';

/**
 * A change that was refused because the session had ended (issue 47), offered again on the page it
 * was made on once the same account has signed in: "Send again" sends it as it was typed (with the
 * version it was made to, so a record changed meanwhile is answered with a conflict, never reverted).
 */
export function KeptChangeAlert() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const { pathname, search } = useLocation();
  const queryClient = useQueryClient();
  const [sending, setSending] = useState(false);
  const [, setDone] = useState(0);
  const kept = user ? keptChange() : null;
  if (!user || !kept) return null;
  const done = () => {
    forgetKeptChange();
    setDone((count) => count + 1);
  };
  // Another account signed in on this tab: the change is not theirs to send.
  if (kept.userId !== user.id) {
    forgetKeptChange();
    return null;
  }
  if (kept.page !== pathname + search) return null;

  const send = async () => {
    setSending(true);
    try {
      await api(kept.path, { method: kept.method, query: kept.query, body: kept.body, ifMatch: kept.ifMatch });
      done();
      showSuccess(t('keptChange.saved'));
      await queryClient.invalidateQueries();
    } catch (error) {
      // Signed out again: kept for the next sign-in. Anything else (a conflict, refused input) is said and let go.
      if (!(error instanceof ApiError && error.status === 401)) {
        showError(error, 'keptChange.failed');
        done();
      }
    } finally {
      setSending(false);
    }
  };

  return (
    <Alert color="yellow" title={t('keptChange.title')} mb="md" role="alert" data-testid="kept-change">
      <Group justify="space-between">
        <Text size="sm">{t('keptChange.text')}</Text>
        <Group gap="xs">
          <Button size="xs" variant="default" onClick={done} disabled={sending}>
            {t('keptChange.discard')}
          </Button>
          <Button size="xs" onClick={() => void send()} loading={sending}>
            {t('keptChange.send')}
          </Button>
        </Group>
      </Group>
    </Alert>
  );
}
