import { useState } from 'react';
import { Button, Group, Paper, Text } from '@mantine/core';
import { useElementSize } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { themeLink, useAppSettings } from '../lib/settings.ts';

const CONSENT_KEY = 'cookieConsent';

function consented(): boolean {
  try {
    return localStorage.getItem(CONSENT_KEY) === 'yes';
  } catch {
    return false;
  }
}

/** The cookie banner: the product sets only necessary cookies (session, language), so it informs and asks for an OK. */
export function CookieConsent() {
  const { t } = useTranslation();
  const [visible, setVisible] = useState(() => !consented());
  const { data: settings } = useAppSettings();
  const privacy = themeLink(settings, 'theme.link.dataPrivacy');
  const { ref, height } = useElementSize();
  if (!visible) return null;
  const accept = () => {
    try {
      localStorage.setItem(CONSENT_KEY, 'yes');
    } catch {
      // Private mode: the banner simply comes back next visit.
    }
    setVisible(false);
  };
  return (
    <>
      {/* Room below the page for the banner (its padding, border and 16 px from the bottom included): scrolled to the end, nothing stays hidden under it (a phone's "Create account"). */}
      <div aria-hidden style={{ height: height ? height + 56 : 0, backgroundColor: 'var(--mantine-color-gray-0)' }} />
      <Paper ref={ref} shadow="md" p="md" withBorder role="dialog" aria-label={t('shell.cookieTitle')} style={{ position: 'fixed', bottom: 16, left: 16, right: 16, zIndex: 190, maxWidth: 720, margin: '0 auto' }}>
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Text size="sm" style={{ flex: '1 1 320px' }}>
            {t('shell.cookieText')}{' '}
            {privacy && (
              <a href={privacy} target="_blank" rel="noopener">
                {t('shell.dataPrivacy')}
              </a>
            )}
          </Text>
          <Button onClick={accept} size="sm" data-testid="cookie-accept">
            {t('shell.cookieAccept')}
          </Button>
        </Group>
      </Paper>
    </>
  );
}
