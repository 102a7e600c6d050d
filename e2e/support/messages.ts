/**
 * The texts a person sees in each language, read from the same files the web app loads, so that a
 * journey finds a field by its label in German as in English.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Locale } from '../../packages/contract/src/constants.ts';
import { MESSAGE_CATALOGS } from '../../packages/contract/src/messages/index.ts';
import { ROOT } from '../harness.ts';

type Messages = { [key: string]: string | Messages };

const cache = new Map<Locale, Messages>();

function messages(locale: Locale): Messages {
  let found = cache.get(locale);
  if (!found) {
    const page = JSON.parse(fs.readFileSync(path.join(ROOT, `packages/web/src/locales/${locale}.json`), 'utf8')) as Messages;
    found = { ...page, ...(MESSAGE_CATALOGS[locale] as unknown as Messages) };
    cache.set(locale, found);
  }
  return found;
}

/** The text of a key (`accounts.email`) in a language, placeholders filled in. */
export function text(locale: Locale, key: string, params: Record<string, string | number> = {}): string {
  const found = key.split('.').reduce<string | Messages | undefined>((node, part) => (node && typeof node === 'object' ? node[part] : undefined), messages(locale));
  if (typeof found !== 'string') throw new Error(`no text ${key} in ${locale}`);
  return found.replace(/{{\s*(\w+)\s*}}/g, (_match, name: string) => String(params[name] ?? ''));
}

/**
 * Developer wording that must never reach a person: zod's phrases, comparison signs, raw message
 * keys, unfilled placeholders and field names such as `firstName`.
 */
export const TECHNICAL_TEXT = /expected|received|Too small|Too big|Invalid input|>=|<=|\bvalidation\.|\berrors\.|\{\{|\b[a-z]+[A-Z][A-Za-z]*\b/;
