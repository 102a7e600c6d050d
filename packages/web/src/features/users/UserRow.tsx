import { Badge, Button, Group, Table, Text } from '@mantine/core';
import { IconCertificate, IconPencil, IconTrash, IconUserCheck } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { asSubject, type User } from '@lm/contract';
import { useAbility } from '../../lib/auth.ts';
import { countryName } from '../../lib/countries.ts';
import { currentLocale } from '../../lib/i18n.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { USERS_KEY, usersApi } from './api.ts';
import { confirmDanger } from '../../components/confirm-danger.tsx';
import { RowAction } from '../../components/RowAction.tsx';
import { formatDate } from '../../lib/format.ts';
import rowActions from '../../components/RowActions.module.css';

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
    confirmDanger({
      title: t('users.deleteTitle'),
      text: t('users.deleteText', { email: user.email }),
      confirmTestId: 'confirm-delete-user',
      run: async () => {
        await usersApi.remove(user.id);
        await refresh();
      },
      done: t('users.deleted', { email: user.email }),
      failedKey: 'users.deleteFailed',
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
      <Table.Td>{formatDate(user.createdAt)}</Table.Td>
      <Table.Td className={rowActions.cell}>
        <Group gap={4} wrap="nowrap" justify="flex-end">
          {ability.can('view-list', 'License') && (
            <RowAction label={t('users.licenses')} icon={<IconCertificate size={18} />} to={`/users/${user.id}/licenses`} testId="user-licenses" />
          )}
          {ability.can('update', subject) && (
            <RowAction label={t('common.edit')} icon={<IconPencil size={18} />} onClick={() => onEdit(user)} testId="edit-user" />
          )}
          {ability.can('delete', subject) && (
            <RowAction label={t('common.delete')} icon={<IconTrash size={18} />} color="red" onClick={remove} testId="delete-user" />
          )}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}
