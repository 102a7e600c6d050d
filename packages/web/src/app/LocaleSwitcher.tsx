import { NativeSelect } from '@mantine/core';
import { IconLanguage } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { LOCALES, LOCALE_NAMES } from '@lm/contract';
import i18n, { currentLocale } from '../lib/i18n.ts';
import classes from './Shell.module.css';

/** A native select: light to load, and the phone's own picker on small screens. */
export function LocaleSwitcher() {
  const { t } = useTranslation();
  return (
    <NativeSelect
      aria-label={t('shell.language')}
      data-testid="locale-switcher"
      size="xs"
      value={currentLocale()}
      onChange={(event) => void i18n.changeLanguage(event.currentTarget.value)}
      leftSection={<IconLanguage size={16} aria-hidden />}
      data={LOCALES.map((code) => ({ value: code, label: LOCALE_NAMES[code] }))}
      classNames={{ input: classes.localeInput }}
    />
  );
}
