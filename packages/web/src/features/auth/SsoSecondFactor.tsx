import { Alert, Anchor, Button, Stack, Text, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { SecondFactorCodeInput } from './SecondFactorCodeInput.tsx';
import { useNavigate } from 'react-router';
import { ApiError, api } from '../../lib/api.ts';
import { auth } from '../../lib/auth.ts';
import { errorText } from '../../lib/notify.ts';

/**
 * After single sign-on, the account's own second factor (DESIGN.md section 6j): the provider vouched
 * for the person but did not assert a second factor (or is not trusted to), so the login page asks
 * for the authenticator or recovery code. Too many wrong codes, or too long, and the person starts
 * the sign-in again.
 */
export function SsoSecondFactor() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [code, setCode] = useState('');
  const [missing, setMissing] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<{ text: string; again: boolean } | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!code.trim()) return setMissing(true);
    setPending(true);
    try {
      const { redirect } = await api<{ redirect: string }>('/sso/second-factor', { method: 'POST', body: { code: code.trim() }, quietAuthFailure: true });
      await auth.validate();
      navigate(redirect, { replace: true });
    } catch (failure) {
      setCode('');
      setError({ text: errorText(failure), again: failure instanceof ApiError && failure.code === 'ERR_SSO_SECOND_FACTOR' });
    } finally {
      setPending(false);
    }
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="login-title" data-testid="sso-second-factor">
      <Stack>
        <Title order={3} id="login-title">
          {t('auth.twoFactorTitle')}
        </Title>
        <Text size="sm">{t('sso.secondFactorExplain')}</Text>
        {error && (
          <Alert color="red" role="alert" data-testid="sso-second-factor-error">
            {error.text}{' '}
            {error.again && (
              <Anchor href="/api/sso/login" size="sm">
                {t('sso.signInAgain')}
              </Anchor>
            )}
          </Alert>
        )}
        <SecondFactorCodeInput
          testId="sso-code"
          value={code}
          missing={missing}
          onChange={(value) => {
            setCode(value);
            setMissing(false);
          }}
        />
        <Button type="submit" loading={pending}>
          {t('auth.login')}
        </Button>
      </Stack>
    </form>
  );
}
