import { Badge, Button, Group, Text } from '@mantine/core';
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
import type { DataColumn } from '../../components/data-table/DataTable.tsx';
import { formatDate } from '../../lib/format.ts';
import { BreakableEmail } from '../../components/BreakableEmail.tsx';

/** The users table's columns: each account's values, and its actions as far as the rules allow them. */
export function useUserColumns(onEdit: (user: User) => void): DataColumn<User>[] {
  const { t } = useTranslation();
  const ability = useAbility();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: USERS_KEY });

  const confirmRegistration = async (user: User) => {
    try {
      await usersApi.confirmRegistration(user.id);
      showSuccess(t('users.confirmed', { email: user.email }));
      await refresh();
    } catch (error) {
      showError(error, 'accounts.confirm.failedTitle');
    }
  };

  const remove = (user: User) =>
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

  return [
    {
      key: 'email',
      label: t('users.fields.email'),
      sortField: 'email',
      // What people scan for first: the address, then the name; a country is a word or two.
      grow: 1.5,
      render: (user) => (
        <Text span size="sm" fw={500}>
          <BreakableEmail email={user.email} />
        </Text>
      ),
    },
    { key: 'name', label: t('users.columns.name'), sortField: 'lastName', render: (user) => (user.formattedName === user.email ? '' : `${user.firstName} ${user.lastName}`.trim()) },
    { key: 'company', label: t('users.fields.company'), sortField: 'company', render: (user) => user.company },
    { key: 'country', label: t('users.fields.country'), grow: 0.6, render: (user) => countryName(user.country, currentLocale()) },
    {
      key: 'organizations',
      label: t('organizations.column'),
      hiddenByDefault: true,
      render: (user) => (user.organizations ?? []).map((organization) => organization.name).join(', '),
    },
    { key: 'accessRole', label: t('users.fields.accessRole'), kind: 'fit', sortField: 'accessRole', render: (user) => t(`users.roles.${user.accessRole}`) },
    {
      key: 'registration',
      label: t('users.columns.registration'),
      kind: 'fit',
      render: (user) =>
        user.confirmed ? (
          <Badge color="green" variant="light">
            {t('users.status.confirmed')}
          </Badge>
        ) : (
          <Group gap="xs" wrap="nowrap">
            <Badge color="yellow" variant="light">
              {t('users.status.pending')}
            </Badge>
            {ability.can('confirm-registration', 'User') && (
              <Button size="compact-xs" variant="light" leftSection={<IconUserCheck size={14} />} onClick={() => void confirmRegistration(user)} data-testid="confirm-registration">
                {t('users.confirmRegistration')}
              </Button>
            )}
          </Group>
        ),
    },
    { key: 'createdAt', label: t('users.columns.created'), kind: 'fit', sortField: 'createdAt', render: (user) => formatDate(user.createdAt) },
    {
      key: 'actions',
      label: t('common.actions'),
      render: (user) => {
        const subject = asSubject<Record<string, unknown>>('User', { id: user.id });
        return (
          <Group gap={4} wrap="nowrap" justify="flex-end">
            {ability.can('view-list', 'License') && (
              <RowAction label={t('users.licenses')} subject={user.email} icon={<IconCertificate size={18} />} to={`/users/${user.id}/licenses`} testId="user-licenses" />
            )}
            {ability.can('update', subject) && <RowAction label={t('common.edit')} subject={user.email} icon={<IconPencil size={18} />} onClick={() => onEdit(user)} testId="edit-user" />}
            {ability.can('delete', subject) && (
              <RowAction label={t('common.delete')} subject={user.email} icon={<IconTrash size={18} />} color="red" onClick={() => remove(user)} testId="delete-user" />
            )}
          </Group>
        );
      },
    },
  ];
}
