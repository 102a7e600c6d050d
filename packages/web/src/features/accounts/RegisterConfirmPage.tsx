import { useEffect, useRef, useState } from 'react';
import { Alert, Button, Center, Group, Loader, Paper, Stack, Text } from '@mantine/core';
import { IconCircleCheck, IconMailForward, IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { PageTitle } from '../../components/PageTitle.tsx';
import { ApiError } from '../../lib/api.ts';
import { accountsApi } from './api.ts';
import { ResendConfirmation } from './ResendConfirmation.tsx';

type Status = 'pending' | 'confirming' | 'complete' | 'already-confirmed' | 'failed';

/**
 * `/register/confirm`: with the id and token of the mail it confirms (confirming, complete, already
 * confirmed or failed); without them it is the registration-pending screen. Both can resend the mail.
 */
export default function RegisterConfirmPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const email = params.get('email') ?? '';
  const id = Number(params.get('id'));
  const token = params.get('token');
  const hasToken = Boolean(token && Number.isInteger(id) && id > 0);
  const [status, setStatus] = useState<Status>(hasToken ? 'confirming' : 'pending');
  const started = useRef(false);

  useEffect(() => {
    // A token works once: confirm once, even when React runs effects twice.
    if (!hasToken || started.current) return;
    started.current = true;
    accountsApi.confirm(id, token!).then(
      () => setStatus('complete'),
      (error: unknown) => setStatus(error instanceof ApiError && error.code === 'ERR_ALREADY_CONFIRMED' ? 'already-confirmed' : 'failed'),
    );
  }, [hasToken, id, token]);

  const loginLink = '/login';
  return (
    <Center>
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={520} data-testid={`registration-${status}`}>
        <PageTitle title={t('pages.registerConfirm')} />
        {status === 'pending' && (
          <Stack>
            <Group wrap="nowrap" align="flex-start">
              <IconMailForward size={32} aria-hidden />
              <Stack gap="xs">
                <Text fw={600}>{t('accounts.confirm.pendingTitle')}</Text>
                <Text>{email ? t('accounts.confirm.pendingText', { email }) : t('accounts.confirm.pendingTextNoEmail')}</Text>
                <Text size="sm" c="dimmed">
                  {t('accounts.confirm.pendingHint')}
                </Text>
              </Stack>
            </Group>
            <ResendConfirmation email={email} />
          </Stack>
        )}
        {status === 'confirming' && (
          <Group>
            <Loader size="sm" />
            <Text>{t('accounts.confirm.confirming')}</Text>
          </Group>
        )}
        {status === 'complete' && (
          <Stack>
            <Alert color="green" icon={<IconCircleCheck />} title={t('accounts.confirm.completeTitle')}>
              {t('accounts.confirm.completeText')}
            </Alert>
            <Button component={Link} to={loginLink}>
              {t('auth.login')}
            </Button>
          </Stack>
        )}
        {status === 'already-confirmed' && (
          <Stack>
            <Alert color="blue" icon={<IconCircleCheck />} title={t('accounts.confirm.alreadyTitle')}>
              {t('accounts.confirm.alreadyText')}
            </Alert>
            <Button component={Link} to={loginLink}>
              {t('auth.login')}
            </Button>
          </Stack>
        )}
        {status === 'failed' && (
          <Stack>
            <Alert color="red" icon={<IconAlertTriangle />} title={t('accounts.confirm.failedTitle')} role="alert">
              {t('accounts.confirm.failedText')}
            </Alert>
            <ResendConfirmation email={email} />
            <Group>
              <Button variant="subtle" component={Link} to={loginLink}>
                {t('auth.login')}
              </Button>
            </Group>
          </Stack>
        )}
      </Paper>
    </Center>
  );
}
