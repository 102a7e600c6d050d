import { useEffect, useState } from 'react';
import { Alert, Button, Checkbox, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { lazyFormValidator } from '../../lib/forms.ts';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { PASSWORD_MIN_LENGTH, type Registration } from '@lm/contract';
import { ApiError } from '../../lib/api.ts';
import { errorText, showSuccess } from '../../lib/notify.ts';
import { ACCOUNT_CLOSED_FLAG, accountsApi } from './api.ts';

const validator = lazyFormValidator(() => import('@lm/contract/user').then((module) => module.registration));

/** The new-account form (spec section 3 "Registration"), with the opt-in checkbox for e-mails. */
export function RegisterForm() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [failure, setFailure] = useState<string | null>(null);
  const form = useForm<Registration>({
    mode: 'uncontrolled',
    initialValues: { email: '', password: '', password_confirm: '', optInEmail: false },
    validate: validator.validate,
  });

  useEffect(() => {
    // Shown once on the home page after closing an account (see CloseAccount).
    if (sessionStorage.getItem(ACCOUNT_CLOSED_FLAG)) {
      sessionStorage.removeItem(ACCOUNT_CLOSED_FLAG);
      showSuccess(t('accounts.close.done'));
    }
  }, [t]);

  const submit = form.onSubmit(async (values) => {
    setFailure(null);
    const email = values.email.trim().toLowerCase();
    const pendingScreen = `/register/confirm?email=${encodeURIComponent(email)}`;
    try {
      await accountsApi.register({ ...values, email });
      navigate(pendingScreen);
    } catch (error) {
      // Spec section 8: pending goes to the pending screen, a duplicate says so, anything else fails.
      if (error instanceof ApiError && error.code === 'ERR_CONFIRMATION_PENDING') {
        navigate(pendingScreen);
      } else if (error instanceof ApiError && error.code === 'ERR_DUPLICATE_EMAIL') {
        setFailure(t('accounts.duplicateEmail'));
      } else if (error instanceof ApiError && error.code === 'ERR_RATE_LIMITED') {
        setFailure(errorText(error));
      } else {
        setFailure(t('accounts.registrationFailed'));
      }
    }
  });

  return (
    <form onSubmit={submit} onFocus={validator.preload} noValidate aria-labelledby="register-title" data-testid="register-form">
      <Stack>
        <Title order={3} id="register-title">
          {t('accounts.registerTitle')}
        </Title>
        {failure && (
          <Alert color="red" role="alert" data-testid="register-error">
            {failure}
          </Alert>
        )}
        <TextInput label={t('accounts.email')} type="email" autoComplete="email" required key={form.key('email')} {...form.getInputProps('email')} />
        <PasswordInput
          label={t('auth.password')}
          description={t('accounts.passwordRule', { count: PASSWORD_MIN_LENGTH })}
          autoComplete="new-password"
          required
          key={form.key('password')}
          {...form.getInputProps('password')}
        />
        <PasswordInput label={t('accounts.passwordConfirm')} autoComplete="new-password" required key={form.key('password_confirm')} {...form.getInputProps('password_confirm')} />
        <Checkbox label={t('accounts.optInEmail')} key={form.key('optInEmail')} {...form.getInputProps('optInEmail', { type: 'checkbox' })} />
        <Button type="submit" loading={form.submitting}>
          {t('accounts.register')}
        </Button>
      </Stack>
    </form>
  );
}
