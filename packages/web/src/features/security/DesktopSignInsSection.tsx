import { Button, Loader, Stack, Table, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { ListResult } from '@lm/contract';
import type { DesktopSignIn } from '@lm/contract/organization';
import { LoadError } from '../../components/LoadError.tsx';
import { api } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { showError, showSuccess } from '../../lib/notify.ts';

const signInsKey = ['account', 'desktop-sign-ins'] as const;

/** The programs signed in as this account by desktop sign-in (DESIGN.md 6f); each can be revoked. */
export function DesktopSignInsSection() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const signIns = useQuery({ queryKey: signInsKey, queryFn: ({ signal }) => api<ListResult<DesktopSignIn>>('/account/desktop-sign-ins', { signal }) });
  const revoke = useMutation({
    mutationFn: (id: number) => api<void>(`/account/desktop-sign-ins/${id}`, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: signInsKey }),
  });
  if (signIns.isPending) return <Loader aria-label={t('common.loading')} />;
  if (signIns.isError) return <LoadError error={signIns.error} />;
  if (!signIns.data.items.length) return <Text size="sm">{t('security.desktop.none')}</Text>;
  return (
    <Stack>
      <Text size="sm">{t('security.desktop.explain')}</Text>
      <Table.ScrollContainer minWidth={420}>
        <Table data-testid="desktop-sign-ins">
          <Table.Tbody>
            {signIns.data.items.map((signIn) => (
              <Table.Tr key={signIn.id} data-testid="desktop-sign-in-row">
                <Table.Td>{signIn.productName}</Table.Td>
                <Table.Td ff="monospace">{signIn.machineId}</Table.Td>
                <Table.Td>{formatDateTime(signIn.createdAt)}</Table.Td>
                <Table.Td>
                  <Button
                    size="compact-sm"
                    variant="subtle"
                    color="red"
                    onClick={() => void revoke.mutateAsync(signIn.id).then(() => showSuccess(t('security.desktop.revoked')), (error: unknown) => showError(error, 'security.failed'))}
                  >
                    {t('security.desktop.revoke')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
