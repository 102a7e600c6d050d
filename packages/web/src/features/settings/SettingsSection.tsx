import { useState, type ReactNode } from 'react';
import { Button, Group, NumberInput, Paper, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { settingValueSchema, type SettingKey, type SettingsMap } from '@lm/contract';
import { ProductSelect } from '../../components/ProductSelect.tsx';
import { showError, showSuccess } from '../../lib/notify.ts';
import { useQueryClient } from '@tanstack/react-query';
import { issueText } from '../../lib/forms.ts';
import { reloadSettings, SETTINGS_QUERY_KEY } from '../../lib/settings.ts';
import { useVersionedEdit } from '../../lib/use-versioned-edit.tsx';

export type SettingKind = 'text' | 'url' | 'number' | 'boolean' | 'product';

export interface SettingField {
  key: SettingKey;
  label: string;
  kind: SettingKind;
  description?: string;
  placeholder?: string;
  disabled?: boolean;
  /** A number's maximum where another setting bounds it (the server checks it too). */
  max?: number;
}

type Draft = Record<string, string | number | boolean>;

function draftOf(field: SettingField, value: unknown): string | number | boolean {
  if (field.kind === 'boolean') return value === true;
  if (field.kind === 'number') return typeof value === 'number' ? value : '';
  if (field.kind === 'product') return typeof value === 'number' ? value : '';
  return typeof value === 'string' ? value : '';
}

/** The value to send: null unsets the key (its default applies again). */
function valueOf(field: SettingField, draft: string | number | boolean): unknown {
  if (field.kind === 'boolean') return draft;
  if (draft === '') return null;
  return field.kind === 'number' || field.kind === 'product' ? Number(draft) : String(draft).trim();
}

interface SettingsSectionProps {
  title: string;
  description?: string;
  fields: SettingField[];
  settings: SettingsMap;
  columns?: number;
  children?: ReactNode;
  testId?: string;
}

/**
 * A group of settings with one Save: each changed key is checked as the server checks it, then the
 * changed keys are sent in one PATCH with the version of the settings the page shows (If-Match). A
 * key someone else changed meanwhile is shown in the conflict dialog, never overwritten silently.
 */
export function SettingsSection({ title, description, fields, settings, columns = 2, children, testId }: SettingsSectionProps) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const saved: Draft = Object.fromEntries(fields.map((field) => [field.key, draftOf(field, settings[field.key])]));
  const [draft, setDraft] = useState<Draft>(saved);
  const draftsOf = (map: SettingsMap): Draft => Object.fromEntries(fields.map((field) => [field.key, draftOf(field, map[field.key])]));
  const edit = useVersionedEdit<SettingsMap>({
    path: '/settings',
    method: 'PATCH',
    initial: settings,
    bodyOf: (map) => Object.fromEntries(fields.map((field) => [field.key, valueOf(field, draftOf(field, map[field.key]))])),
    labels: Object.fromEntries(fields.map((field) => [field.key, field.label])),
    onReload: (current) => {
      queryClient.setQueryData(SETTINGS_QUERY_KEY, current);
      setDraft(draftsOf(current));
    },
    onSaved: async (current) => {
      queryClient.setQueryData(SETTINGS_QUERY_KEY, current);
      await reloadSettings(queryClient);
      setDraft(draftsOf(current));
      showSuccess(t('settings.saved'));
    },
  });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const changed = fields.filter((field) => draft[field.key] !== saved[field.key]);

  const save = async () => {
    const found: Record<string, string> = {};
    for (const field of changed) {
      const value = valueOf(field, draft[field.key]);
      const schema = field.max === undefined ? settingValueSchema(field.key) : settingValueSchema(field.key).pipe(z.number().max(field.max));
      const result = value === null ? null : schema.safeParse(value, { reportInput: true });
      if (result && !result.success) found[field.key] = issueText(result.error.issues[0]);
    }
    setErrors(found);
    if (Object.keys(found).length) return;
    try {
      await edit.save(Object.fromEntries(changed.map((field) => [field.key, valueOf(field, draft[field.key])])));
    } catch (error) {
      showError(error, 'settings.changeFailed');
    }
  };

  const input = (field: SettingField) => {
    const common = { label: field.label, description: field.description, error: errors[field.key], disabled: field.disabled, 'data-setting': field.key };
    const set = (value: string | number | boolean) => setDraft((current) => ({ ...current, [field.key]: value }));
    switch (field.kind) {
      case 'boolean':
        return <Switch key={field.key} {...common} checked={draft[field.key] === true} onChange={(event) => set(event.currentTarget.checked)} />;
      case 'number':
        return <NumberInput key={field.key} {...common} min={1} max={field.max} allowDecimal={false} placeholder={field.placeholder} value={draft[field.key] as number | string} onChange={set} />;
      case 'product':
        return <ProductSelect key={field.key} {...common} value={typeof draft[field.key] === 'number' ? (draft[field.key] as number) : null} onChange={(id) => set(id ?? '')} />;
      default:
        return (
          <TextInput
            key={field.key}
            {...common}
            type={field.kind === 'url' ? 'url' : 'text'}
            placeholder={field.placeholder}
            value={String(draft[field.key])}
            onChange={(event) => set(event.currentTarget.value)}
          />
        );
    }
  };

  return (
    <Paper withBorder p="lg" data-testid={testId}>
      <Stack>
        <div>
          <Title order={3} size="h4">
            {title}
          </Title>
          {description && (
            <Text size="sm" c="dimmed">
              {description}
            </Text>
          )}
        </div>
        {children}
        <SimpleGrid cols={{ base: 1, sm: columns }}>{fields.map(input)}</SimpleGrid>
        <Group justify="flex-end">
          <Button onClick={save} disabled={changed.length === 0} loading={edit.saving}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
      {edit.conflictDialog}
    </Paper>
  );
}
