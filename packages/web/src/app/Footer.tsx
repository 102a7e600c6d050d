import { Anchor, Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { themeLink, useAppSettings } from '../lib/settings.ts';

/** Copyright and the localized data-privacy and imprint links from the theme settings. */
export function Footer() {
  const { t } = useTranslation();
  const { data: settings } = useAppSettings();
  const privacy = themeLink(settings, 'theme.link.dataPrivacy');
  const imprint = themeLink(settings, 'theme.link.imprint');
  return (
    <Group component="footer" justify="space-between" mt="xl" pt="md" pb="xs" gap="xs" style={{ borderTop: '1px solid var(--mantine-color-gray-3)' }}>
      <Text size="sm" c="dimmed">
        © {new Date().getFullYear()} {t('shell.copyright')}
      </Text>
      <Group gap="md">
        {privacy && (
          <Anchor href={privacy} size="sm" target="_blank" rel="noopener" data-testid="footer-privacy">
            {t('shell.dataPrivacy')}
          </Anchor>
        )}
        {imprint && (
          <Anchor href={imprint} size="sm" target="_blank" rel="noopener" data-testid="footer-imprint">
            {t('shell.imprint')}
          </Anchor>
        )}
      </Group>
    </Group>
  );
}
