import { lazy, Suspense, useEffect, type ReactNode } from 'react';
import { AppShell, Burger, Button, Container, Group, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure, useFavicon, useReducedMotion } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { onAuthFailure } from '../lib/api.ts';
import { auth, useAuth } from '../lib/auth.ts';
import { reloadSettings, useAppSettings, useProductName } from '../lib/settings.ts';
import { BusyOverlay } from '../components/BusyOverlay.tsx';
import { withMoreStyles } from '../styles/load.ts';
import { CookieConsent } from './CookieConsent.tsx';
import { Footer } from './Footer.tsx';
import { loginUrl, SECURITY_PAGE } from './Guard.tsx';
import { LocaleSwitcher } from './LocaleSwitcher.tsx';
import { visibleMenu } from './menu.ts';
import { ReloadAlert } from './ReloadAlert.tsx';
import { KeptChangeAlert } from './KeptChangeAlert.tsx';
import { keepChange } from '../lib/kept-change.ts';
import { ErrorBoundary, pageFallback } from './ErrorBoundary.tsx';
import { loadChunk } from './version-check.ts';
import classes from './Shell.module.css';

// A menu whose script cannot be loaded leaves its place empty and raises the reload alert.
const menus = () => loadChunk(() => withMoreStyles(() => import('./SignedInMenus.tsx')));
const DesktopMenu = lazy(() => menus().then((module) => ({ default: module.DesktopMenu })));
const MobileMenu = lazy(() => menus().then((module) => ({ default: module.MobileMenu })));
const AccountMenu = lazy(() => menus().then((module) => ({ default: module.AccountMenu })));

function Logo() {
  const { t } = useTranslation();
  const { data: settings } = useAppSettings();
  const productName = useProductName();
  const logo = typeof settings?.['theme.logo'] === 'string' ? settings['theme.logo'] : '/favicon.svg';
  // The uploaded favicon replaces the built-in one as soon as the settings say so.
  useFavicon(typeof settings?.['theme.favicon'] === 'string' ? settings['theme.favicon'] : '/favicon.svg');
  return (
    <UnstyledButton component={Link} to="/" className={classes.logo} aria-label={`${productName} – ${t('shell.home')}`}>
      <img src={logo} alt="" height={30} data-testid="navbar-logo" style={{ maxWidth: 160, objectFit: 'contain' }} />
      <Text fw={700} c="white" visibleFrom="xs" aria-hidden>
        {productName}
      </Text>
    </UnstyledButton>
  );
}

function MenuBoundary({ children }: { children: ReactNode }) {
  return (
    <ErrorBoundary fallback={() => null}>
      <Suspense fallback={null}>{children}</Suspense>
    </ErrorBoundary>
  );
}

/** The header's way to the login, except where the page is the login form itself ("Log in" three times led nowhere). */
function LoginButton() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  if (pathname === '/login' || pathname === '/') return null;
  return (
    <Button component={Link} to="/login" size="xs" variant="white">
      {t('auth.login')}
    </Button>
  );
}

/** Validates the session at start, reloads settings after each auth change, handles 401/403. */
function useAuthLifecycle() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  useEffect(() => auth.onChange(() => void reloadSettings(queryClient)), [queryClient]);
  useEffect(() => {
    void auth.validate();
  }, []);
  useEffect(
    () =>
      onAuthFailure((status, code, call) => {
        // Signed in, but the second factor the settings require is not set up yet: that page, not the login.
        if (code === 'ERR_TWO_FACTOR_ENROLLMENT_REQUIRED') {
          if (window.location.pathname !== SECURITY_PAGE) navigate(SECURITY_PAGE);
          return;
        }
        // A write refused because the session ended: kept, to be offered again after the sign-in.
        const user = auth.get().user;
        if (status === 401 && user && call) keepChange(call.path, call.options, window.location.pathname + window.location.search, user.id);
        auth.lost();
        if (window.location.pathname !== '/login') navigate(loginUrl(window.location.pathname + window.location.search));
      }),
    [navigate],
  );
  return location;
}

export function Shell() {
  const { t } = useTranslation();
  const [opened, { toggle, close }] = useDisclosure(false);
  const { user, ability, initialized } = useAuth();
  const location = useAuthLifecycle();
  // Until a required second factor is set up, every page leads to the security page: no menu to follow.
  const entries = user?.twoFactorEnrollmentRequired ? [] : visibleMenu(ability, Boolean(user));
  // An administrator's six menus, the language and the account need 1,200 px in one row of the
  // header (German, French, Spanish, Italian, English alike); below, they wrapped out of it. A shorter
  // menu fits from 992 px. The user's name beside the account icon waits for room likewise.
  const wideMenu = entries.length > 3;
  const menuFrom = wideMenu ? 'lg' : 'md';
  // The phone's menu appears without sliding for a person whose system asks for less motion (the
  // theme's respectReducedMotion does the same for dialogs, menus and lists; AppShell has its own).
  const reduceMotion = useReducedMotion();
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 280, breakpoint: menuFrom, collapsed: { mobile: !opened, desktop: true } }}
      padding="md"
      transitionDuration={reduceMotion ? 0 : undefined}
    >
      <a href="#main-content" className={classes.skipLink}>
        {t('shell.skipToContent')}
      </a>
      <AppShell.Header className={classes.header}>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="md" wrap="nowrap">
            {user && <Burger opened={opened} onClick={toggle} hiddenFrom={menuFrom} size="sm" color="white" aria-label={t('shell.openMenu')} />}
            <Logo />
            {user && (
              <MenuBoundary>
                <DesktopMenu entries={entries} visibleFrom={menuFrom} />
              </MenuBoundary>
            )}
          </Group>
          <Group gap="xs" wrap="nowrap">
            <LocaleSwitcher />
            {/* Nothing until the session check answered: a signed-in page never flashes "Log in". */}
            {!initialized ? null : user ? (
              <MenuBoundary>
                <AccountMenu nameFrom={wideMenu ? 'xl' : 'sm'} />
              </MenuBoundary>
            ) : (
              <LoginButton />
            )}
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs">
        {opened && user && (
          <MenuBoundary>
            <MobileMenu entries={entries} onNavigate={close} />
          </MenuBoundary>
        )}
      </AppShell.Navbar>
      <AppShell.Main className={classes.main} id="main-content" tabIndex={-1}>
        <Container size="xl" px={0} className={classes.content}>
          <ReloadAlert />
          <KeptChangeAlert />
          {initialized ? (
            <ErrorBoundary fallback={pageFallback} resetKey={location.pathname}>
              <Suspense fallback={<BusyOverlay />}>
                <Outlet />
              </Suspense>
            </ErrorBoundary>
          ) : (
            <BusyOverlay />
          )}
        </Container>
        <Footer />
      </AppShell.Main>
      <CookieConsent />
    </AppShell>
  );
}
