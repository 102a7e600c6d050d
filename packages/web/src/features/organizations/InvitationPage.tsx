import { Alert, Anchor, Button, Group, Loader, Paper, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { LoadError } from '../../components/LoadError.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useAuth } from '../../lib/auth.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { useAcceptInvitation, useInvitationInfo } from './api.ts';

/** `/invitations/:token`: the mail's link; signed in with the invited address, accept; otherwise sign in or register first. */
export default function InvitationPage() {
  const { t } = useTranslation();
  const token = useParams().token ?? '';
  const { user } = useAuth();
  const info = useInvitationInfo(token);
  const accept = useAcceptInvitation();
  const navigate = useNavigate();
  const here = `/invitations/${token}`;
  if (info.isPending) return <Loader aria-label={t('common.loading')} />;
  if (info.isError)
    // An unknown, expired or foreign link still gets a page with a heading (screen readers start there).
    return (
      <Stack>
        <PageTitle title={t('organizations.title')} />
        <LoadError error={info.error} />
      </Stack>
    );
  return (
    <Stack maw={560}>
      <PageTitle title={t('organizations.invitationTitle', { name: info.data.organizationName })} />
      <Paper withBorder p="lg" radius="md">
        <Stack>
          <Text>{t('organizations.invitationText', { name: info.data.organizationName, email: info.data.email, role: t(`organizations.roles.${info.data.role}`) })}</Text>
          {user ? (
            <Group>
              <Button
                data-testid="accept-invitation"
                loading={accept.isPending}
                onClick={() =>
                  void accept.mutateAsync(token).then(
                    (organization) => {
                      showSuccess(t('organizations.joined', { name: organization.name }));
                      void navigate(`/organizations/${organization.id}`);
                    },
                    (error: unknown) => showError(error, 'organizations.failed'),
                  )
                }
              >
                {t('organizations.accept')}
              </Button>
            </Group>
          ) : (
            <Alert color="blue">
              <Anchor component={Link} to={`/login?returnUrl=${encodeURIComponent(here)}`}>
                {t('organizations.signInToAccept')}
              </Anchor>{' '}
              ·{' '}
              <Anchor component={Link} to="/register">
                {t('organizations.registerToAccept', { email: info.data.email })}
              </Anchor>
            </Alert>
          )}
        </Stack>
      </Paper>
    </Stack>
  );
}
