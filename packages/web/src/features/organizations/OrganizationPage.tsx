import { Loader, Paper, Stack, Tabs, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { managesOrganization } from '@lm/contract/organization';
import { LoadError } from '../../components/LoadError.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useOrganization } from './api.ts';
import { MembersSection } from './MembersSection.tsx';
import { SeatsSection } from './SeatsSection.tsx';

/** `/organizations/:id`: members and invitations, TANs, seats and licenses of one organization. */
export default function OrganizationPage() {
  const { t } = useTranslation();
  const id = Number(useParams().organizationId);
  const organization = useOrganization(id);
  if (organization.isPending) return <Loader aria-label={t('common.loading')} />;
  if (organization.isError)
    // An unknown, expired or foreign link still gets a page with a heading (screen readers start there).
    return (
      <Stack>
        <PageTitle title={t('organizations.title')} />
        <LoadError error={organization.error} />
      </Stack>
    );
  const manages = managesOrganization(organization.data.role);
  return (
    <Stack>
      <PageTitle title={organization.data.name} />
      {organization.data.company && <Text c="dimmed">{organization.data.company}</Text>}
      <Paper withBorder p={{ base: 'xs', sm: 'lg' }} radius="md">
        <Tabs defaultValue="members" keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="members">{t('organizations.members')}</Tabs.Tab>
            <Tabs.Tab value="seats">{t('organizations.seats')}</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="members" pt="md">
            <MembersSection organization={organization.data} manages={manages} />
          </Tabs.Panel>
          <Tabs.Panel value="seats" pt="md">
            <SeatsSection organization={organization.data} manages={manages} />
          </Tabs.Panel>
        </Tabs>
      </Paper>
    </Stack>
  );
}
