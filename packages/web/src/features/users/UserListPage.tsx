import { useCallback, useEffect, useState } from 'react';
import { Button, Group, Select, Stack, Table, Text, TextInput, VisuallyHidden } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { LIST_FILTER_MAX_LENGTH, ROLES, SELECT_SEARCH_DEBOUNCE_MS, type Role, type User } from '@lm/contract';
import { BusyOverlay } from '../../components/BusyOverlay.tsx';
import { ListPager, useCountText } from '../../components/ListPager.tsx';
import { useListPaging } from '../../lib/list-paging.ts';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useRoleOptions } from '../../components/UserFormFields.tsx';
import { useAbility } from '../../lib/auth.ts';
import { USERS_KEY, usersApi } from './api.ts';
import { SortHeader } from './SortHeader.tsx';
import { UserEditModal } from './UserEditModal.tsx';
import { UserRow } from './UserRow.tsx';
import { LoadError } from '../../components/LoadError.tsx';
import rowActions from '../../components/RowActions.module.css';

/** `/users`: the accounts with search, role filter, sorting and pages; the state lives in the URL. */
export default function UserListPage() {
  const { t } = useTranslation();
  const ability = useAbility();
  const roles = useRoleOptions();
  const [params, setParams] = useSearchParams();
  const [search, setSearch] = useState(params.get('filter') ?? '');
  const [filter] = useDebouncedValue(search.trim(), SELECT_SEARCH_DEBOUNCE_MS);
  const [editing, setEditing] = useState<User | null>(null);
  const sort = params.get('sort') ?? '-createdAt';
  const roleParam = params.get('accessRole');
  const accessRole = (ROLES as readonly string[]).includes(roleParam ?? '') ? (roleParam as Role) : null;

  const update = useCallback(
    (changes: Record<string, string | null>) =>
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          for (const [key, value] of Object.entries(changes)) {
            if (value === null || value === '') next.delete(key);
            else next.set(key, value);
          }
          return next;
        },
        { replace: true },
      ),
    [setParams],
  );

  // The debounced search goes into the URL (and back to page 1) once it differs from it.
  const urlFilter = params.get('filter') ?? '';
  useEffect(() => {
    if (filter !== urlFilter) update({ filter, page: null });
  }, [filter, urlFilter, update]);

  // Pages start again at 1 when the search, the sort or the role changes (lib/list-paging.ts).
  const paging = useListPaging(JSON.stringify([filter, sort, accessRole]));
  const countText = useCountText();
  const list = useQuery({
    queryKey: [...USERS_KEY, 'list', { filter: filter, sort, accessRole, ...paging.request }],
    queryFn: ({ signal }) => usersApi.list({ ...paging.request, limit: paging.limit, filter: filter, sort, accessRole }, signal),
    placeholderData: keepPreviousData,
  });
  const header = (field: string, label: string) => (
    <SortHeader field={field} sort={sort} onSort={(next) => update({ sort: next, page: null })}>
      {label}
    </SortHeader>
  );

  return (
    <Stack>
      <PageTitle
        title={t('pages.users')}
        actions={
          ability.can('create', 'User') && (
            <Button component={Link} to="/users/create" leftSection={<IconPlus size={18} />}>
              {t('users.create')}
            </Button>
          )
        }
      />
      <Group align="flex-end" wrap="wrap">
        <TextInput
          label={t('common.search')}
          placeholder={t('users.searchPlaceholder')}
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          w={{ base: '100%', sm: 320 }}
          maxLength={LIST_FILTER_MAX_LENGTH}
          data-testid="user-search"
        />
        <Select
          label={t('users.fields.accessRole')}
          placeholder={t('users.allRoles')}
          data={roles}
          value={accessRole}
          onChange={(value) => update({ accessRole: value, page: null })}
          clearable
          w={{ base: '100%', sm: 200 }}
        />
      </Group>
      <LoadError error={list.error} />
      {list.isPending && <BusyOverlay />}
      {list.data && (
        <>
          <Table.ScrollContainer minWidth={960}>
            <Table striped highlightOnHover verticalSpacing="xs" data-testid="user-table">
              <Table.Thead>
                <Table.Tr>
                  {header('email', t('users.fields.email'))}
                  {header('lastName', t('users.columns.name'))}
                  {header('company', t('users.fields.company'))}
                  <Table.Th>{t('users.fields.country')}</Table.Th>
                  {header('accessRole', t('users.fields.accessRole'))}
                  <Table.Th>{t('users.columns.registration')}</Table.Th>
                  {header('createdAt', t('users.columns.created'))}
                  <Table.Th className={rowActions.cell}>
                    <VisuallyHidden>{t('common.actions')}</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data.items.map((user) => (
                  <UserRow key={user.id} user={user} onEdit={setEditing} />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {list.data.items.length === 0 && <Text c="dimmed">{t('users.none')}</Text>}
          <Group justify="space-between">
            <Text size="sm" c="dimmed" data-testid="user-count">
              {countText('users.count', list.data)}
            </Text>
            <ListPager paging={paging} data={list.data} />
          </Group>
        </>
      )}
      {editing && <UserEditModal user={editing} onClose={() => setEditing(null)} />}
    </Stack>
  );
}
