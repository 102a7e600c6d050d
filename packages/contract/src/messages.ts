/**
 * One error vocabulary for the server and the web app: every zod issue of the shared schemas maps
 * to a message key of `validation.*` and the values it needs (the field's limits), and the texts of
 * every key live once per language in `messages/<locale>.ts`. The server renders them for the
 * request's locale (renderMessage); the web app loads the same texts into i18next.
 */
import { DEFAULT_LOCALE, LOCALES, type Locale } from './constants.ts';

/** The texts of one language: validation messages and the texts of the API's error codes. */
export interface MessageCatalog {
  validation: Record<string, string>;
  errors: Record<string, string>;
}

/** A message by key (below `validation.`) and the values its text fills in. */
export interface MessageRef {
  key: string;
  params: Record<string, string | number>;
}

/** A schema's own message names its key: `validation.tanCode`. */
export const MESSAGE_KEY_PREFIX = 'validation.';

/**
 * What this mapping reads of a zod issue (raw or final). `input` is there when the schema was
 * parsed with `reportInput: true`: only then can a missing value be told from a wrong one.
 */
export interface IssueLike {
  code: string;
  message?: string;
  input?: unknown;
  origin?: string;
  expected?: string;
  format?: string;
  minimum?: number | bigint | Date;
  maximum?: number | bigint | Date;
  inclusive?: boolean;
  exact?: boolean;
  divisor?: number | bigint;
  keys?: string[];
  params?: Record<string, unknown>;
}

const ref = (key: string, params: Record<string, string | number> = {}): MessageRef => ({ key, params });
const limit = (value: number | bigint | Date | undefined) => (value instanceof Date ? value.toISOString().slice(0, 10) : Number(value));
const isCollection = (origin: string | undefined) => origin === 'array' || origin === 'set' || origin === 'map';

/** The message of one issue: the schema's own key if it names one, else one by the issue's kind. */
export function issueMessage(issue: IssueLike): MessageRef {
  if (issue.message?.startsWith(MESSAGE_KEY_PREFIX)) {
    const params = Object.fromEntries(Object.entries(issue.params ?? {}).filter(([, value]) => typeof value === 'string' || typeof value === 'number')) as Record<string, string | number>;
    return ref(issue.message.slice(MESSAGE_KEY_PREFIX.length), params);
  }
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined || issue.input === null || issue.input === '') return ref('required');
      if (issue.expected === 'int') return ref('notInteger');
      if (issue.expected === 'number' || issue.expected === 'bigint') return ref('notNumber');
      return ref('invalidValue');
    case 'too_small': {
      const minimum = limit(issue.minimum);
      if (issue.origin === 'string') {
        if (minimum === 1 || issue.input === '') return ref('required');
        return ref(issue.exact ? 'exactLength' : 'tooShort', { count: minimum });
      }
      if (isCollection(issue.origin)) return ref('tooFewItems', { count: minimum });
      if (issue.origin === 'date') return ref('dateTooEarly', { date: minimum });
      return ref(issue.inclusive === false ? 'greaterThan' : 'tooSmall', { minimum });
    }
    case 'too_big': {
      const maximum = limit(issue.maximum);
      if (issue.origin === 'string') return ref(issue.exact ? 'exactLength' : 'tooLong', { count: maximum });
      if (isCollection(issue.origin)) return ref('tooManyItems', { count: maximum });
      if (issue.origin === 'date') return ref('dateTooLate', { date: maximum });
      return ref(issue.inclusive === false ? 'lessThan' : 'tooBig', { maximum });
    }
    case 'invalid_format':
      if (issue.format === 'email') return ref('email');
      if (issue.format === 'url') return ref('url');
      if (issue.format === 'date') return ref('date');
      if (issue.format === 'datetime') return ref('dateTime');
      return ref('invalidCharacters');
    case 'not_multiple_of':
      return ref('notMultipleOf', { divisor: Number(issue.divisor) });
    case 'invalid_value':
      return ref('notAnOption');
    case 'unrecognized_keys':
      return ref('unknownFields', { keys: (issue.keys ?? []).join(', ') });
    default:
      return ref('invalidValue');
  }
}

/** The language of a tag such as `de-AT`, `de_DE` or `fr`: one of ours, else English. */
export function resolveLocale(tag: string | null | undefined): Locale {
  const language = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0];
  return (LOCALES as readonly string[]).includes(language) ? (language as Locale) : DEFAULT_LOCALE;
}

/** Whether a tag names one of our languages (`de-CH` does, `pt` does not). */
export function isSupportedLocaleTag(tag: string): boolean {
  return resolveLocale(tag) !== DEFAULT_LOCALE || tag.trim().toLowerCase().split(/[-_]/)[0] === DEFAULT_LOCALE;
}

/**
 * The first of a person's languages, in their order, that we speak: `[ja, it]` is Italian,
 * `[nl, de-AT, en]` German; none of them (or none given) is English. Each tag is tried as it is,
 * never turned into English before the next one had its turn.
 */
export function preferredLocale(tags: Iterable<string | null | undefined>): Locale {
  for (const tag of tags) {
    if (tag && isSupportedLocaleTag(tag)) return resolveLocale(tag);
  }
  return DEFAULT_LOCALE;
}

/**
 * The text of `section.key` in i18next's format, for code without i18next (the server): plural
 * forms by `count` (`key_one`, `key_other`, …) and `{{name}}` placeholders.
 */
export function renderMessage(catalog: MessageCatalog, locale: Locale, section: keyof MessageCatalog, key: string, params: Record<string, string | number> = {}): string {
  const texts = catalog[section];
  const count = params.count;
  const plural = typeof count === 'number' ? `${key}_${new Intl.PluralRules(locale).select(count)}` : undefined;
  const text = (plural && texts[plural]) ?? texts[`${key}_other`] ?? texts[key] ?? texts.invalidValue ?? key;
  return text.replace(/{{\s*(\w+)\s*}}/g, (_match, name: string) => {
    const value = params[name];
    return value === undefined ? '' : typeof value === 'number' ? new Intl.NumberFormat(locale).format(value) : value;
  });
}
