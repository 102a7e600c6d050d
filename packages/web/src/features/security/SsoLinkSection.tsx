import { Alert, Button, Group, Stack, Table, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { SsoIdentity } from '@lm/contract/sso';
import { api } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { showError } from '../../lib/notify.ts';
import { useSsoStatus } from '../../lib/sso.ts';

/**
 * The account's identities at the company's identity provider: only the signed-in owner links one
 * (the provider's sign-in then opens in this browser), never an e-mail address that matches.
 */
export function SsoLinkSection() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const queryClient = useQueryClient();
  const status = useSsoStatus();
  const identities = useQuery({ queryKey: ['account', 'sso'], queryFn: ({ signal }) => api<{ items: SsoIdentity[] }>('/account/sso', { signal }) });
  const link = useMutation({ mutationFn: () => api<{ url: string }>('/account/sso', { method: 'POST' }) });
  const unlink = useMutation({
    mutationFn: (id: number) => api(`/account/sso/${id}`, { method: 'DELETE' }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['account', 'sso'] }),
  });
  if (!status.data?.enabled && !identities.data?.items.length) return <Text c="dimmed">{t('sso.account.notSetUp')}</Text>;

  const start = async () => {
    try {
      window.location.assign((await link.mutateAsync()).url);
    } catch (error) {
      showError(error, 'errors.ERR_SSO_FAILED');
    }
  };
  return (
    <Stack data-testid="sso-identities">
      {params.get('ssoLinked') && <Alert color="green">{t('sso.account.linked')}</Alert>}
      <Text size="sm">{t('sso.account.explain')}</Text>
      {identities.data?.items.length ? (
        <Table>
          <Table.Tbody>
            {identities.data.items.map((identity) => (
              <Table.Tr key={identity.id}>
                <Table.Td>
                  <Text size="sm">{identity.issuer}</Text>
                  <Text size="xs" c="dimmed">
                    {t('sso.account.lastUsed', { date: identity.lastLoginAt ? formatDateTime(identity.lastLoginAt) : '–' })}
                  </Text>
                </Table.Td>
                <Table.Td ta="right">
                  <Button size="compact-sm" variant="subtle" color="red" loading={unlink.isPending} onClick={() => unlink.mutate(identity.id, { onError: (error) => showError(error) })}>
                    {t('sso.account.unlink')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
      {status.data?.enabled && (
        <Group justify="flex-end">
          <Button variant="light" loading={link.isPending} onClick={() => void start()} data-testid="sso-link">
            {t('sso.account.link')}
          </Button>
        </Group>
      )}
    </Stack>
  );
}
