import { Alert, Anchor, Button, Group, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { formValidator } from '../../lib/forms.ts';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { loginRequest, type LoginRequest } from '@lm/contract';
import { ApiError } from '../../lib/api.ts';
import { auth, useAuth } from '../../lib/auth.ts';

/** Only paths of this site are followed after login, never another origin. */
export function safeReturnUrl(value: string | null): string {
  return value && value.startsWith('/') && !value.startsWith('//') ? value : '/';
}

export function LoginForm() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const { status, errorCode } = useAuth();
  const form = useForm<LoginRequest>({ mode: 'uncontrolled', initialValues: { username: '', password: '' }, validate: formValidator(loginRequest) });

  const submit = form.onSubmit(async (values) => {
    try {
      await auth.login(values);
      navigate(safeReturnUrl(params.get('returnUrl')), { replace: true });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'ERR_CONFIRMATION_PENDING') {
        navigate(`/register/confirm?email=${encodeURIComponent(values.username)}`);
      }
    }
  });

  const failure = status === 'Error' && errorCode !== 'ERR_CONFIRMATION_PENDING';
  return (
    <form onSubmit={submit} noValidate aria-labelledby="login-title">
      <Stack>
        <Title order={3} id="login-title">
          {t('auth.loginTitle')}
        </Title>
        {failure && (
          <Alert color="red" role="alert" data-testid="login-error">
            {errorCode === 'ERR_RATE_LIMITED' ? t('errors.ERR_RATE_LIMITED') : t('auth.loginFailed')}
          </Alert>
        )}
        <TextInput label={t('auth.username')} type="email" autoComplete="username" required key={form.key('username')} {...form.getInputProps('username')} />
        <PasswordInput label={t('auth.password')} autoComplete="current-password" required key={form.key('password')} {...form.getInputProps('password')} />
        <Group justify="space-between">
          <Anchor component={Link} to="/forgot-password" size="sm">
            {t('auth.forgotPassword')}
          </Anchor>
          <Button type="submit" loading={status === 'Pending'}>
            {t('auth.login')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
