import { Button, Grid, Paper, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { BusyOverlay } from '../../components/BusyOverlay.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useAuth } from '../../lib/auth.ts';
import { accountsApi, myAccountKey } from './api.ts';
import { AccountForm } from './AccountForm.tsx';
import { CloseAccount } from './CloseAccount.tsx';
import { EmailConsent } from './EmailConsent.tsx';
import { LoadError } from '../../components/LoadError.tsx';

/** `/account/settings`: my account's fields, e-mail consent, and closing the account. */
export default function AccountSettingsPage() {
  const { t } = useTranslation();
  const { user: me } = useAuth();
  const id = me!.id;
  const account = useQuery({ queryKey: myAccountKey(id), queryFn: ({ signal }) => accountsApi.user(id, signal) });

  return (
    <Stack>
      <PageTitle title={t('pages.accountSettings')} />
      {account.isPending && <BusyOverlay />}
      <LoadError error={account.error} />
      {account.data && (
        <Grid gap="lg">
          <Grid.Col span={{ base: 12, md: 8 }}>
            <Paper withBorder p="lg" radius="md">
              <Title order={3} mb="md">
                {t('accounts.settings.personalData')}
              </Title>
              <AccountForm key={account.data.email} user={account.data} />
            </Paper>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 4 }}>
            <Stack>
            <Paper withBorder p="lg" radius="md">
              <Title order={3} mb="xs">
                {t('security.title')}
              </Title>
              <Text size="sm" mb="md">
                {t('security.summary')}
              </Text>
              <Button component={Link} to="/account/security" variant="light" data-testid="security-link">
                {t('security.open')}
              </Button>
            </Paper>
            <Paper withBorder p="lg" radius="md">
              <Title order={3} mb="md">
                {t('accounts.consent.title')}
              </Title>
              <EmailConsent user={account.data} />
            </Paper>
            <Paper withBorder p="lg" radius="md" style={{ borderColor: 'var(--mantine-color-red-4)' }}>
              <Title order={3} mb="md" c="red">
                {t('accounts.close.title')}
              </Title>
                <CloseAccount user={account.data} />
              </Paper>
            </Stack>
          </Grid.Col>
        </Grid>
      )}
    </Stack>
  );
}
