import { useState } from 'react';
import { Anchor, Badge, Button, Code, Group, Paper, SegmentedControl, Text } from '@mantine/core';
import { IconKey, IconPlus, IconTrash } from '@tabler/icons-react';
import { Trans, useTranslation } from 'react-i18next';
import type { ApiToken, ApiTokenCreated } from '@lm/contract/api-token';
import { confirmDanger } from '../../components/confirm-danger.tsx';
import { ListSearch } from '../../components/ListSearch.tsx';
import { ListTable, type ListColumn } from '../../components/ListTable.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { RowAction } from '../../components/RowAction.tsx';
import { ShownOnce } from '../../components/ShownOnce.tsx';
import { useAbility, useAuth } from '../../lib/auth.ts';
import { currentLocale } from '../../lib/i18n.ts';
import { useListState } from '../../lib/list-state.ts';
import { useApiTokenList, useRevokeApiToken } from './api/api-tokens.ts';
import { CreateTokenDialog } from './CreateTokenDialog.tsx';

const when = (value: Date | string | null) => (value ? new Date(value).toLocaleString(currentLocale(), { dateStyle: 'medium', timeStyle: 'short' }) : '');

/** My account → API tokens: create (shown once, with a copy button), list and revoke; administrators see every account's. */
export default function ApiTokensPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const ability = useAbility();
  const seesAll = ability.can('delete', 'ApiToken') && ability.rulesFor('delete', 'ApiToken').some((rule) => !rule.conditions);
  const [scope, setScope] = useState<'mine' | 'all'>('mine');
  const state = useListState('-createdAt');
  const { data, isFetching, error } = useApiTokenList({ ...state.query, ownerId: seesAll && scope === 'mine' ? user?.id : undefined });
  const revoke = useRevokeApiToken();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<ApiTokenCreated | null>(null);

  const confirmRevoke = (token: ApiToken) =>
    confirmDanger({
      title: t('apiTokens.revokeTitle'),
      text: t('apiTokens.revokeText', { name: token.name }),
      confirmLabel: t('apiTokens.revoke'),
      confirmTestId: 'confirm-revoke',
      run: () => revoke.mutateAsync(token.id),
      done: t('apiTokens.revoked', { name: token.name }),
      failedKey: 'apiTokens.revokeFailed',
    });

  const columns: ListColumn<ApiToken>[] = [
    {
      key: 'name',
      label: t('apiTokens.name'),
      sortField: 'name',
      render: (token) => (
        <>
          <IconKey size={16} aria-hidden style={{ verticalAlign: 'text-bottom', marginRight: 6 }} />
          <Text span fw={500} size="sm">
            {token.name}
          </Text>
        </>
      ),
    },
    ...(seesAll && scope === 'all' ? [{ key: 'owner', label: t('apiTokens.owner'), render: (token: ApiToken) => token.ownerName }] : []),
    { key: 'createdAt', label: t('apiTokens.createdAt'), kind: 'fit', sortField: 'createdAt', render: (token) => when(token.createdAt) },
    { key: 'lastUsedAt', label: t('apiTokens.lastUsedAt'), kind: 'fit', sortField: 'lastUsedAt', render: (token) => when(token.lastUsedAt) || <Text c="dimmed" size="sm">{t('apiTokens.neverUsed')}</Text> },
    {
      key: 'expiresAt',
      label: t('apiTokens.expiresAt'),
      kind: 'fit',
      sortField: 'expiresAt',
      render: (token) =>
        token.expiresAt === null ? (
          <Text c="dimmed" size="sm">
            {t('apiTokens.noExpiry')}
          </Text>
        ) : new Date(token.expiresAt).getTime() <= Date.now() ? (
          <Badge color="red" variant="light">
            {t('apiTokens.expired')}
          </Badge>
        ) : (
          when(token.expiresAt)
        ),
    },
    {
      key: 'actions',
      label: t('common.actions'),
      render: (token) => <RowAction label={t('apiTokens.revoke')} subject={token.name} icon={<IconTrash size={18} />} color="red" onClick={() => confirmRevoke(token)} testId="revoke-token" />,
    },
  ];

  return (
    <>
      <PageTitle
        title={t('apiTokens.title')}
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)} data-testid="new-token">
            {t('apiTokens.create')}
          </Button>
        }
      />
      <Text size="sm" mb="md" maw={760}>
        <Trans i18nKey="apiTokens.intro" components={{ code: <Code />, docs: <Anchor href="/api/docs" target="_blank" /> }} />
      </Text>
      {created && (
        <ShownOnce
          title={t('apiTokens.createdTitle', { name: created.name })}
          hint={t('apiTokens.shownOnce')}
          label={t('apiTokens.token')}
          value={created.token}
          onDone={() => setCreated(null)}
          testId="created-token"
        />
      )}
      <Paper withBorder p="md">
        <Group justify="space-between" mb="sm" wrap="wrap">
          <ListSearch state={state} />
          {seesAll && (
            <SegmentedControl
              value={scope}
              onChange={(value) => {
                setScope(value as 'mine' | 'all');
                state.setOffset(0);
              }}
              data={[
                { value: 'mine', label: t('apiTokens.mine') },
                { value: 'all', label: t('apiTokens.allAccounts') },
              ]}
            />
          )}
        </Group>
        <ListTable id="api-tokens" columns={columns} items={data?.items} totalCount={data?.totalCount} loading={isFetching} error={error} state={state} rowKey={(token) => token.id} emptyText={t('apiTokens.none')} />
      </Paper>
      <CreateTokenDialog
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={(token) => {
          setCreating(false);
          setCreated(token);
        }}
      />
    </>
  );
}
