import i18n, { type BackendModule, type ResourceKey } from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';
import { z } from 'zod';
import { setRequestLocale } from './api.ts';
import { COOKIE_LIFETIME_DAYS, DEFAULT_LOCALE, LOCALE_COOKIE, LOCALES, type Locale } from '@lm/contract';

export const LOCALE_LABELS: Record<Locale, string> = { de: 'Deutsch', en: 'English', es: 'Español', fr: 'Français', it: 'Italiano' };

/** Only the language in use is downloaded: each locale file is its own chunk. */
const MESSAGES: Record<Locale, () => Promise<{ default: ResourceKey }>> = {
  de: () => import('../locales/de.json'),
  en: () => import('../locales/en.json'),
  es: () => import('../locales/es.json'),
  fr: () => import('../locales/fr.json'),
  it: () => import('../locales/it.json'),
};

type LocaleError = (issue: Parameters<NonNullable<z.core.$ZodConfig['localeError']>>[0]) => ReturnType<NonNullable<z.core.$ZodConfig['localeError']>>;
const ZOD_MESSAGES: Record<Locale, () => Promise<{ default: () => { localeError: LocaleError } }>> = {
  de: () => import('zod/v4/locales/de.js'),
  en: () => import('zod/v4/locales/en.js'),
  es: () => import('zod/v4/locales/es.js'),
  fr: () => import('zod/v4/locales/fr.js'),
  it: () => import('zod/v4/locales/it.js'),
};

const isLocale = (language: string | undefined): language is Locale => (LOCALES as readonly string[]).includes(language ?? '');

const lazyMessages: BackendModule = {
  type: 'backend',
  init() {},
  read(language, _namespace, callback) {
    const locale = isLocale(language) ? language : DEFAULT_LOCALE;
    MESSAGES[locale]().then(
      (module) => callback(null, module.default),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  },
};

type ZodIssue = Parameters<LocaleError>[0];

/** An empty required field reads "required" rather than zod's "too small: expected >=1 characters". */
function isMissing(issue: ZodIssue): boolean {
  return (issue.code === 'too_small' && issue.origin === 'string' && Number(issue.minimum) === 1) || (issue.code === 'invalid_type' && issue.input === undefined);
}

/** Form validation messages follow the interface language. */
async function applyLocale(language: string) {
  const locale = isLocale(language) ? language : DEFAULT_LOCALE;
  setRequestLocale(locale);
  document.documentElement.lang = locale;
  const base = (await ZOD_MESSAGES[locale]()).default().localeError;
  z.config({ localeError: (issue) => (isMissing(issue) ? i18n.t('validation.required') : base(issue)) });
}

i18n.on('languageChanged', (language) => void applyLocale(language));

export const i18nReady = i18n
  .use(lazyMessages)
  .use(LanguageDetector)
  .use(initReactI18next)
  .init({
    supportedLngs: [...LOCALES],
    fallbackLng: DEFAULT_LOCALE,
    nonExplicitSupportedLngs: true,
    load: 'languageOnly',
    interpolation: { escapeValue: false },
    react: { useSuspense: true },
    detection: {
      order: ['cookie', 'navigator'],
      lookupCookie: LOCALE_COOKIE,
      caches: ['cookie'],
      cookieMinutes: COOKIE_LIFETIME_DAYS * 24 * 60,
      cookieOptions: { path: '/', sameSite: 'lax' },
    },
  });

export function currentLocale(): Locale {
  const language = i18n.resolvedLanguage ?? i18n.language;
  return isLocale(language) ? language : DEFAULT_LOCALE;
}

export default i18n;
