import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LOCALES } from '@lm/contract';
import { BUILT_IN_LABEL_KEYS, themeFor, type BuiltInLabels } from './theme.ts';

const messages = (locale: string) => JSON.parse(fs.readFileSync(new URL(`../locales/${locale}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;
const textAt = (catalog: Record<string, unknown>, key: string) => key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], catalog);

describe('Mantine’s built-in labels in the interface language', () => {
  it('has every label in every language, none of them Mantine’s English', () => {
    for (const locale of LOCALES) {
      for (const key of Object.values(BUILT_IN_LABEL_KEYS)) {
        const text = textAt(messages(locale), key);
        expect(typeof text === 'string' && text.length > 0, `${locale} ${key}`).toBe(true);
        expect(text).not.toBe('Toggle password visibility');
      }
    }
  });

  it('gives the password field’s show/hide button, the date pickers’ arrows and the clear buttons their names', () => {
    const labels = Object.fromEntries(Object.keys(BUILT_IN_LABEL_KEYS).map((name) => [name, `label of ${name}`])) as unknown as BuiltInLabels;
    const components = themeFor(labels).components as Record<string, { defaultProps?: Record<string, unknown> }>;
    expect(components.PasswordInput.defaultProps?.visibilityToggleButtonProps).toEqual({ 'aria-label': 'label of togglePassword' });
    expect(components.Modal.defaultProps?.closeButtonProps).toEqual({ 'aria-label': 'label of close' });
    for (const field of ['Select', 'MultiSelect', 'TagsInput', 'Autocomplete', 'DateInput', 'DatePickerInput']) {
      expect(components[field].defaultProps?.clearButtonProps, field).toEqual({ 'aria-label': 'label of clear' });
    }
    for (const picker of ['DateInput', 'DatePickerInput', 'DatePicker']) {
      expect(components[picker].defaultProps?.ariaLabels).toMatchObject({ nextMonth: 'label of nextMonth', previousMonth: 'label of previousMonth' });
      expect(components[picker].defaultProps?.ariaLabels).not.toHaveProperty('monthLevelControl');
    }
  });

  it('keeps Mantine’s focus placeholder out of menus, which may hold menu items only', () => {
    const components = themeFor(Object.fromEntries(Object.keys(BUILT_IN_LABEL_KEYS).map((name) => [name, name])) as unknown as BuiltInLabels).components as Record<string, { defaultProps?: Record<string, unknown> }>;
    expect(components.Menu.defaultProps?.withInitialFocusPlaceholder).toBe(false);
  });
});
