import { Alert, Anchor, Button, Group, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useForm } from '@mantine/form';
import { lazyFormValidator } from '../../lib/forms.ts';
import { useTranslation } from 'react-i18next';
import { SecondFactorCodeInput } from './SecondFactorCodeInput.tsx';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { LoginRequest, SessionUser } from '@lm/contract';
import { ApiError } from '../../lib/api.ts';
import { auth, useAuth } from '../../lib/auth.ts';
import { safeReturnUrl } from '../../lib/return-url.ts';
import { keptChange } from '../../lib/kept-change.ts';

const validator = lazyFormValidator(() => import('@lm/contract/session').then((module) => module.loginRequest));

/** The second step for an account with a second factor: the password was right, now the code. */
function CodeStep({ credentials, onBack, onSignedIn }: { credentials: LoginRequest; onBack: () => void; onSignedIn: (user: SessionUser) => void }) {
  const { t } = useTranslation();
  const { status, errorCode } = useAuth();
  const [code, setCode] = useState('');
  const [missing, setMissing] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!code.trim()) return setMissing(true);
    try {
      onSignedIn(await auth.login({ ...credentials, code: code.trim() }));
    } catch {
      setCode('');
    }
  };
  const failed = status === 'Error' && errorCode !== 'ERR_TWO_FACTOR_REQUIRED';
  return (
    <form onSubmit={submit} noValidate aria-labelledby="login-title" data-testid="login-code-step">
      <Stack>
        <Title order={3} id="login-title">
          {t('auth.twoFactorTitle')}
        </Title>
        <Text size="sm">{t('auth.twoFactorExplain')}</Text>
        {failed && (
          <Alert color="red" role="alert" data-testid="login-error">
            {errorCode === 'ERR_RATE_LIMITED' ? t('errors.ERR_RATE_LIMITED') : t('errors.ERR_TWO_FACTOR_INVALID')}
          </Alert>
        )}
        <SecondFactorCodeInput
          testId="login-code"
          value={code}
          missing={missing}
          onChange={(value) => {
            setCode(value);
            setMissing(false);
          }}
        />
        <Group justify="space-between">
          <Button variant="subtle" onClick={onBack}>
            {t('common.back')}
          </Button>
          <Button type="submit" loading={status === 'Pending'}>
            {t('auth.login')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function LoginForm() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const { status, errorCode } = useAuth();
  const [codeFor, setCodeFor] = useState<LoginRequest | null>(null);
  const form = useForm<LoginRequest>({ mode: 'uncontrolled', initialValues: { username: '', password: '' }, validate: validator.validate });

  // An account that must still set up its second factor goes there first (the server allows nothing else).
  const signedIn = (user: SessionUser) => navigate(user.twoFactorEnrollmentRequired ? '/account/security' : safeReturnUrl(params.get('returnUrl')), { replace: true });

  const submit = form.onSubmit(async (values) => {
    try {
      signedIn(await auth.login(values));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'ERR_CONFIRMATION_PENDING') {
        navigate(`/register/confirm?email=${encodeURIComponent(values.username)}`);
      }
      if (error instanceof ApiError && error.code === 'ERR_TWO_FACTOR_REQUIRED') setCodeFor(values);
    }
  });

  if (codeFor) {
    return (
      <CodeStep
        credentials={codeFor}
        onSignedIn={signedIn}
        onBack={() => {
          setCodeFor(null);
          form.setFieldValue('password', '');
        }}
      />
    );
  }

  const failure = status === 'Error' && errorCode !== 'ERR_CONFIRMATION_PENDING' && errorCode !== 'ERR_TWO_FACTOR_REQUIRED';
  // A change refused because the session ended, made on the page the sign-in returns to.
  const kept = keptChange();
  const changeKept = kept !== null && kept.page === safeReturnUrl(params.get('returnUrl'));
  return (
    <form onSubmit={submit} onFocus={validator.preload} noValidate aria-labelledby="login-title">
      <Stack>
        <Title order={3} id="login-title">
          {t('auth.loginTitle')}
        </Title>
        {changeKept && !failure && (
          <Alert color="yellow" data-testid="login-change-kept">
            {t('keptChange.signIn')}
          </Alert>
        )}
        {failure && (
          <Alert color="red" role="alert" data-testid="login-error">
            {errorCode === 'ERR_RATE_LIMITED' || errorCode === 'ERR_SSO_REQUIRED' ? t(`errors.${errorCode}`) : t('auth.loginFailed')}
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
