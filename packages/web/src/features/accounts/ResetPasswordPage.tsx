import { useState } from 'react';
import { Alert, Anchor, Button, Center, Paper, PasswordInput, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { PASSWORD_MIN_LENGTH } from '@lm/contract';
import { passwordResetForm, type PasswordResetForm } from '@lm/contract/user';
import { PageTitle } from '../../components/PageTitle.tsx';
import { ApiError } from '../../lib/api.ts';
import { formValidator } from '../../lib/forms.ts';
import { showSuccess } from '../../lib/notify.ts';
import { accountsApi } from './api.ts';

/** `/reset-password?email&token` (the link of the reset mail): sets a new password. */
export default function ResetPasswordPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const email = params.get('email') ?? '';
  const token = params.get('token') ?? '';
  // Spec section 8: 'Password reset failed' when the link is unusable, '… on reset' when setting fails.
  const [failure, setFailure] = useState<'link' | 'reset' | null>(email && token ? null : 'link');
  const form = useForm<PasswordResetForm>({
    mode: 'uncontrolled',
    initialValues: { password: '', password_confirm: '' },
    validate: formValidator(passwordResetForm),
  });

  const submit = form.onSubmit(async ({ password }) => {
    setFailure(null);
    try {
      await accountsApi.resetPassword({ email, token, password });
      showSuccess(t('accounts.reset.done'));
      navigate('/login', { replace: true });
    } catch (error) {
      setFailure(error instanceof ApiError && error.code === 'ERR_INVALID_TOKEN' ? 'link' : 'reset');
    }
  });

  return (
    <Center>
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={440}>
        <PageTitle title={t('pages.resetPassword')} />
        <Stack>
          {failure === 'link' && (
            <Alert color="red" role="alert" title={t('accounts.reset.failed')} data-testid="reset-failed">
              {t('accounts.reset.linkInvalid')}{' '}
              {/* In the alert's own color, underlined: the theme's link blue on the red tint was 4.1:1. */}
              <Anchor component={Link} to="/forgot-password" c="inherit" underline="always" fw={600}>
                {t('accounts.reset.requestNew')}
              </Anchor>
            </Alert>
          )}
          {failure === 'reset' && (
            <Alert color="red" role="alert" data-testid="reset-failed">
              {t('accounts.reset.failedOnReset')}
            </Alert>
          )}
          {email && token && (
            <form onSubmit={submit} noValidate>
              <Stack>
                <Text size="sm">{t('accounts.reset.intro', { email })}</Text>
                <PasswordInput
                  label={t('accounts.reset.newPassword')}
                  description={t('accounts.passwordRule', { count: PASSWORD_MIN_LENGTH })}
                  autoComplete="new-password"
                  required
                  key={form.key('password')}
                  {...form.getInputProps('password')}
                />
                <PasswordInput label={t('accounts.passwordConfirm')} autoComplete="new-password" required key={form.key('password_confirm')} {...form.getInputProps('password_confirm')} />
                <Button type="submit" loading={form.submitting}>
                  {t('accounts.reset.submit')}
                </Button>
              </Stack>
            </form>
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
