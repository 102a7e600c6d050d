import { describe, expect, it } from 'vitest';
import type { TFunction } from 'i18next';
import { displayValue, fieldLabel, LOGGED_FIELDS } from './change-values.ts';
import de from '../../locales/de.json';
import en from '../../locales/en.json';

/** A t() over one message file, enough for labels (no plurals needed here). */
function translator(messages: Record<string, unknown>): TFunction {
  return ((key: string, options?: { defaultValue?: string }) => {
    const found = key.split('.').reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), messages);
    return typeof found === 'string' ? found : (options?.defaultValue ?? key);
  }) as unknown as TFunction;
}

describe('the change log in the reader’s words', () => {
  it('has a translated label for every field the server logs', () => {
    for (const messages of [en, de]) {
      const t = translator(messages);
      for (const field of LOGGED_FIELDS) expect(fieldLabel(field, t), field).not.toMatch(/^changes\.|[a-z][A-Z]/);
    }
    expect(fieldLabel('firstName', translator(de))).toBe('Vorname');
    expect(fieldLabel('optInEmail', translator(en))).toBe('E-mail consent');
  });

  it('names the records the values point to as they are called now, and writes TAN codes in groups', () => {
    const t = translator(en);
    const references = { Product: { '2': 'Studio 2.0' }, User: { '7': 'Ada Lovelace (Engines Ltd)' }, LicensePolicy: { '1': 'SINGLE_HOST_INDEFINITE', '4': 'Site license' }, Tan: { '5': 'abcd-efgh-jkmn' } };
    expect(displayValue('productId', 2, t, 'en', references)).toBe('Studio 2.0');
    expect(displayValue('distributorId', 7, t, 'en', references)).toBe('Ada Lovelace (Engines Ltd)');
    expect(displayValue('ownerId', 7, t, 'en', references)).toBe('Ada Lovelace (Engines Ltd)');
    expect(displayValue('licensePolicyId', 1, t, 'en', references)).toBe(en.catalogue.builtInPolicies.SINGLE_HOST_INDEFINITE);
    expect(displayValue('defaultLicensePolicyId', 4, t, 'en', references)).toBe('Site license');
    expect(displayValue('tanId', 5, t, 'en', references)).toBe('abcd-efgh-jkmn');
    // Deleted since: said so, with the id the log kept.
    expect(displayValue('productId', 9, t, 'en', references)).toBe(en.changes.deletedRecord);
    expect(displayValue('code', 'abcdefghjkmn', t, 'en')).toBe('abcd-efgh-jkmn');
    expect(displayValue('id', 9, t, 'en')).toBe('9');
  });

  it('shows values as a person reads them, not true/false or codes', () => {
    const t = translator(de);
    expect(displayValue('optInEmail', true, t, 'de')).toBe('Ja');
    expect(displayValue('revoked', false, t, 'de')).toBe('Nein');
    expect(displayValue('accessRole', 'DISTRIBUTOR', t, 'de')).toBe(de.users.roles.DISTRIBUTOR);
    expect(displayValue('country', 'AT', t, 'de')).toBe('Österreich');
    expect(displayValue('licenseCount', 5056, t, 'de')).toBe('5056'.replace(/(\d)(\d{3})$/, '$1.$2'));
    expect(displayValue('publicName', { en: 'Single seat', de: 'Einzelplatz' }, t, 'de')).toBe('English: Single seat; Deutsch: Einzelplatz');
    expect(displayValue('tags', [], t, 'de')).toBe('—');
    expect(displayValue('notes', null, t, 'de')).toBe('—');
  });
});
