import { Anchor, Center, Paper, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PageTitle } from '../../components/PageTitle.tsx';
import { RegisterForm } from './RegisterForm.tsx';

export default function RegisterPage() {
  const { t } = useTranslation();
  return (
    <Center>
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={440}>
        <PageTitle title={t('pages.register')} />
        <RegisterForm />
        <Text size="sm" mt="lg" ta="center">
          {t('accounts.haveAccount')}{' '}
          <Anchor component={Link} to="/login">
            {t('auth.login')}
          </Anchor>
        </Text>
      </Paper>
    </Center>
  );
}
