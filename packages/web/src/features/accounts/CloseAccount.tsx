import { useState } from 'react';
import { Alert, Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { User } from '@lm/contract';
import { showError } from '../../lib/notify.ts';
import { accountsApi, ACCOUNT_CLOSED_FLAG } from './api.ts';

/** Close account (spec section 2): two warnings, then the user repeats their e-mail address. */
export function CloseAccount({ user }: { user: User }) {
  const { t } = useTranslation();
  const [step, setStep] = useState<0 | 1 | 2>(0);
  const [repeated, setRepeated] = useState('');
  const [busy, setBusy] = useState(false);
  const matches = repeated.trim().toLowerCase() === user.email.toLowerCase();

  const close = () => {
    setStep(0);
    setRepeated('');
  };

  const confirm = async () => {
    setBusy(true);
    try {
      await accountsApi.close(user.id);
      // A fresh start at home, signed out and with nothing of the account cached; the home page's
      // registration form says that the account was closed (an in-app navigation would meet this
      // page's login guard first).
      sessionStorage.setItem(ACCOUNT_CLOSED_FLAG, '1');
      window.location.replace('/');
    } catch (error) {
      showError(error, 'accounts.close.failed');
      setBusy(false);
    }
  };

  return (
    <>
      <Text size="sm">{t('accounts.close.intro')}</Text>
      <Group mt="md">
        <Button color="red" variant="outline" onClick={() => setStep(1)} data-testid="close-account">
          {t('accounts.close.button')}
        </Button>
      </Group>
      <Modal opened={step > 0} onClose={close} title={t('accounts.close.title')} centered>
        {step === 1 && (
          <Stack data-testid="close-warning-1">
            <Alert color="red" icon={<IconAlertTriangle />} title={t('accounts.close.warning1Title')}>
              {t('accounts.close.warning1')}
            </Alert>
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                {t('common.cancel')}
              </Button>
              <Button color="red" onClick={() => setStep(2)}>
                {t('accounts.close.continue')}
              </Button>
            </Group>
          </Stack>
        )}
        {step === 2 && (
          <Stack data-testid="close-warning-2">
            <Alert color="red" icon={<IconAlertTriangle />} title={t('accounts.close.warning2Title')}>
              {t('accounts.close.warning2')}
            </Alert>
            <TextInput
              label={t('accounts.close.repeatEmail')}
              description={user.email}
              value={repeated}
              onChange={(event) => setRepeated(event.currentTarget.value)}
              autoComplete="off"
              data-autofocus
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                {t('common.cancel')}
              </Button>
              <Button color="red" disabled={!matches} loading={busy} onClick={() => void confirm()} data-testid="close-account-confirm">
                {t('accounts.close.confirm')}
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </>
  );
}
