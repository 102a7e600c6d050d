import { Suspense, useEffect } from 'react';
import { Alert, AppShell, Burger, Button, Container, Group, Menu, NavLink as MantineNavLink, ScrollArea, Stack, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure, useFavicon } from '@mantine/hooks';
import { IconChevronDown } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { onAuthFailure } from '../lib/api.ts';
import { auth, useAuth } from '../lib/auth.ts';
import { reloadSettings, useAppSettings } from '../lib/settings.ts';
import { BusyOverlay } from '../components/BusyOverlay.tsx';
import { CookieConsent } from './CookieConsent.tsx';
import { Footer } from './Footer.tsx';
import { loginUrl } from './Guard.tsx';
import { AccountMenu, LocaleSwitcher } from './HeaderMenus.tsx';
import { visibleMenu, type MenuEntry } from './menu.ts';
import { useNewVersionAvailable } from './version-check.ts';
import classes from './Shell.module.css';

function Logo() {
  const { data: settings } = useAppSettings();
  const logo = typeof settings?.['theme.logo'] === 'string' ? settings['theme.logo'] : '/favicon.svg';
  // The uploaded favicon replaces the built-in one as soon as the settings say so.
  useFavicon(typeof settings?.['theme.favicon'] === 'string' ? settings['theme.favicon'] : '/favicon.svg');
  return (
    <UnstyledButton component={Link} to="/" className={classes.logo} aria-label="Home">
      <img src={logo} alt="" height={30} data-testid="navbar-logo" style={{ maxWidth: 160, objectFit: 'contain' }} />
      <Text fw={700} c="white" visibleFrom="xs">
        License Manager
      </Text>
    </UnstyledButton>
  );
}

function DesktopMenu({ entries }: { entries: MenuEntry[] }) {
  const { t } = useTranslation();
  return (
    <Group gap={4} visibleFrom="md" component="nav" aria-label={t('nav.main')}>
      {entries.map((entry) =>
        'links' in entry ? (
          <Menu key={entry.labelKey} trigger="click-hover" openDelay={50} closeDelay={150} position="bottom-start" withinPortal>
            <Menu.Target>
              <UnstyledButton className={classes.link}>
                <Group gap={4} wrap="nowrap">
                  {t(entry.labelKey)}
                  <IconChevronDown size={14} aria-hidden />
                </Group>
              </UnstyledButton>
            </Menu.Target>
            <Menu.Dropdown>
              {entry.links.map((link) => (
                <Menu.Item key={link.to} component={Link} to={link.to}>
                  {t(link.labelKey)}
                </Menu.Item>
              ))}
            </Menu.Dropdown>
          </Menu>
        ) : (
          <NavLink key={entry.to} to={entry.to} className={classes.link}>
            {t(entry.labelKey)}
          </NavLink>
        ),
      )}
    </Group>
  );
}

function MobileMenu({ entries, onNavigate }: { entries: MenuEntry[]; onNavigate: () => void }) {
  const { t } = useTranslation();
  return (
    <ScrollArea>
      <Stack gap={0} component="nav" aria-label={t('nav.main')}>
        {entries.map((entry) =>
          'links' in entry ? (
            <MantineNavLink key={entry.labelKey} label={t(entry.labelKey)} defaultOpened>
              {entry.links.map((link) => (
                <MantineNavLink key={link.to} component={Link} to={link.to} label={t(link.labelKey)} onClick={onNavigate} />
              ))}
            </MantineNavLink>
          ) : (
            <MantineNavLink key={entry.to} component={Link} to={entry.to} label={t(entry.labelKey)} onClick={onNavigate} />
          ),
        )}
      </Stack>
    </ScrollArea>
  );
}

function ReloadAlert() {
  const { t } = useTranslation();
  const stale = useNewVersionAvailable();
  if (!stale) return null;
  return (
    <Alert color="blue" title={t('shell.newVersionTitle')} mb="md" role="alert">
      <Group justify="space-between">
        <Text size="sm">{t('shell.newVersionText')}</Text>
        <Button size="xs" onClick={() => window.location.reload()}>
          {t('shell.reload')}
        </Button>
      </Group>
    </Alert>
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
      onAuthFailure(() => {
        auth.lost();
        if (window.location.pathname !== '/login') navigate(loginUrl(window.location.pathname + window.location.search));
      }),
    [navigate],
  );
  return location;
}

export function Shell() {
  const [opened, { toggle, close }] = useDisclosure(false);
  const { user, ability, initialized } = useAuth();
  useAuthLifecycle();
  const entries = visibleMenu(ability, Boolean(user));
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 280, breakpoint: 'md', collapsed: { mobile: !opened, desktop: true } }} padding="md">
      <AppShell.Header className={classes.header}>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="md" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="md" size="sm" color="white" aria-label="Menu" />
            <Logo />
            <DesktopMenu entries={entries} />
          </Group>
          <Group gap="xs" wrap="nowrap">
            <LocaleSwitcher />
            <AccountMenu />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs">
        {opened && <MobileMenu entries={entries} onNavigate={close} />}
      </AppShell.Navbar>
      <AppShell.Main className={classes.main}>
        <Container size="xl" px={0} className={classes.content}>
          <ReloadAlert />
          {initialized ? (
            <Suspense fallback={<BusyOverlay />}>
              <Outlet />
            </Suspense>
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
