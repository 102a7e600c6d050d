import { useState } from 'react';
import { Anchor, Badge, Button, Checkbox, Group, SegmentedControl, Select, Stack, Table, Text, TextInput, Tooltip, UnstyledButton } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconChevronDown, IconChevronUp, IconSearch, IconSelector } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { asSubject, LIST_FILTER_MAX_LENGTH, SELECT_SEARCH_DEBOUNCE_MS } from '@lm/contract';
import { freeUpdatesState, todayOf } from '@lm/contract/license';
import { formatTanCode, TAN_SORT_FIELDS } from '@lm/contract/tan';
import { ListPager, useCountText } from '../../components/ListPager.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useListPaging } from '../../lib/list-paging.ts';
import { policyLabel } from '../../lib/license-policies.ts';
import { useAbility, useAuth } from '../../lib/auth.ts';
import { useTanLimits, useTans, useTanTags, useUpdateTan, type TanItem } from './api/tans.ts';
import { TanEditModal } from './components/TanEditModal.tsx';
import { TanLicensesModal } from './components/TanLicensesModal.tsx';
import { confirmDanger } from '../../components/confirm-danger.tsx';
import { formatDate, formatNumber } from '../../lib/format.ts';
import { LoadError } from '../../components/LoadError.tsx';
import rowActions from '../../components/RowActions.module.css';

type SortField = (typeof TAN_SORT_FIELDS)[number];
type RevokedFilter = 'all' | 'active' | 'revoked';

