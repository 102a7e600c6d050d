import { useState } from 'react';
import { Anchor, Badge, Button, Checkbox, Group, SegmentedControl, Select, Stack, Text, TextInput, Tooltip, VisuallyHidden } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconBan, IconClockX, IconPencil, IconSearch } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { asSubject, LIST_FILTER_MAX_LENGTH, SELECT_SEARCH_DEBOUNCE_MS, type OrganizationRef } from '@lm/contract';
import { freeUpdatesState, todayOf } from '@lm/contract/license';
import { formatTanCode } from '@lm/contract/tan';
import { TAN_ATTENTION_STATES, type TanAttentionState } from '@lm/contract/dashboard';
import { ListPager, useCountText } from '../../components/ListPager.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useListPaging } from '../../lib/list-paging.ts';
import { policyLabel } from '../../lib/license-policies.ts';
import { useAbility, useAuth } from '../../lib/auth.ts';
import { useTanLimits, useTans, useTanTags, useUpdateTan, type TanItem } from './api/tans.ts';
import { TanEditModal } from './components/TanEditModal.tsx';
import { TanLicensesModal } from './components/TanLicensesModal.tsx';
import { TagBadges } from './components/TagBadges.tsx';
import { confirmDanger } from '../../components/confirm-danger.tsx';
import { formatDate, formatNumber } from '../../lib/format.ts';
import { LoadError } from '../../components/LoadError.tsx';
import { DataTable, type DataColumn } from '../../components/data-table/DataTable.tsx';
import { RowAction } from '../../components/RowAction.tsx';
import { OrganizationSelect } from '../../components/OrganizationSelect.tsx';

type RevokedFilter = 'all' | 'active' | 'revoked';

