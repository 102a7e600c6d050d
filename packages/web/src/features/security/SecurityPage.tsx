import { Alert, Grid, Paper, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useAuth } from '../../lib/auth.ts';
import { PasswordSection } from './PasswordSection.tsx';
import { SessionsSection } from './SessionsSection.tsx';
import { DesktopSignInsSection } from './DesktopSignInsSection.tsx';
import { TwoFactorSection } from './TwoFactorSection.tsx';
import { SsoLinkSection } from './SsoLinkSection.tsx';

/**
 * `/account/security`: how the account signs in (two-factor sign-in, the password) and where it is
 * signed in (its sessions). An account that must set up a second factor is led here and sees only
 * that part until it is done.
 */
export default function SecurityPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const enrolmentRequired = Boolean(user?.twoFactorEnrollmentRequired);
  return (
    <Stack>
      <PageTitle title={t('security.title')} />
      {enrolmentRequired && (
        <Alert color="orange" role="status" data-testid="two-factor-required">
          {t('security.twoFactor.requiredNotice')}
        </Alert>
      )}
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: enrolmentRequired ? 12 : 7 }}>
          <Paper withBorder p="lg" radius="md">
            <Title order={2} size="h3" mb="md">
              {t('security.twoFactor.title')}
            </Title>
            <TwoFactorSection />
          </Paper>
        </Grid.Col>
        {!enrolmentRequired && (
          <Grid.Col span={{ base: 12, md: 5 }}>
            <Paper withBorder p="lg" radius="md">
              <Title order={2} size="h3" mb="md">
                {t('security.password.title')}
              </Title>
              <PasswordSection />
            </Paper>
          </Grid.Col>
        )}
        {!enrolmentRequired && (
          <Grid.Col span={12}>
            <Paper withBorder p="lg" radius="md">
              <Title order={2} size="h3" mb="md">
                {t('sso.account.title')}
              </Title>
              <SsoLinkSection />
            </Paper>
          </Grid.Col>
        )}
        {!enrolmentRequired && (
          <Grid.Col span={12}>
            <Paper withBorder p="lg" radius="md">
              <Title order={2} size="h3" mb="md">
                {t('security.sessions.title')}
              </Title>
              <SessionsSection />
            </Paper>
          </Grid.Col>
        )}
        {!enrolmentRequired && (
          <Grid.Col span={12}>
            <Paper withBorder p="lg" radius="md">
              <Title order={2} size="h3" mb="md">
                {t('security.desktop.title')}
              </Title>
              <DesktopSignInsSection />
            </Paper>
          </Grid.Col>
        )}
      </Grid>
    </Stack>
  );
}