function SortHeader({ field, sort, onSort, label }: { field: SortField; sort: string; onSort: (sort: string) => void; label: string }) {
  const active = sort === field || sort === `-${field}`;
  const Icon = !active ? IconSelector : sort.startsWith('-') ? IconChevronDown : IconChevronUp;
  return (
    <Table.Th aria-sort={active ? (sort.startsWith('-') ? 'descending' : 'ascending') : undefined}>
      <UnstyledButton onClick={() => onSort(sort === field ? `-${field}` : field)} fw={700} fz="sm">
        <Group gap={4} wrap="nowrap">
          {label}
          <Icon size={14} />
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
}

/** A TAN as the permission rules see it. */
const tanSubject = (tan: TanItem) => asSubject('Tan', { distributorId: tan.distributorId } as Record<string, unknown>);

/** `/tans`: the TAN list with filter, tag filter, revoked state, sort, activations, edit and revoke. */
export default function TanListPage() {
  const { t } = useTranslation();
  const ability = useAbility();
  const { user } = useAuth();
  // `?filter=` opens the list searched (the Orders page links a TAN so).
  const [searchParams] = useSearchParams();
  const [search, setSearch] = useState(() => searchParams.get('filter') ?? '');
  const [filter] = useDebouncedValue(search, SELECT_SEARCH_DEBOUNCE_MS);
  const [tag, setTag] = useState<string | null>(null);
  const [revoked, setRevoked] = useState<RevokedFilter>('all');
  const [sort, setSort] = useState('-createdAt');
  const [editing, setEditing] = useState<TanItem | null>(null);
  const [activations, setActivations] = useState<TanItem | null>(null);
  const tags = useTanTags();
  const limits = useTanLimits();
  const update = useUpdateTan();
  const paging = useListPaging(JSON.stringify([filter, tag, revoked, sort]));
  const countText = useCountText();
  const { data, isFetching, error } = useTans({
    filter: filter || undefined,
    tag: tag ?? undefined,
    revoked: revoked === 'all' ? undefined : revoked === 'revoked',
    ...paging.request,
    limit: paging.limit,
    sort,
  });
  const today = todayOf();
  const canChooseDistributor = user?.accessRole !== 'DISTRIBUTOR';
  // Changing a filter or the sort starts at page 1 again (useListPaging).
  const resetPage = <T,>(set: (value: T) => void) => set;

  const revoke = (tan: TanItem) => {
    // A leaked or refunded TAN: its licenses may go with it (DESIGN.md section 6), asked with their count.
    let revokeLicenses = false;
    confirmDanger({
      title: t('tans.revokeTitle'),
      text: t('tans.revokeText', { code: formatTanCode(tan.code) }),
      extra:
        tan.activatedCount > 0 ? (
          <Checkbox mt="sm" label={t('tans.revokeLicenses', { count: tan.activatedCount })} onChange={(event) => (revokeLicenses = event.currentTarget.checked)} />
        ) : undefined,
      confirmLabel: t('tans.revoke'),
      run: () => update.mutateAsync({ id: tan.id, body: { revoked: true, ...(revokeLicenses ? { revokeLicenses: true } : {}) } }),
      done: t('tans.revokedDone'),
      failedKey: 'tans.updateFailed',
    });
  };

  const freeUpdatesBadge = (date: string | null) => {
    const state = freeUpdatesState(date, today);
    if (!date) return '–';
    const text = formatDate(date);
    if (state === 'expired') return <Badge color="red" variant="light">{t('tans.expiredOn', { date: text })}</Badge>;
    if (state === 'expiring') return <Badge color="yellow" variant="light">{text}</Badge>;
    return text;
  };

  return (
    <Stack>
      <PageTitle
        title={t('pages.tans')}
        actions={
          ability.can('create', 'Tan') && (
            <Button component={Link} to="/tans/create">
              {t('tans.createLink')}
            </Button>
          )
        }
      />
      <Group align="end" wrap="wrap">
        <TextInput
          label={t('tans.filter')}
          placeholder="xxxx-xxxx-xxxx"
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(event) => resetPage(setSearch)(event.currentTarget.value)}
          maxLength={LIST_FILTER_MAX_LENGTH}
          w={{ base: '100%', sm: 240 }}
        />
        <Select label={t('tans.tagFilter')} data={tags.data?.items ?? []} value={tag} onChange={resetPage(setTag)} clearable searchable w={{ base: '100%', sm: 200 }} />
        <SegmentedControl
          value={revoked}
          onChange={(value) => resetPage(setRevoked)(value as RevokedFilter)}
          data={[
            { value: 'all', label: t('tans.all') },
            { value: 'active', label: t('tans.notRevoked') },
            { value: 'revoked', label: t('tans.revokedOnes') },
          ]}
          aria-label={t('tans.revokedFilter')}
        />
      </Group>
      <Text size="sm" c="dimmed" aria-live="polite">
        {countText('tans.totalCount', data)}
      </Text>
      <LoadError error={error} />
      <Table.ScrollContainer minWidth={1100}>
        <Table striped highlightOnHover style={{ opacity: isFetching ? 0.7 : 1 }}>
          <Table.Thead>
            <Table.Tr>
              <SortHeader field="code" sort={sort} onSort={resetPage(setSort)} label={t('tans.code')} />
              <Table.Th>{t('tans.product')}</Table.Th>
              <Table.Th>{t('tans.policy')}</Table.Th>
              <SortHeader field="activatedCount" sort={sort} onSort={resetPage(setSort)} label={t('tans.activations')} />
              <SortHeader field="licenseCount" sort={sort} onSort={resetPage(setSort)} label={t('tans.licenseCount')} />
              {/* A distributor sees only its own TANs: the column would repeat its own name. */}
              {canChooseDistributor && <Table.Th>{t('tans.distributor')}</Table.Th>}
              <SortHeader field="freeUpdatesUntil" sort={sort} onSort={resetPage(setSort)} label={t('tans.freeUpdatesUntil')} />
              <Table.Th>{t('tans.tags')}</Table.Th>
              <SortHeader field="createdAt" sort={sort} onSort={resetPage(setSort)} label={t('tans.created')} />
              <Table.Th className={rowActions.pinned}>{t('common.actions')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data?.items.map((tan) => {
              const canUpdate = ability.can('update', tanSubject(tan));
              return (
                <Table.Tr key={tan.id} data-testid="tan-row">
                  <Table.Td ff="monospace" style={{ whiteSpace: 'nowrap' }}>
                    {formatTanCode(tan.code)}
                    {/* Under the code, not beside it: beside it, it ran into the product column. */}
                    {tan.revoked && (
                      <Badge color="red" size="sm" display="block" w="fit-content" mt={4}>
                        {t('tans.revoked')}
                      </Badge>
                    )}
                    {tan.suspended && !tan.revoked && (
                      <Badge color="orange" size="sm" display="block" w="fit-content" mt={4}>
                        {t('tans.suspended')}
                      </Badge>
                    )}
                    {tan.validUntil && !tan.revoked && (
                      <Badge color={tan.validUntil < today ? 'red' : 'blue'} variant="light" size="sm" display="block" w="fit-content" mt={4} tt="none" ff="var(--mantine-font-family)">
                        {t('tans.validUntilBadge', { date: formatDate(tan.validUntil) })}
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td>{tan.productName}</Table.Td>
                  <Table.Td>
                    {tan.licensePolicyName ? (
                      policyLabel({ name: tan.licensePolicyName }, t)
                    ) : (
                      <Text span size="sm" c="dimmed">
                        {t('tans.policyFromProduct')}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Anchor component="button" type="button" onClick={() => setActivations(tan)} aria-label={t('tans.showActivationsOf', { count: tan.activatedCount })}>
                      {formatNumber(tan.activatedCount)}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    {tan.licenseCount}
                    {/* A floating TAN's count is seats in use at once; any number of machines may join. */}
                    {tan.policyType === 'FLOATING' && (
                      <Text span size="xs" c="dimmed" ml={4}>
                        {t('tans.seats', { count: tan.licenseCount })}
                      </Text>
                    )}
                  </Table.Td>
                  {canChooseDistributor && (
                    <Table.Td miw={120} maw={200}>
                      <Text size="sm" lineClamp={2} title={tan.distributorName ?? undefined}>
                        {tan.distributorName ?? '–'}
                      </Text>
                    </Table.Td>
                  )}
                  <Table.Td>{freeUpdatesBadge(tan.freeUpdatesUntil)}</Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      {tan.tags.map((value) => (
                        <Badge key={value} component="button" type="button" variant="light" size="sm" tt="none" style={{ cursor: 'pointer', border: 0 }} onClick={() => resetPage(setTag)(value)}>
                          {value}
                        </Badge>
                      ))}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Tooltip label={tan.notes} disabled={!tan.notes}>
                      <span>{formatDate(tan.createdAt)}</span>
                    </Tooltip>
                  </Table.Td>
                  <Table.Td className={rowActions.pinned}>
                    <Group gap="xs" wrap="nowrap">
                      <Button size="xs" variant="light" disabled={!canUpdate} onClick={() => setEditing(tan)}>
                        {t('common.edit')}
                      </Button>
                      <Button size="xs" variant="light" color="red" disabled={!canUpdate || tan.revoked} onClick={() => revoke(tan)}>
                        {t('tans.revoke')}
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {data && data.totalCount === 0 && <Text c="dimmed">{t('tans.noTans')}</Text>}
      <ListPager paging={paging} data={data} />
      {editing && <TanEditModal tan={editing} maxLicenseCount={limits.data?.maxLicenseCount} canChooseDistributor={canChooseDistributor} onClose={() => setEditing(null)} />}
      {activations && <TanLicensesModal tan={activations} onClose={() => setActivations(null)} />}
    </Stack>
  );
}
