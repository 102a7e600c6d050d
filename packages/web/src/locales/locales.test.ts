import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCALES } from '@lm/contract';

type Messages = { [key: string]: string | Messages };

const load = (locale: string) => JSON.parse(fs.readFileSync(path.join(import.meta.dirname, `${locale}.json`), 'utf8')) as Messages;
const flatten = (messages: Messages, prefix = ''): Record<string, string> =>
  Object.fromEntries(
    Object.entries(messages).flatMap(([key, value]) => (typeof value === 'string' ? [[prefix + key, value]] : Object.entries(flatten(value, `${prefix}${key}.`)))),
  );
const placeholders = (text: string) => [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((match) => match[1]).sort();

describe('the five message files', () => {
  const english = flatten(load('en'));

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
  }
});