const attentionState = (value: string | null): TanAttentionState | null => (TAN_ATTENTION_STATES as readonly (string | null)[]).includes(value) ? (value as TanAttentionState) : null;

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
  // `?state=` opens the TANs that need someone (the staff home's figures link so).
  const [state, setState] = useState<TanAttentionState | null>(() => attentionState(searchParams.get('state')));
  const [organization, setOrganization] = useState<OrganizationRef | null>(null);
  const [sort, setSort] = useState('-createdAt');
  const [editing, setEditing] = useState<TanItem | null>(null);
  const [activations, setActivations] = useState<TanItem | null>(null);
  const tags = useTanTags();
  const limits = useTanLimits();
  const update = useUpdateTan();
  const paging = useListPaging(JSON.stringify([filter, tag, revoked, state, organization?.id, sort]));
  const countText = useCountText();
  const { data, isFetching, error } = useTans({
    filter: filter || undefined,
    tag: tag ?? undefined,
    revoked: revoked === 'all' ? undefined : revoked === 'revoked',
    state: state ?? undefined,
    organizationId: organization?.id,
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
      // With licenses activated, the text must not say they stay while the box below revokes them.
      text: t(tan.activatedCount > 0 ? 'tans.revokeTextActivated' : 'tans.revokeText', { code: formatTanCode(tan.code) }),
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
    // Only the date and an icon: the words would widen the column past a laptop's window in German.
    if (state === 'expired')
      return (
        <Tooltip label={t('tans.expiredOn', { date: text })}>
          <Badge color="red" variant="light" tt="none" leftSection={<IconClockX size={12} aria-hidden />}>
            <VisuallyHidden>{t('tans.expiredOn', { date: text })}</VisuallyHidden>
            <span aria-hidden>{text}</span>
          </Badge>
        </Tooltip>
      );
    if (state === 'expiring') return <Badge color="yellow" variant="light">{text}</Badge>;
    return text;
  };

  const columns: DataColumn<TanItem>[] = [
    { key: 'code', label: t('tans.code'), kind: 'fit', sortField: 'code', render: (tan) => <Text span ff="monospace" size="sm">{formatTanCode(tan.code)}</Text> },
    {
      key: 'state',
      label: t('tans.state'),
      kind: 'fit',
      // Nothing when the TAN is plainly active: a phone's card then leaves the line out.
      render: (tan) =>
        (tan.revoked || tan.suspended || tan.validUntil) && (
        <Group gap={4} wrap="nowrap">
          {tan.revoked && (
            <Badge color="red" size="sm">
              {t('tans.revoked')}
            </Badge>
          )}
          {tan.suspended && !tan.revoked && (
            <Badge color="orange" size="sm">
              {t('tans.suspended')}
            </Badge>
          )}
          {tan.validUntil && !tan.revoked && (
            <Badge color={tan.validUntil < today ? 'red' : 'blue'} variant="light" size="sm" tt="none">
              {t('tans.validUntilBadge', { date: formatDate(tan.validUntil) })}
            </Badge>
          )}
        </Group>
      ),
    },
    // What people scan the list for gets the room first (issue 49): tags, then the product, then the policy.
    { key: 'product', label: t('tans.product'), grow: 1.5, render: (tan) => tan.productName },
    {
      key: 'policy',
      label: t('tans.policy'),
      text: (tan) => (tan.licensePolicyName ? policyLabel({ name: tan.licensePolicyName }, t) : t('tans.policyFromProduct')),
      render: (tan) =>
        tan.licensePolicyName ? (
          policyLabel({ name: tan.licensePolicyName }, t)
        ) : (
          // The short word on every row; the whole phrase on hover.
          <Text span size="sm" c="dimmed" title={t('tans.policyFromProduct')}>
            {t('tableFit.productDefault')}
          </Text>
        ),
    },
    {
      key: 'activations',
      label: t('tans.activations'),
      kind: 'fit',
      sortField: 'activatedCount',
      render: (tan) => (
        <Anchor component="button" type="button" size="sm" onClick={() => setActivations(tan)} aria-label={t('tans.showActivationsOf', { count: tan.activatedCount })}>
          {formatNumber(tan.activatedCount)}
        </Anchor>
      ),
    },
    {
      key: 'licenseCount',
      label: t('tans.licenseCount'),
      kind: 'fit',
      sortField: 'licenseCount',
      render: (tan) => (
        <>
          {tan.licenseCount}
          {/* A floating TAN's count is seats in use at once; any number of machines may join. */}
          {tan.policyType === 'FLOATING' && (
            <Text span size="xs" c="dimmed" ml={4}>
              {t('tans.seats', { count: tan.licenseCount })}
            </Text>
          )}
        </>
      ),
    },
    // A distributor sees only its own TANs: the column would repeat its own name.
    ...(canChooseDistributor ? [{ key: 'distributor', label: t('tans.distributor'), render: (tan: TanItem) => tan.distributorName ?? '–' }] : []),
    { key: 'freeUpdatesUntil', label: t('tans.freeUpdatesUntil'), kind: 'fit', sortField: 'freeUpdatesUntil', render: (tan) => freeUpdatesBadge(tan.freeUpdatesUntil) },
    {
      key: 'tags',
      label: t('tans.tags'),
      grow: 2,
      text: (tan) => tan.tags.join(', '),
      render: (tan) => <TagBadges tags={tan.tags} onChoose={resetPage(setTag)} />,
    },
    { key: 'organization', label: t('organizations.column'), hiddenByDefault: true, render: (tan) => tan.organization?.name ?? '–' },
    { key: 'notes', label: t('tans.notes'), hiddenByDefault: true, render: (tan) => tan.notes ?? '' },
    { key: 'createdAt', label: t('tans.created'), kind: 'fit', sortField: 'createdAt', render: (tan) => formatDate(tan.createdAt) },
    {
      key: 'actions',
      label: t('common.actions'),
      render: (tan) => {
        const canUpdate = ability.can('update', tanSubject(tan));
        const code = formatTanCode(tan.code);
        return (
          <Group gap={2} wrap="nowrap">
            <RowAction label={t('common.edit')} subject={code} icon={<IconPencil size={18} />} disabled={!canUpdate} onClick={() => setEditing(tan)} />
            <RowAction label={t('tans.revoke')} subject={code} icon={<IconBan size={18} />} color="red" disabled={!canUpdate || tan.revoked} onClick={() => revoke(tan)} />
          </Group>
        );
      },
    },
  ];

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
        <Select
          label={t('dashboard.tanFilter')}
          data={TAN_ATTENTION_STATES.map((value) => ({ value, label: t(`dashboard.tanStates.${value}`) }))}
          value={state}
          onChange={(value) => resetPage(setState)(attentionState(value))}
          clearable
          w={{ base: '100%', sm: 220 }}
          data-testid="tan-attention-filter"
        />
        {/* Every organization is listed to administrators only (GET /api/organizations?all=true). */}
        {user?.accessRole === 'ADMIN' && <OrganizationSelect value={organization} onChange={resetPage(setOrganization)} w={{ base: '100%', sm: 220 }} />}
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
        {/* Beside the filters, not on a line of its own: the room goes to rows (issue 38). */}
        <Text size="sm" c="dimmed" aria-live="polite" ml="auto" mb={6}>
          {countText('tans.totalCount', data)}
        </Text>
      </Group>
      <LoadError error={error} />
      <DataTable
        id="tans"
        columns={columns}
        items={data?.items}
        rowKey={(tan) => tan.id}
        rowProps={() => ({ 'data-testid': 'tan-row' })}
        sort={sort}
        onSort={resetPage(setSort)}
        busy={isFetching}
        testId="tan-table"
      />
      {data && data.totalCount === 0 && <Text c="dimmed">{t('tans.noTans')}</Text>}
      <ListPager paging={paging} data={data} />
      {editing && <TanEditModal tan={editing} maxLicenseCount={limits.data?.maxLicenseCount} canChooseDistributor={canChooseDistributor} onClose={() => setEditing(null)} />}
      {activations && <TanLicensesModal tan={activations} onClose={() => setActivations(null)} />}
    </Stack>
  );
}
