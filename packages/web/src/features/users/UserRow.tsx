import { ActionIcon, Badge, Button, Group, Table, Text, Tooltip } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconCertificate, IconPencil, IconTrash, IconUserCheck } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { asSubject, type User } from '@lm/contract';
import { useAbility } from '../../lib/auth.ts';
import { countryName } from '../../lib/countries.ts';
import { currentLocale } from '../../lib/i18n.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { USERS_KEY, usersApi } from './api.ts';

/** One account in the users table, with its actions as far as the rules allow them. */
export function UserRow({ user, onEdit }: { user: User; onEdit: (user: User) => void }) {
  const { t } = useTranslation();
  const ability = useAbility();
  const queryClient = useQueryClient();
  const subject = asSubject<Record<string, unknown>>('User', { id: user.id });
  const refresh = () => queryClient.invalidateQueries({ queryKey: USERS_KEY });

  const confirmRegistration = async () => {
    try {
      await usersApi.confirmRegistration(user.id);
      showSuccess(t('users.confirmed', { email: user.email }));
      await refresh();
    } catch (error) {
      showError(error, 'accounts.confirm.failedTitle');
    }
  };

  const remove = () =>
    modals.openConfirmModal({
      title: t('users.deleteTitle'),
      children: <Text size="sm">{t('users.deleteText', { email: user.email })}</Text>,
      labels: { confirm: t('common.delete'), cancel: t('common.cancel') },
      confirmProps: { color: 'red', 'data-testid': 'confirm-delete-user' } as never,
      onConfirm: async () => {
        try {
          await usersApi.remove(user.id);
          showSuccess(t('users.deleted', { email: user.email }));
          await refresh();
        } catch (error) {
          showError(error, 'users.deleteFailed');
        }
      },
    });

  return (
    <Table.Tr data-testid={`user-row-${user.id}`}>
      <Table.Td>
        <Text size="sm" fw={500}>
          {user.email}
        </Text>
      </Table.Td>
      <Table.Td>{user.formattedName === user.email ? '' : `${user.firstName} ${user.lastName}`.trim()}</Table.Td>
      <Table.Td>{user.company}</Table.Td>
      <Table.Td>{countryName(user.country, currentLocale())}</Table.Td>
      <Table.Td>{t(`users.roles.${user.accessRole}`)}</Table.Td>
      <Table.Td>
        {user.confirmed ? (
          <Badge color="green" variant="light">
            {t('users.status.confirmed')}
          </Badge>
        ) : (
          <Group gap="xs" wrap="nowrap">
            <Badge color="yellow" variant="light">
              {t('users.status.pending')}
            </Badge>
            {ability.can('confirm-registration', 'User') && (
              <Button size="compact-xs" variant="light" leftSection={<IconUserCheck size={14} />} onClick={() => void confirmRegistration()} data-testid="confirm-registration">
                {t('users.confirmRegistration')}
              </Button>
            )}
          </Group>
        )}
      </Table.Td>
      <Table.Td>{new Date(user.createdAt).toLocaleDateString(currentLocale())}</Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap" justify="flex-end">
          {ability.can('view-list', 'License') && (
            <Tooltip label={t('users.licenses')}>
              <ActionIcon component={Link} to={`/users/${user.id}/licenses`} variant="subtle" aria-label={t('users.licenses')} data-testid="user-licenses">
                <IconCertificate size={18} />
              </ActionIcon>
            </Tooltip>
          )}
          {ability.can('update', subject) && (
            <Tooltip label={t('common.edit')}>
              <ActionIcon variant="subtle" onClick={() => onEdit(user)} aria-label={t('common.edit')} data-testid="edit-user">
                <IconPencil size={18} />
              </ActionIcon>
            </Tooltip>
          )}
          {ability.can('delete', subject) && (
            <Tooltip label={t('common.delete')}>
              <ActionIcon variant="subtle" color="red" onClick={remove} aria-label={t('common.delete')} data-testid="delete-user">
                <IconTrash size={18} />
              </ActionIcon>
            </Tooltip>
          )}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}
