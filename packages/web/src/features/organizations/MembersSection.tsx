import { useState } from 'react';
import { Button, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ORGANIZATION_ROLES, type Organization, type OrganizationMember as Member, type OrganizationRole } from '@lm/contract/organization';
import { DataTable, type DataColumn } from '../../components/data-table/DataTable.tsx';
import { useAuth } from '../../lib/auth.ts';
import { formatDateTime } from '../../lib/format.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { useChangeRole, useInvitations, useInvite, useMembers, useRemoveMember } from './api.ts';

/** Members with their roles; managers change roles, remove and invite; anyone leaves. */
export function MembersSection({ organization, manages }: { organization: Organization; manages: boolean }) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const members = useMembers(organization.id);
  const invitations = useInvitations(organization.id, manages);
  const invite = useInvite(organization.id);
  const changeRole = useChangeRole(organization.id);
  const remove = useRemoveMember(organization.id);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OrganizationRole>('member');
  const roles = ORGANIZATION_ROLES.filter((candidate) => candidate !== 'owner' || organization.role === 'owner').map((value) => ({ value, label: t(`organizations.roles.${value}`) }));
  const run = (work: Promise<unknown>, done: string) => work.then(() => showSuccess(done), (error: unknown) => showError(error, 'organizations.failed'));
  const memberColumns: DataColumn<Member>[] = [
    {
      key: 'person',
      label: t('organizations.person'),
      text: (member) => `${member.name} ${member.email}`,
      render: (member) => (
        <>
          {member.name}
          <Text span size="xs" display="block">
            {member.email}
          </Text>
        </>
      ),
    },
    {
      key: 'role',
      label: t('organizations.role'),
      kind: 'fit',
      render: (member) =>
        manages ? (
          <Select
            aria-label={t('organizations.role')}
            size="xs"
            data={ORGANIZATION_ROLES.map((value) => ({ value, label: t(`organizations.roles.${value}`) }))}
            value={member.role}
            allowDeselect={false}
            onChange={(value) => value && void run(changeRole.mutateAsync({ userId: member.userId, role: value as OrganizationRole }), t('organizations.saved'))}
          />
        ) : (
          t(`organizations.roles.${member.role}`)
        ),
    },
    {
      key: 'actions',
      label: t('common.actions'),
      render: (member) =>
        (manages || member.userId === user?.id) && (
          <Button size="compact-sm" variant="subtle" color="red" onClick={() => void run(remove.mutateAsync(member.userId), t('organizations.removed'))}>
            {member.userId === user?.id ? t('organizations.leave') : t('organizations.remove')}
          </Button>
        ),
    },
  ];

  return (
    <Stack>
      <DataTable id="organization-members" testId="members" label={t('organizations.members')} columns={memberColumns} items={members.data?.items} rowKey={(member) => member.userId} rowProps={() => ({ 'data-testid': 'member-row' })} />
      {manages && (
        <form
          data-testid="invite-form"
          onSubmit={(event) => {
            event.preventDefault();
            void run(invite.mutateAsync({ email, role }), t('organizations.invited', { email })).then(() => setEmail(''));
          }}
        >
          <Group align="end" wrap="wrap">
            <TextInput label={t('organizations.inviteEmail')} type="email" required value={email} onChange={(event) => setEmail(event.currentTarget.value)} miw={240} />
            <Select label={t('organizations.role')} data={roles} value={role} allowDeselect={false} onChange={(value) => setRole((value as OrganizationRole) ?? 'member')} w={160} />
            <Button type="submit" loading={invite.isPending}>
              {t('organizations.invite')}
            </Button>
          </Group>
        </form>
      )}
      {manages && (invitations.data?.items.length ?? 0) > 0 && (
        <Stack gap={4} data-testid="invitations">
          {invitations.data!.items.map((item) => (
            <small key={item.id}>{t('organizations.pending', { email: item.email, until: formatDateTime(item.expiresAt) })}</small>
          ))}
        </Stack>
      )}
    </Stack>
  );
}
