import { Anchor, Center, Paper, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { PageTitle } from '../../components/PageTitle.tsx';
import { LoginForm } from './LoginForm.tsx';
import { SsoSecondFactor } from './SsoSecondFactor.tsx';
import { SsoSignIn } from './SsoSignIn.tsx';

export default function LoginPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  // Back from the identity provider, the account's own second factor is still to come.
  if (params.get('ssoSecondFactor')) {
    return (
      <Center>
        <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={440}>
          <PageTitle title={t('auth.login')} />
          <SsoSecondFactor />
        </Paper>
      </Center>
    );
  }
  return (
    <Center>
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={440}>
        <PageTitle title={t('auth.login')} />
        <SsoSignIn />
        <LoginForm />
        <Text size="sm" mt="lg" ta="center">
          {t('auth.noAccount')}{' '}
          <Anchor component={Link} to="/register">
            {t('auth.createAccount')}
          </Anchor>
        </Text>
      </Paper>
    </Center>
  );
}
