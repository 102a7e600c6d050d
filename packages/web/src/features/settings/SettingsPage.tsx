import { Loader, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { LOCALES, SECRET_MASK, SETTING_DEFAULTS, type SettingKey, type SettingsMap, LOCALE_NAMES } from '@lm/contract';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useAppSettings } from '../../lib/settings.ts';
import { SettingsSection, type SettingField } from './SettingsSection.tsx';
import { ThemeFileInput } from './ThemeFileInput.tsx';
import { WebhookSecretSection } from './WebhookSecretSection.tsx';
import { SsoSettingsSection } from './SsoSettingsSection.tsx';

const urlOf = (settings: SettingsMap, key: string) => (typeof settings[key] === 'string' ? (settings[key] as string) : null);

/** `/settings`: every setting of spec section 3, each with its own control. */
export default function SettingsPage() {
  const { t } = useTranslation();
  const { data: settings } = useAppSettings();

  if (!settings || !('SERVER_CUSTOMER_ID' in settings)) {
    return (
      <>
        <PageTitle title={t('pages.settings')} />
        <Loader aria-label={t('common.loading')} />
      </>
    );
  }

  const configuredMax = settings['license.temporaryMaxDays'];
  const temporaryMaxDays = typeof configuredMax === 'number' ? configuredMax : (SETTING_DEFAULTS['license.temporaryMaxDays'] as number);
  const linkFields = (base: 'theme.link.dataPrivacy' | 'theme.link.imprint', label: string): SettingField[] => [
    { key: base, label: t('settings.links.fallback', { link: label }), kind: 'url', placeholder: 'https://', description: t('settings.links.fallbackHint') },
    ...LOCALES.map((locale): SettingField => ({ key: `${base}.${locale}` as SettingKey, label: `${label} (${LOCALE_NAMES[locale]})`, kind: 'url', placeholder: 'https://' })),
  ];

  return (
    <>
      <PageTitle title={t('pages.settings')} />
      <Stack>
        <SettingsSection
          testId="settings-general"
          title={t('settings.general.title')}
          settings={settings}
          fields={[
            { key: 'SERVER_CUSTOMER_ID', label: t('settings.general.serverCustomerId'), description: t('settings.general.serverCustomerIdHint'), kind: 'text' },
            { key: 'theme.productName', label: t('settings.general.productName'), description: t('settings.general.productNameHint'), kind: 'text', placeholder: 'License Manager' },
          ]}
        />

        <Paper withBorder p="lg" data-testid="settings-theme">
          <Stack>
            <div>
              <Title order={3} size="h4">
                {t('settings.theme.title')}
              </Title>
              <Text size="sm" c="dimmed">
                {t('settings.theme.description')}
              </Text>
            </div>
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              <ThemeFileInput settingKey="theme.logo" label={t('settings.theme.logo')} url={urlOf(settings, 'theme.logo')} />
              <ThemeFileInput settingKey="theme.favicon" label={t('settings.theme.favicon')} url={urlOf(settings, 'theme.favicon')} />
            </SimpleGrid>
          </Stack>
        </Paper>

        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <SettingsSection
            testId="settings-privacy"
            title={t('settings.links.dataPrivacy')}
            description={t('settings.links.description')}
            settings={settings}
            columns={1}
            fields={linkFields('theme.link.dataPrivacy', t('shell.dataPrivacy'))}
          />
          <SettingsSection
            testId="settings-imprint"
            title={t('settings.links.imprint')}
            description={t('settings.links.description')}
            settings={settings}
            columns={1}
            fields={linkFields('theme.link.imprint', t('shell.imprint'))}
          />
        </SimpleGrid>

        <SettingsSection
          testId="settings-limits"
          title={t('settings.limits.title')}
          description={t('settings.limits.description')}
          settings={settings}
          columns={3}
          fields={[
            { key: 'tan.maxLicenseCount', label: t('settings.limits.tanMaxLicenseCount'), kind: 'number', placeholder: '1000' },
            { key: 'license.temporaryMaxDays', label: t('settings.limits.temporaryMaxDays'), kind: 'number', placeholder: '30' },
            { key: 'anylic.maxDays', label: t('settings.limits.anyLicMaxDays'), kind: 'number', placeholder: '365' },
          ]}
        />

        <SettingsSection
          testId="settings-security"
          title={t('settings.security.title')}
          description={t('settings.security.description')}
          settings={settings}
          fields={[{ key: 'security.requireTwoFactor', label: t('settings.security.requireTwoFactor'), kind: 'boolean' }]}
        />

        <SsoSettingsSection settings={settings} />

        <WebhookSecretSection isSet={settings['webhook.secret'] === SECRET_MASK} />

        <SettingsSection
          testId="settings-orders"
          title={t('settings.orders.title')}
          description={t('settings.orders.description')}
          settings={settings}
          fields={[
            { key: 'order.autoCreateAccount', label: t('settings.orders.autoCreateAccount'), kind: 'boolean' },
            { key: 'order.autoTemporaryLicense', label: t('settings.orders.autoTemporaryLicense'), kind: 'boolean' },
            { key: 'order.temporaryLicenseProductId', label: t('settings.orders.product'), kind: 'product' },
            {
              key: 'order.temporaryLicenseDays',
              label: t('settings.orders.daysValid'),
              kind: 'number',
              placeholder: String(Math.min(30, temporaryMaxDays)),
              max: temporaryMaxDays,
              description: t('settings.orders.daysValidHint', { max: temporaryMaxDays }),
            },
          ]}
        />
      </Stack>
    </>
  );
}
