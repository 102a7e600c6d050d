import { useState } from 'react';
import { Badge, Button, Code, Group, Paper, PasswordInput, Stack, Text, Textarea, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ROLES, SECRET_MASK, type Role, type SettingsMap } from '@lm/contract';
import { showError, showSuccess } from '../../lib/notify.ts';
import { useChangeSettings } from './api/change-setting.ts';
import { SettingsSection } from './SettingsSection.tsx';

/** `group = ROLE` lines, as the mapping is edited; the other way round for showing it. */
export function parseRoleMapping(text: string): Record<string, Role> | string {
  const mapping: Record<string, Role> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.lastIndexOf('=');
    const group = line.slice(0, at).trim();
    const role = line.slice(at + 1).trim().toUpperCase();
    if (at < 1 || !group || !(ROLES as readonly string[]).includes(role)) return line;
    mapping[group] = role as Role;
  }
  return mapping;
}
const mappingText = (value: unknown) =>
  value && typeof value === 'object'
    ? Object.entries(value as Record<string, string>)
        .map(([group, role]) => `${group} = ${role}`)
        .join('\n')
    : '';

/** Settings → Single sign-on (DESIGN.md section 6j): the provider, its secret (never shown again), groups to roles, who must use it. */
export function SsoSettingsSection({ settings }: { settings: SettingsMap }) {
  const { t } = useTranslation();
  const change = useChangeSettings();
  const [secret, setSecret] = useState('');
  const [mapping, setMapping] = useState(mappingText(settings['sso.roleMapping']));
  const [mappingError, setMappingError] = useState<string | null>(null);
  const secretSet = settings['sso.clientSecret'] === SECRET_MASK;

  const save = async (changes: [string, unknown][], after?: () => void) => {
    try {
      await change.mutateAsync(changes);
      after?.();
      showSuccess(t('settings.saved'));
    } catch (error) {
      showError(error, 'settings.changeFailed');
    }
  };
  const saveMapping = () => {
    const parsed = parseRoleMapping(mapping);
    if (typeof parsed === 'string') return setMappingError(t('sso.settings.mappingInvalid', { line: parsed }));
    setMappingError(null);
    // Shown as saved afterwards (one `group = role` a line), which also turns Save off until the next change.
    void save([['sso.roleMapping', parsed]], () => setMapping(mappingText(parsed)));
  };

  return (
    <Stack data-testid="settings-sso">
      <SettingsSection
        testId="settings-sso-provider"
        title={t('sso.settings.title')}
        description={t('sso.settings.description')}
        settings={settings}
        fields={[
          { key: 'sso.issuer', label: t('sso.settings.issuer'), kind: 'url', placeholder: 'https://login.example.com/realms/staff' },
          { key: 'sso.clientId', label: t('sso.settings.clientId'), kind: 'text' },
          { key: 'sso.scopes', label: t('sso.settings.scopes'), kind: 'text', placeholder: 'openid email profile' },
          { key: 'sso.groupsClaim', label: t('sso.settings.groupsClaim'), kind: 'text', placeholder: 'groups' },
          { key: 'sso.buttonLabel', label: t('sso.settings.buttonLabel'), kind: 'text', placeholder: 'Contoso' },
          { key: 'sso.provisioning', label: t('sso.settings.provisioning'), kind: 'boolean' },
          { key: 'sso.requiredForStaff', label: t('sso.settings.requiredForStaff'), description: t('sso.settings.requiredForStaffHint'), kind: 'boolean' },
          { key: 'sso.trustProviderMfa', label: t('sso.settings.trustProviderMfa'), kind: 'boolean' },
        ]}
      />
      <Paper withBorder p="lg">
        <Stack>
          <Title order={3} size="h4">
            {t('sso.settings.secretAndRoles')}
          </Title>
          <Text size="sm">
            {t('sso.settings.redirectUri')} <Code>{`${window.location.origin}/api/sso/callback`}</Code>
          </Text>
          <Group align="flex-end">
            <PasswordInput
              label={t('sso.settings.clientSecret')}
              autoComplete="new-password"
              value={secret}
              onChange={(event) => setSecret(event.currentTarget.value)}
              style={{ flex: 1 }}
              data-testid="sso-client-secret"
            />
            <Badge color={secretSet ? 'green' : 'gray'}>{secretSet ? t('settings.webhook.isSet') : t('settings.webhook.notSet')}</Badge>
            <Button disabled={!secret} loading={change.isPending} onClick={() => void save([['sso.clientSecret', secret]], () => setSecret(''))}>
              {t('common.save')}
            </Button>
          </Group>
          <Textarea
            label={t('sso.settings.roleMapping')}
            description={t('sso.settings.roleMappingHint')}
            autosize
            minRows={3}
            // The lines typed in monospace; the label and its hint as every other field's.
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            value={mapping}
            error={mappingError}
            onChange={(event) => setMapping(event.currentTarget.value)}
            data-testid="sso-role-mapping"
          />
          <Group justify="flex-end">
            <Button disabled={mapping === mappingText(settings['sso.roleMapping'])} loading={change.isPending} onClick={saveMapping} data-testid="sso-role-mapping-save">
              {t('common.save')}
            </Button>
          </Group>
        </Stack>
      </Paper>
      <SettingsSection
        testId="settings-events"
        title={t('licenseEvents.settingsTitle')}
        settings={settings}
        columns={3}
        fields={[{ key: 'events.retentionDays', label: t('licenseEvents.retentionDays'), kind: 'number', placeholder: '180' }]}
      />
    </Stack>
  );
}
