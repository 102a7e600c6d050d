import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { LOCALES } from './constants.ts';
import { featureFields } from './feature.ts';
import { activateLicense, extendLicense, temporaryLicense } from './license.ts';
import { licensePolicyFields, publicNameEntries } from './license-policy.ts';
import { listQuery } from './list.ts';
import { issueMessage, preferredLocale, renderMessage, resolveLocale } from './messages.ts';
import { MESSAGE_CATALOGS } from './messages/index.ts';
import { orderWebhook } from './order.ts';
import { productFields } from './product.ts';
import { loginRequest } from './session.ts';
import { statisticsQuery } from './statistics.ts';
import { tanFields } from './tan.ts';
import { registration, userCreate, userFields } from './user.ts';

/** Words and signs of zod's developer messages, and untranslated keys: none may reach a person. */
const TECHNICAL = /expected|received|\bstring\b|undefined|>=|<=|regex|pattern|invalid input|validation\.|\{\{/i;
/** A field or key name such as `firstName` or `tooShort`. */
const IDENTIFIER = /\b[a-z]+[A-Z][A-Za-z]*\b/;

/** Wrong input for every rule kind the shared schemas have: empty, short, long, format, range, options, refinements. */
const CASES: [string, z.ZodType, unknown][] = [
  ['registration, empty', registration, {}],
  ['registration, e-mail abc and short password', registration, { email: 'abc', password: 'abc', password_confirm: 'abd' }],
  ['registration, e-mail without domain', registration, { email: 'abcd@x', password: 'secret-1', password_confirm: 'secret-1' }],
  ['login, empty', loginRequest, { username: '', password: '' }],
  ['user, long names and unknown country', userFields, { email: 'a@b.de', firstName: 'x'.repeat(256), lastName: '', country: 'XX', accessRole: 'KING', optInEmail: 'yes' }],
  ['new user, control characters', userCreate, { email: 'a@b.de', firstName: 'A\u0001', lastName: 'B' }],
  ['policy, all wrong', licensePolicyFields, { name: 'abc', type: 'X', licenseMaxValidDays: 0, refetchIntervalSeconds: 7, refetchBeforeExpirySeconds: 1.5, maxDifferentMachinesCount: 0, maxDifferentMachinesIntervalHours: 5, freeUpdatesPeriodDays: 3 }],
  ['policy, indefinite with public name', licensePolicyFields, { name: 'abcdef', type: 'INDEFINITE', publicName: { en: 'Name' }, licenseMaxValidDays: 1, refetchIntervalSeconds: 0, refetchBeforeExpirySeconds: 0, maxDifferentMachinesCount: 1, maxDifferentMachinesIntervalHours: 12 }],
  ['policy public names', publicNameEntries, [{ locale: 'en', description: 'a' }, { locale: 'en', description: 'abc' }, { description: 'abc' }]],
  ['product, spaces, bad link and big numbers', productFields, { name: ' A', version: '', trialDays: 99999, repeatTrialAfterMonths: 0, releaseDate: '2025-13-45', defaultLicensePolicyId: -1, downloadLinks: [{ type: 'linux', url: 'ftp://x' }], features: ['a', 'a', 'bad!tag'] }],
  ['feature, characters', featureFields, { name: 'bad tag!', expandToFeatures: ['x y'] }],
  ['TAN, count 0 and bad tag', tanFields, { productId: 0, licenseCount: 0, tags: ['bad!tag'], freeUpdatesUntil: 'tomorrow' }],
  ['activation, unknown TAN and machine with spaces', activateLicense, { tan: 'abc', machineId: 'my machine' }],
  ['temporary license, empty', temporaryLicense, { productId: null, machineId: '', validUntil: '' }],
  ['trial extension, fraction', extendLicense, { amount: 1.5, unit: 'years' }],
  ['statistics range', statisticsQuery, { from: '2025-12-01', to: '2025-01-01' }],
  ['list, sort and limit', listQuery(['id']), { sort: 'password', limit: '5000', offset: '-1' }],
  ['order webhook', orderWebhook, { orderId: '', timestamp: 'x', email: 'a', firstName: '', lastName: '', locale: 'pt', machineId: 'a b' }],
];

describe('one error vocabulary: every rule of the shared schemas reads as a plain, translated message', () => {
  for (const [name, schema, input] of CASES) {
    it(name, () => {
      const result = schema.safeParse(input, { reportInput: true });
      expect(result.success).toBe(false);
      for (const issue of result.error!.issues) {
        const { key, params } = issueMessage(issue);
        expect(MESSAGE_CATALOGS.en.validation, `${issue.code} ${issue.message}`).toSatisfy((texts: Record<string, string>) => key in texts || `${key}_other` in texts);
        for (const locale of LOCALES) {
          const text = renderMessage(MESSAGE_CATALOGS[locale], locale, 'validation', key, params);
          expect(text, `${locale} ${issue.path.join('.')} (${key})`).not.toMatch(TECHNICAL);
          expect(text, `${locale} ${issue.path.join('.')} (${key})`).not.toMatch(IDENTIFIER);
          expect(text.length).toBeGreaterThan(5);
        }
      }
    });
  }

  it('fills in the limits, in each language and with its plural forms', () => {
    const issue = registration.safeParse({ email: 'abc', password: 'abcd', password_confirm: 'abcd' }, { reportInput: true }).error!.issues;
    const texts = (locale: (typeof LOCALES)[number]) => issue.map((each) => renderMessage(MESSAGE_CATALOGS[locale], locale, 'validation', issueMessage(each).key, issueMessage(each).params));
    expect(texts('en')).toEqual(['At least 4 characters', 'At least 5 characters']);
    expect(texts('de')).toEqual(['Mindestens 4 Zeichen', 'Mindestens 5 Zeichen']);
    const badAddress = registration.safeParse({ email: 'abcd', password: 'abcde', password_confirm: 'abcde' }).error!.issues[0];
    expect(renderMessage(MESSAGE_CATALOGS.it, 'it', 'validation', issueMessage(badAddress).key)).toBe('Inserisci un indirizzo e-mail come nome@esempio.it');
    expect(texts('fr')[0]).toBe('Au moins 4 caractères');
    expect(renderMessage(MESSAGE_CATALOGS.en, 'en', 'validation', 'tooLong', { count: 1 })).toBe('At most 1 character');
    expect(renderMessage(MESSAGE_CATALOGS.de, 'de', 'validation', 'tooBig', { maximum: 10000 })).toBe('Geben Sie 10.000 oder weniger ein');
  });

  it('an empty required field says so, not "at least 1 character"', () => {
    const issues = userFields.pick({ firstName: true, email: true }).safeParse({ firstName: '', email: undefined }, { reportInput: true }).error!.issues;
    expect(issues.map((issue) => issueMessage(issue).key)).toEqual(['required', 'required']);
  });

  it('every message key a schema names exists in all five languages', () => {
    const sources = fs.readdirSync(import.meta.dirname).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
    const keys = new Set(sources.flatMap((file) => [...fs.readFileSync(path.join(import.meta.dirname, file), 'utf8').matchAll(/'validation\.(\w+)'/g)].map((match) => match[1])));
    expect(keys.size).toBeGreaterThan(10);
    for (const locale of LOCALES) {
      for (const key of keys) expect(Object.keys(MESSAGE_CATALOGS[locale].validation), `${locale} ${key}`).toContainEqual(expect.stringMatching(new RegExp(`^${key}(_other)?$`)));
    }
  });
});

describe('one locale resolution', () => {
  it('region tags mean their language; unknown languages mean English', () => {
    expect(['de', 'de-DE', 'de-AT', 'DE_ch', 'es-ES', 'fr-CA', 'it-IT', 'en-GB', 'pt-BR', '', undefined].map(resolveLocale)).toEqual(['de', 'de', 'de', 'de', 'es', 'fr', 'it', 'en', 'en', 'en', 'en']);
  });
});

describe('the first language of a list that we speak', () => {
  it('walks the list in order instead of stopping at the first tag', () => {
    expect(preferredLocale(['ja', 'it'])).toBe('it');
    expect(preferredLocale(['nl', 'de', 'en'])).toBe('de');
    expect(preferredLocale(['nl-BE', 'de-AT', 'fr'])).toBe('de');
    expect(preferredLocale(['pt-BR', 'en-GB', 'de'])).toBe('en');
  });

  it('skips what is empty or unknown, and is English when nothing fits', () => {
    expect(preferredLocale([undefined, null, '', 'xx', 'es'])).toBe('es');
    expect(preferredLocale(['ja', 'zh'])).toBe('en');
    expect(preferredLocale([])).toBe('en');
  });
});
