import { Badge, Button, Group, Loader, Stack, Text, VisuallyHidden } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { AccountSession } from '@lm/contract/two-factor';
import { auth } from '../../lib/auth.ts';
import { formatDateTime } from '../../lib/format.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { useEndOtherSessions, useEndSession, useSessions } from './api.ts';
import { LoadError } from '../../components/LoadError.tsx';
import { DataTable, type DataColumn } from '../../components/data-table/DataTable.tsx';

/** "Firefox on Windows", as far as the browser told. */
function useDevice() {
  const { t } = useTranslation();
  return (session: AccountSession) => {
    if (session.browser && session.system) return t('security.sessions.browserOn', { browser: session.browser, system: session.system });
    return session.browser ?? session.system ?? t('security.sessions.unknownBrowser');
  };
}

/** The account's sessions: where it is signed in; end one, or all but this one. */
export function SessionsSection() {
  const { t } = useTranslation();
  const sessions = useSessions();
  const endOne = useEndSession();
  const endOthers = useEndOtherSessions();
  const device = useDevice();

  if (sessions.isPending) return <Loader aria-label={t('common.loading')} />;
  if (sessions.isError) return <LoadError error={sessions.error} />;
  const items = sessions.data.items;
  const end = async (session: AccountSession) => {
    try {
      await endOne.mutateAsync(session.id);
      if (session.current) {
        await auth.logout();
        return;
      }
      showSuccess(t('security.sessions.ended'));
    } catch (error) {
      showError(error, 'security.failed');
    }
  };

  const columns: DataColumn<AccountSession>[] = [
    {
      key: 'device',
      label: t('security.sessions.device'),
      render: (session) => (
        <>
          {device(session)}
          {session.current && (
            <Badge size="sm" variant="light" ml="xs">
              {t('security.sessions.thisOne')}
            </Badge>
          )}
        </>
      ),
    },
    {
      key: 'address',
      label: t('security.sessions.address'),
      render: (session) => (
        <Text span size="sm" ff="monospace">
          {session.address ?? '–'}
        </Text>
      ),
    },
    { key: 'lastUsed', label: t('security.sessions.lastUsed'), kind: 'fit', render: (session) => formatDateTime(session.lastUsedAt) },
    { key: 'signedIn', label: t('security.sessions.signedIn'), kind: 'fit', render: (session) => formatDateTime(session.createdAt) },
    {
      key: 'actions',
      label: t('common.actions'),
      render: (session) => (
        <Button size="compact-sm" variant="subtle" color="red" onClick={() => void end(session)}>
          {session.current ? t('auth.logout') : t('security.sessions.end')}
          <VisuallyHidden> – {device(session)}</VisuallyHidden>
        </Button>
      ),
    },
  ];

  return (
    <Stack>
      <Text size="sm">{t('security.sessions.explain')}</Text>
      <DataTable
        id="sessions"
        testId="sessions"
        columns={columns}
        items={items}
        rowKey={(session) => session.id}
        rowProps={(session) => ({ 'data-testid': 'session-row', 'data-current': String(session.current) })}
      />
      {items.length > 1 && (
        <Group>
          <Button
            variant="light"
            color="red"
            loading={endOthers.isPending}
            data-testid="end-other-sessions"
            onClick={() => endOthers.mutateAsync().then(() => showSuccess(t('security.sessions.othersEnded')), (error: unknown) => showError(error, 'security.failed'))}
          >
            {t('security.sessions.endOthers')}
          </Button>
        </Group>
      )}
    </Stack>
  );
}
