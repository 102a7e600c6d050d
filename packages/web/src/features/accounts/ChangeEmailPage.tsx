import { useEffect, useRef, useState } from 'react';
import { Alert, Anchor, Button, Group, Loader, Paper, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconAlertTriangle, IconCircleCheck, IconMailForward } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { emailRequest, type EmailRequest } from '@lm/contract/user';
import { PageTitle } from '../../components/PageTitle.tsx';
import { ApiError } from '../../lib/api.ts';
import { auth, useAuth } from '../../lib/auth.ts';
import { formValidator } from '../../lib/forms.ts';
import { errorText } from '../../lib/notify.ts';
import { showFieldErrors } from '../../lib/server-errors.ts';
import { accountsApi } from './api.ts';

type Status = { kind: 'form' } | { kind: 'requested'; email: string } | { kind: 'confirming' } | { kind: 'complete'; email: string } | { kind: 'failed' };

/**
 * `/account/change-email`: asks for the new address and mails a link there; the link leads back
 * here with its token (confirming, complete, failed). Until then the address stays as it is.
 */
export default function ChangeEmailPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const linkEmail = params.get('email') ?? '';
  const token = params.get('token') ?? '';
  const [status, setStatus] = useState<Status>(token && linkEmail ? { kind: 'confirming' } : { kind: 'form' });
  const [failure, setFailure] = useState<string | null>(null);
  const started = useRef(false);
  const form = useForm<EmailRequest>({ mode: 'uncontrolled', initialValues: { email: '' }, validate: formValidator(emailRequest) });

  // Revisited while a change waits for its link: say so, instead of offering an empty form.
  useEffect(() => {
    if (token) return;
    let current = true;
    accountsApi.pendingEmailChange().then(
      ({ pending }) => current && pending && setStatus((shown) => (shown.kind === 'form' ? { kind: 'requested', email: pending.email } : shown)),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [token]);

  useEffect(() => {
    if (!token || !linkEmail || started.current) return;
    started.current = true;
    accountsApi.confirmEmailChange(linkEmail, token).then(
      async (result) => {
        setStatus({ kind: 'complete', email: result.email });
        // The session's user name is the address: refresh it, and the account page's data.
        await auth.validate();
        await queryClient.invalidateQueries({ queryKey: ['users'] });
      },
      () => setStatus({ kind: 'failed' }),
    );
  }, [token, linkEmail, queryClient]);

  const submit = form.onSubmit(async ({ email }) => {
    setFailure(null);
    try {
      await accountsApi.requestEmailChange(email.trim());
      setStatus({ kind: 'requested', email: email.trim().toLowerCase() });
    } catch (error) {
      // Refused input (the current address again) is said at the field.
      if (showFieldErrors(form, error)) return;
      // Spec section 8: 'Email address could not be changed', also on a duplicate address.
      setFailure(error instanceof ApiError && error.code === 'ERR_RATE_LIMITED' ? errorText(error) : t('accounts.changeEmail.failed'));
    }
  });

  return (
    <Stack maw={560}>
      <PageTitle title={t('pages.changeEmail')} />
      <Paper withBorder p="lg" radius="md" data-testid={`change-email-${status.kind}`}>
        {status.kind === 'form' && (
          <form onSubmit={submit} noValidate>
            <Stack>
              <Text>{t('accounts.changeEmail.current', { email: user?.username ?? '' })}</Text>
              <Text size="sm" c="dimmed">
                {t('accounts.changeEmail.intro')}
              </Text>
              {failure && (
                <Alert color="red" role="alert" data-testid="change-email-error">
                  {failure}
                </Alert>
              )}
              <TextInput label={t('accounts.changeEmail.newEmail')} type="email" autoComplete="email" required key={form.key('email')} {...form.getInputProps('email')} />
              <Group>
                <Button type="submit" loading={form.submitting}>
                  {t('accounts.changeEmail.submit')}
                </Button>
                <Button variant="subtle" component={Link} to="/account/settings">
                  {t('common.cancel')}
                </Button>
              </Group>
            </Stack>
          </form>
        )}
        {status.kind === 'requested' && (
          <Stack>
            <Alert color="blue" icon={<IconMailForward />} title={t('accounts.changeEmail.sentTitle')}>
              {t('accounts.changeEmail.sentText', { email: status.email, current: user?.username ?? '' })}
            </Alert>
            <Anchor component="button" type="button" onClick={() => setStatus({ kind: 'form' })} style={{ alignSelf: 'flex-start' }}>
              {t('accounts.changeEmail.otherAddress')}
            </Anchor>
          </Stack>
        )}
        {status.kind === 'confirming' && (
          <Group>
            <Loader size="sm" />
            <Text>{t('accounts.changeEmail.confirming')}</Text>
          </Group>
        )}
        {status.kind === 'complete' && (
          <Stack>
            <Alert color="green" icon={<IconCircleCheck />} title={t('accounts.changeEmail.completeTitle')}>
              {t('accounts.changeEmail.completeText', { email: status.email })}
            </Alert>
            <Anchor component={Link} to="/account/settings">
              {t('nav.myAccount')}
            </Anchor>
          </Stack>
        )}
        {status.kind === 'failed' && (
          <Stack>
            <Alert color="red" icon={<IconAlertTriangle />} title={t('accounts.changeEmail.failed')} role="alert">
              {t('accounts.changeEmail.failedText')}
            </Alert>
            <Anchor component={Link} to="/account/change-email" onClick={() => setStatus({ kind: 'form' })}>
              {t('accounts.changeEmail.again')}
            </Anchor>
          </Stack>
        )}
      </Paper>
    </Stack>
  );
}
