/**
 * The menus a signed-in user sees: the navbar (desktop and phone) and the account menu. A chunk of
 * its own, with the dropdown machinery, so that a visitor's first page loads none of it.
 */
import { Box, Group, Menu, NavLink as MantineNavLink, ScrollArea, Stack, Text, UnstyledButton, type MantineBreakpoint } from '@mantine/core';
import { IconChevronDown, IconUserCircle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, NavLink, useNavigate } from 'react-router';
import { auth, useAuth } from '../lib/auth.ts';
import { accountMenuLinks, type MenuEntry } from './menu.ts';
import classes from './Shell.module.css';

export function DesktopMenu({ entries, visibleFrom }: { entries: MenuEntry[]; visibleFrom: MantineBreakpoint }) {
  const { t } = useTranslation();
  return (
    <Group gap={4} visibleFrom={visibleFrom} wrap="nowrap" component="nav" aria-label={t('nav.main')}>
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

export function MobileMenu({ entries, onNavigate }: { entries: MenuEntry[]; onNavigate: () => void }) {
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

/** `nameFrom`: the width from which the header has room for the user's name beside the icon. */
export function AccountMenu({ nameFrom }: { nameFrom: MantineBreakpoint }) {
  const { t } = useTranslation();
  const { user, ability } = useAuth();
  const navigate = useNavigate();
  if (!user) return null;
  const personalLinks = user.twoFactorEnrollmentRequired ? [] : accountMenuLinks(ability, true);
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <UnstyledButton className={classes.link} data-testid="account-menu" aria-label={`${user.formattedName} – ${t('nav.accountMenu')}`}>
          <Group gap={6} wrap="nowrap">
            <IconUserCircle size={18} aria-hidden />
            <Box component="span" className={classes.userName} visibleFrom={nameFrom} aria-hidden title={user.formattedName}>
              {user.formattedName}
            </Box>
            <IconChevronDown size={14} aria-hidden />
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown className={classes.accountDropdown}>
        {/* The name first: below the width where the header shows it, this is where it is seen. */}
        <Box px="sm" pt={6} pb={8} data-testid="account-menu-heading">
          <Text size="sm" fw={600}>
            {user.formattedName}
          </Text>
          {user.username !== user.formattedName && (
            <Text size="xs" c="dimmed">
              {user.username}
            </Text>
          )}
        </Box>
        <Menu.Divider />
        <Menu.Item component={Link} to="/account/settings">
          {t('nav.myAccount')}
        </Menu.Item>
        <Menu.Item component={Link} to="/account/security">
          {t('nav.security')}
        </Menu.Item>
        <Menu.Item component={Link} to="/account/api-tokens">
          {t('apiTokens.menu')}
        </Menu.Item>
        {personalLinks.map((link) => (
          <Menu.Item key={link.to} component={Link} to={link.to}>
            {t(link.labelKey)}
          </Menu.Item>
        ))}
        <Menu.Item
          onClick={() => {
            void auth.logout().finally(() => navigate('/'));
          }}
        >
          {t('auth.logout')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
