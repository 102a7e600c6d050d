import { Button, Group, PasswordInput, Stack } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog.tsx';
import { errorText } from '../../lib/notify.ts';

/** Asks for the account's password before a change of its sign-in, and runs the change with it. */
export function PasswordPrompt(props: { title: string; confirmLabel: string; danger?: boolean; run: (password: string) => Promise<unknown>; onClose: () => void }) {
  const { t } = useTranslation();
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!password) return setError(t('validation.required'));
    setBusy(true);
    try {
      await props.run(password);
      props.onClose();
    } catch (failure) {
      setError(errorText(failure, 'security.failed'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <PasswordInput
            label={t('security.password.current')}
            autoComplete="current-password"
            required
            data-autofocus
            value={password}
            error={error}
            onChange={(event) => {
              setPassword(event.currentTarget.value);
              setError(null);
            }}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" color={props.danger ? 'red' : undefined} loading={busy}>
              {props.confirmLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Dialog>
  );
}
