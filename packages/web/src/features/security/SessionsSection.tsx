import { Badge, Button, Group, Loader, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { AccountSession } from '@lm/contract/two-factor';
import { auth } from '../../lib/auth.ts';
import { formatDateTime } from '../../lib/format.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { useEndOtherSessions, useEndSession, useSessions } from './api.ts';
import { LoadError } from '../../components/LoadError.tsx';
import rowActions from '../../components/RowActions.module.css';

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

  return (
    <Stack>
      <Text size="sm">{t('security.sessions.explain')}</Text>
      <Table.ScrollContainer minWidth={560}>
        <Table data-testid="sessions" verticalSpacing="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('security.sessions.device')}</Table.Th>
              <Table.Th>{t('security.sessions.address')}</Table.Th>
              <Table.Th>{t('security.sessions.lastUsed')}</Table.Th>
              <Table.Th>{t('security.sessions.signedIn')}</Table.Th>
              <Table.Th className={rowActions.cell}>
                <VisuallyHidden>{t('common.actions')}</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((session) => (
              <Table.Tr key={session.id} data-testid="session-row" data-current={session.current}>
                <Table.Td>
                  <Group gap="xs">
                    <Text size="sm">{device(session)}</Text>
                    {session.current && (
                      <Badge size="sm" variant="light">
                        {t('security.sessions.thisOne')}
                      </Badge>
                    )}
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" ff="monospace">
                    {session.address ?? '–'}
                  </Text>
                </Table.Td>
                <Table.Td>{formatDateTime(session.lastUsedAt)}</Table.Td>
                <Table.Td>{formatDateTime(session.createdAt)}</Table.Td>
                <Table.Td className={rowActions.cell}>
                  <Button size="xs" variant="subtle" color="red" onClick={() => void end(session)}>
                    {session.current ? t('auth.logout') : t('security.sessions.end')}
                    <VisuallyHidden> – {device(session)}</VisuallyHidden>
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
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
