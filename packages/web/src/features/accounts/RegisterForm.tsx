import { useState } from 'react';
import { Alert, Button, Checkbox, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { formValidator } from '../../lib/forms.ts';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { registration, type Registration } from '@lm/contract';
import { api, ApiError } from '../../lib/api.ts';

/** The new-account form (spec section 3 "Registration"), with the opt-in checkbox for e-mails. */
export function RegisterForm() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [failure, setFailure] = useState<string | null>(null);
  const form = useForm<Registration>({
    mode: 'uncontrolled',
    initialValues: { email: '', password: '', password_confirm: '', optInEmail: false },
    validate: formValidator(registration),
  });

  const submit = form.onSubmit(async (values) => {
    setFailure(null);
    try {
      await api('/users/register', { method: 'POST', body: values });
      navigate(`/register/confirm?email=${encodeURIComponent(values.email)}`);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'ERR_CONFIRMATION_PENDING') {
        navigate(`/register/confirm?email=${encodeURIComponent(values.email)}`);
      } else if (error instanceof ApiError && error.code === 'ERR_DUPLICATE_EMAIL') {
        setFailure(t('accounts.duplicateEmail'));
      } else {
        setFailure(t('accounts.registrationFailed'));
      }
    }
  });

  return (
    <form onSubmit={submit} noValidate aria-labelledby="register-title">
      <Stack>
        <Title order={3} id="register-title">
          {t('accounts.registerTitle')}
        </Title>
        {failure && (
          <Alert color="red" role="alert">
            {failure}
          </Alert>
        )}
        <TextInput label={t('accounts.email')} type="email" autoComplete="email" required key={form.key('email')} {...form.getInputProps('email')} />
        <PasswordInput label={t('auth.password')} autoComplete="new-password" required key={form.key('password')} {...form.getInputProps('password')} />
        <PasswordInput label={t('accounts.passwordConfirm')} autoComplete="new-password" required key={form.key('password_confirm')} {...form.getInputProps('password_confirm')} />
        <Checkbox label={t('accounts.optInEmail')} key={form.key('optInEmail')} {...form.getInputProps('optInEmail', { type: 'checkbox' })} />
        <Button type="submit" loading={form.submitting}>
          {t('accounts.register')}
        </Button>
      </Stack>
    </form>
  );
}
