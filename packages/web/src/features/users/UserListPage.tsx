import { useCallback, useEffect, useState } from 'react';
import { Button, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { LIST_FILTER_MAX_LENGTH, ROLES, SELECT_SEARCH_DEBOUNCE_MS, type OrganizationRef, type Role, type User } from '@lm/contract';
import { BusyOverlay } from '../../components/BusyOverlay.tsx';
import { ListPager, useCountText } from '../../components/ListPager.tsx';
import { useListPaging } from '../../lib/list-paging.ts';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useRoleOptions } from '../../components/UserFormFields.tsx';
import { useAbility, useAuth } from '../../lib/auth.ts';
import { OrganizationSelect } from '../../components/OrganizationSelect.tsx';
import { USERS_KEY, usersApi } from './api.ts';
import { UserEditModal } from './UserEditModal.tsx';
import { useUserColumns } from './user-columns.tsx';
import { DataTable } from '../../components/data-table/DataTable.tsx';
import { LoadError } from '../../components/LoadError.tsx';

/** `/users`: the accounts with search, role filter, sorting and pages; the state lives in the URL. */
export default function UserListPage() {
  const { t } = useTranslation();
  const ability = useAbility();
  const { user: me } = useAuth();
  const roles = useRoleOptions();
  const [params, setParams] = useSearchParams();
  const [search, setSearch] = useState(params.get('filter') ?? '');
  const [filter] = useDebouncedValue(search.trim(), SELECT_SEARCH_DEBOUNCE_MS);
  const [editing, setEditing] = useState<User | null>(null);
  const [organization, setOrganization] = useState<OrganizationRef | null>(null);
  const organizationId = organization?.id;
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
  const paging = useListPaging(JSON.stringify([filter, sort, accessRole, organizationId]));
  const countText = useCountText();
  const list = useQuery({
    queryKey: [...USERS_KEY, 'list', { filter: filter, sort, accessRole, organizationId, ...paging.request }],
    queryFn: ({ signal }) => usersApi.list({ ...paging.request, limit: paging.limit, filter: filter, sort, accessRole, organizationId }, signal),
    placeholderData: keepPreviousData,
  });
  const columns = useUserColumns(setEditing);

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
        {/* Every organization is listed to administrators only (GET /api/organizations?all=true). */}
        {me?.accessRole === 'ADMIN' && <OrganizationSelect value={organization} onChange={setOrganization} w={{ base: '100%', sm: 240 }} />}
      </Group>
      <LoadError error={list.error} />
      {list.isPending && <BusyOverlay />}
      {list.data && (
        <>
          <DataTable
            id="users"
            columns={columns}
            items={list.data.items}
            rowKey={(user) => user.id}
            rowProps={(user) => ({ 'data-testid': `user-row-${user.id}` })}
            sort={sort}
            onSort={(next) => update({ sort: next, page: null })}
            busy={list.isFetching}
            testId="user-table"
          />
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
