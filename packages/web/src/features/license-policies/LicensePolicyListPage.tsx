import { useState } from 'react';
import { Badge, Button, Group, Modal, Paper, SegmentedControl, Text, useMatches } from '@mantine/core';
import { IconPencil, IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { POLICY_TYPES, type LicensePolicy, type PolicyType } from '@lm/contract/license-policy';
import { ChangeLogLink } from '../../components/ChangeLogLink.tsx';
import { ListTable, type ListColumn } from '../../components/ListTable.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useAbility } from '../../lib/auth.ts';
import { currentLocale } from '../../lib/i18n.ts';
import { grantsSummary } from '../../lib/grants-text.ts';
import { formatDuration, policyLabel } from '../../lib/license-policies.ts';
import { useListState } from '../../lib/list-state.ts';
import { useLicensePolicyList } from './api/list-license-policies.ts';
import { LicensePolicyForm } from './LicensePolicyForm.tsx';
import { freeUpdatesLabel } from './policy-options.ts';
import { ListSearch } from '../../components/ListSearch.tsx';
import { RowAction } from '../../components/RowAction.tsx';

const TYPE_COLORS: Record<PolicyType, string> = { INDEFINITE: 'grape', PERPETUAL: 'blue', FLOATING: 'teal' };

/** The license policy list: search, filter by type, sort, edit in a dialog. */
export default function LicensePolicyListPage() {
  const { t } = useTranslation();
  const orientation = useMatches<'vertical' | 'horizontal'>({ base: 'vertical', xs: 'horizontal' });
  const ability = useAbility();
  const state = useListState('name');
  const [type, setType] = useState('');
  const { data, isFetching, error } = useLicensePolicyList({ ...state.query, type: type || undefined });
  const [editing, setEditing] = useState<LicensePolicy | null>(null);
  const locale = currentLocale();

  const columns: ListColumn<LicensePolicy>[] = [
    {
      key: 'name',
      label: t('catalogue.policy.name'),
      sortField: 'name',
      // A cut cell's tooltip: the name, the internal one and the grants, apart (not run together).
      text: (policy) =>
        [policyLabel(policy, t), policy.builtIn ? policy.name : '', policy.entitlements.length ? t('catalogue.policy.grantsSummary', { grants: grantsSummary(policy.entitlements) }) : '']
          .filter(Boolean)
          .join(' — '),
      render: (policy) => (
        <>
          <Text fw={500} size="sm">
            {policyLabel(policy, t)}
          </Text>
          {policy.builtIn && (
            <Text size="xs" c="dimmed">
              {policy.name}
            </Text>
          )}
          {policy.entitlements.length > 0 && (
            <Text size="xs" c="dimmed" lineClamp={2} style={{ overflowWrap: 'anywhere' }} data-testid="policy-grants">
              {t('catalogue.policy.grantsSummary', { grants: grantsSummary(policy.entitlements) })}
            </Text>
          )}
        </>
      ),
    },
    {
      key: 'type',
      label: t('catalogue.policy.type'),
      kind: 'fit',
      sortField: 'type',
      render: (policy) => (
        <Badge color={TYPE_COLORS[policy.type]} variant="light">
          {t(`catalogue.policy.types.${policy.type}`)}
        </Badge>
      ),
    },
    { key: 'publicName', label: t('catalogue.policy.publicName'), render: (policy) => policy.publicName[locale] ?? policy.publicName.en ?? '' },
    {
      key: 'validity',
      label: t('catalogue.policy.licenseMaxValid'),
      kind: 'fit',
      sortField: 'licenseMaxValidDays',
      render: (policy) => t('catalogue.duration.days', { count: policy.licenseMaxValidDays }),
    },
    {
      key: 'refetch',
      label: t('catalogue.policy.refetch'),
      kind: 'wrap',
      render: (policy) => `${formatDuration(policy.refetchIntervalSeconds, t)} / ${formatDuration(policy.refetchBeforeExpirySeconds, t)}`,
    },
    {
      key: 'machines',
      label: t('catalogue.policy.machines'),
      kind: 'wrap',
      render: (policy) => t('catalogue.policy.machinesValue', { count: policy.maxDifferentMachinesCount, interval: formatDuration(policy.maxDifferentMachinesIntervalHours * 3600, t) }),
    },
    { key: 'freeUpdates', label: t('catalogue.policy.freeUpdatesPeriod'), kind: 'wrap', render: (policy) => freeUpdatesLabel(policy.freeUpdatesPeriodDays, t) },
  ];
  // Readers who may change nothing (distributors) get no empty Actions column.
  if (ability.can('update', 'LicensePolicy')) {
    columns.push({
      key: 'actions',
      label: t('common.actions'),
      render: (policy) => <RowAction label={t('common.edit')} subject={policy.name} icon={<IconPencil size={18} />} onClick={() => setEditing(policy)} />,
    });
  }

  return (
    <>
      <PageTitle
        title={t('pages.licensePolicies')}
        actions={
          ability.can('create', 'LicensePolicy') && (
            <Button component={Link} to="/license-policies/create" leftSection={<IconPlus size={16} />}>
              {t('pages.licensePolicyCreate')}
            </Button>
          )
        }
      />
      <Paper withBorder p="md">
        <Group mb="sm" gap="sm">
          <ListSearch state={state} />
          <SegmentedControl
            // Four types side by side do not fit a phone in German ("Unbefristet"): one above the other there.
            orientation={orientation}
            value={type}
            onChange={(value) => {
              setType(value);
              state.setOffset(0);
            }}
            data={[{ value: '', label: t('catalogue.all') }, ...POLICY_TYPES.map((value) => ({ value, label: t(`catalogue.policy.types.${value}`) }))]}
          />
        </Group>
        <ListTable id="license-policies" columns={columns} items={data?.items} totalCount={data?.totalCount} loading={isFetching} error={error} state={state} rowKey={(policy) => policy.id} />
      </Paper>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={editing ? t('catalogue.policy.editTitle', { name: policyLabel(editing, t) }) : ''} size="xl">
        {editing && (
          <>
            <ChangeLogLink model="LicensePolicy" recordId={editing.id} />
            <LicensePolicyForm policy={editing} onSaved={() => setEditing(null)} onCancel={() => setEditing(null)} />
          </>
        )}
      </Modal>
    </>
  );
}
