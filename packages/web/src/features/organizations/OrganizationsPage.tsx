import { useState } from 'react';
import { Anchor, Badge, Button, Group, Loader, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Organization } from '@lm/contract/organization';
import { DataTable, type DataColumn } from '../../components/data-table/DataTable.tsx';
import { LoadError } from '../../components/LoadError.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { showError, showSuccess } from '../../lib/notify.ts';
import { useCreateOrganization, useOrganizations } from './api.ts';

/** `/organizations`: the caller's organizations, with their role, and a new one (the caller its owner). */
export default function OrganizationsPage() {
  const { t } = useTranslation();
  const organizations = useOrganizations();
  const create = useCreateOrganization();
  const [name, setName] = useState('');
  const [company, setCompany] = useState('');

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    try {
      const created = await create.mutateAsync({ name, company: company || null });
      setName('');
      setCompany('');
      showSuccess(t('organizations.created', { name: created.name }));
    } catch (error) {
      showError(error, 'organizations.failed');
    }
  };

  const columns: DataColumn<Organization>[] = [
    {
      key: 'name',
      label: t('organizations.name'),
      render: (organization) => (
        <Anchor component={Link} to={`/organizations/${organization.id}`} data-testid="organization-link">
          {organization.name}
        </Anchor>
      ),
    },
    { key: 'company', label: t('organizations.company'), render: (organization) => organization.company ?? '' },
    { key: 'role', label: t('organizations.role'), kind: 'fit', render: (organization) => (organization.role ? <Badge variant="light">{t(`organizations.roles.${organization.role}`)}</Badge> : '') },
    { key: 'members', label: t('organizations.members'), kind: 'fit', render: (organization) => String(organization.memberCount) },
  ];

  return (
    <Stack>
      <PageTitle title={t('organizations.title')} />
      <Text size="sm">{t('organizations.explain')}</Text>
      {organizations.isPending ? (
        <Loader aria-label={t('common.loading')} />
      ) : organizations.isError ? (
        <LoadError error={organizations.error} />
      ) : organizations.data.items.length ? (
        <DataTable id="organizations" testId="organizations" columns={columns} items={organizations.data.items} rowKey={(organization) => organization.id} />
      ) : (
        <Text c="dimmed" data-testid="list-empty">
          {t('organizations.none')}
        </Text>
      )}
      <Paper withBorder p="lg" radius="md" maw={560}>
        <Title order={2} size="h4" mb="sm">
          {t('organizations.create')}
        </Title>
        <form onSubmit={(event) => void submit(event)} data-testid="organization-form">
          <Stack>
            <TextInput label={t('organizations.name')} required value={name} onChange={(event) => setName(event.currentTarget.value)} />
            <TextInput label={t('organizations.company')} value={company} onChange={(event) => setCompany(event.currentTarget.value)} />
            <Group>
              <Button type="submit" loading={create.isPending} disabled={name.trim().length < 2}>
                {t('organizations.create')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
    </Stack>
  );
}
