import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCALES, type Locale, type MessageCatalog } from '@lm/contract';
import { MESSAGE_CATALOGS } from '@lm/contract/messages/index';

type Messages = { [key: string]: string | Messages };

/** What i18next holds for a language: the page texts plus the shared error and validation texts. */
const load = (locale: Locale) =>
  ({ ...JSON.parse(fs.readFileSync(path.join(import.meta.dirname, `${locale}.json`), 'utf8')), ...(MESSAGE_CATALOGS[locale] satisfies MessageCatalog) }) as Messages;
const flatten = (messages: Messages, prefix = ''): Record<string, string> =>
  Object.fromEntries(
    Object.entries(messages).flatMap(([key, value]) => (typeof value === 'string' ? [[prefix + key, value]] : Object.entries(flatten(value, `${prefix}${key}.`)))),
  );
const placeholders = (text: string) => [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((match) => match[1]).sort();

describe('the five message sets', () => {
  const english = flatten(load('en'));

  it('the page texts do not repeat the shared ones (one copy of each text)', () => {
    const page = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'en.json'), 'utf8')) as Messages;
    expect(Object.keys(page)).not.toContain('validation');
    expect(Object.keys(page)).not.toContain('errors');
  });

  for (const locale of LOCALES) {
    const messages = flatten(load(locale));
    it(`${locale} has every key of en, no others, and no empty text`, () => {
      expect(Object.keys(messages).sort()).toEqual(Object.keys(english).sort());
      expect(Object.entries(messages).filter(([, text]) => !text.trim())).toEqual([]);
    });
    it(`${locale} keeps the placeholders of each English text`, () => {
      const wrong = Object.keys(english).filter((key) => key in messages && placeholders(messages[key]).join() !== placeholders(english[key]).join());
      expect(wrong).toEqual([]);
    });
    it(`${locale} names a policy type in the shared texts as the policy form does`, () => {
      expect(messages['validation.indefiniteNoPublicName']).toContain(messages['catalogue.policy.types.INDEFINITE']);
      expect(messages['validation.indefiniteNoPublicName']).not.toContain(messages['catalogue.policy.types.PERPETUAL']);
    });
    if (locale === 'it') {
      it('it calls a license policy "criterio", as its pages do', () => {
        expect(Object.entries(messages).filter(([, text]) => /\bpolicy\b/i.test(text))).toEqual([]);
      });
    }
    if (locale !== 'en') {
      it(`${locale} translates the shared texts (none left in English)`, () => {
        const shared = flatten(MESSAGE_CATALOGS[locale] as unknown as Messages);
        const englishShared = flatten(MESSAGE_CATALOGS.en as unknown as Messages);
        const same = Object.keys(shared).filter((key) => shared[key] === englishShared[key] && !/^[{}\w\s:./_-]*$/.test(shared[key]));
        expect(same).toEqual([]);
      });
    }
  }
});
