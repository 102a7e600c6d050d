import { Paper, SimpleGrid } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../lib/auth.ts';
import { PageTitle } from '../components/PageTitle.tsx';
import { LoginForm } from '../features/auth/LoginForm.tsx';
import { RegisterForm } from '../features/accounts/RegisterForm.tsx';
import MyLicensesPage from '../features/licenses/MyLicensesPage.tsx';

/** `/`: logged out, the login and new-account forms side by side; logged in, my licenses. */
export default function HomePage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  if (user) return <MyLicensesPage />;
  return (
    <>
      <PageTitle title={t('home.welcome')} />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Paper withBorder shadow="sm" p="xl" radius="md">
          <LoginForm />
        </Paper>
        <Paper withBorder shadow="sm" p="xl" radius="md">
          <RegisterForm />
        </Paper>
      </SimpleGrid>
    </>
  );
}
