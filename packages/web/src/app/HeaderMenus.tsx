import { Button, Group, Menu, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconLanguage, IconUserCircle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { LOCALES } from '@lm/contract';
import { auth, useAuth } from '../lib/auth.ts';
import i18n, { currentLocale, LOCALE_LABELS } from '../lib/i18n.ts';
import classes from './Shell.module.css';

export function LocaleSwitcher() {
  const { t } = useTranslation();
  const locale = currentLocale();
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <UnstyledButton className={classes.link} aria-label={t('shell.language')} data-testid="locale-switcher">
          <Group gap={4} wrap="nowrap">
            <IconLanguage size={18} aria-hidden />
            {locale.toUpperCase()}
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        {LOCALES.map((code) => (
          <Menu.Item key={code} onClick={() => void i18n.changeLanguage(code)} fw={code === locale ? 700 : undefined} lang={code}>
            {LOCALE_LABELS[code]}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}

export function AccountMenu() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const navigate = useNavigate();
  if (!user) {
    return (
      <Button component={Link} to="/login" size="xs" variant="white">
        {t('auth.login')}
      </Button>
    );
  }
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <UnstyledButton className={classes.link} data-testid="account-menu">
          <Group gap={6} wrap="nowrap">
            <IconUserCircle size={18} aria-hidden />
            <span className={classes.userName}>{user.formattedName}</span>
            <IconChevronDown size={14} aria-hidden />
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{user.username}</Menu.Label>
        <Menu.Item component={Link} to="/account/settings">
          {t('nav.myAccount')}
        </Menu.Item>
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
