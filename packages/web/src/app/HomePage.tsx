import { lazy, Suspense } from 'react';
import { Paper, SimpleGrid, Skeleton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../lib/auth.ts';
import { PageTitle } from '../components/PageTitle.tsx';
import { LoginForm } from '../features/auth/LoginForm.tsx';
import { withMoreStyles } from '../styles/load.ts';

/** Loaded only for signed-in visitors, so that the first visit stays small. */
const MyLicensesPage = lazy(() => withMoreStyles(() => import('../features/licenses/MyLicensesPage.tsx')));
/** Administrators' first steps in a new installation: its own chunk, as the licenses page's. */
const FirstRunChecklist = lazy(() => withMoreStyles(() => import('../features/setup/FirstRunChecklist.tsx')));
/** Administrators' and distributors' home: what needs them today (issue 49), its own chunk. */
const StaffHomePage = lazy(() => withMoreStyles(() => import('../features/dashboard/StaffHomePage.tsx')));
/** The login form comes first; the new-account form follows a moment later in its own chunk. */
const RegisterForm = lazy(() => import('../features/accounts/RegisterForm.tsx').then((module) => ({ default: module.RegisterForm })));

/** `/`: logged out, the login and new-account forms side by side; logged in, staff their day at a glance, customers their licenses. */
export default function HomePage() {
  const { t } = useTranslation();
  const { user, ability } = useAuth();
  if (user) {
    return (
      <>
        {ability.can('update', 'Setting') && (
          <Suspense fallback={null}>
            <FirstRunChecklist />
          </Suspense>
        )}
        {ability.can('view-list', 'Tan') ? <StaffHomePage /> : <MyLicensesPage />}
      </>
    );
  }
  return (
    <>
      <PageTitle title={t('home.welcome')} />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Paper withBorder shadow="sm" p="xl" radius="md">
          <LoginForm />
        </Paper>
        <Paper withBorder shadow="sm" p="xl" radius="md">
          <Suspense fallback={<Skeleton height={380} />}>
            <RegisterForm />
          </Suspense>
        </Paper>
      </SimpleGrid>
    </>
  );
}
