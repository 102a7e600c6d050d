import i18n from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';
import { z } from 'zod';
import { de as zodDe, en as zodEn, es as zodEs, fr as zodFr, it as zodIt } from 'zod/locales';
import { COOKIE_LIFETIME_DAYS, DEFAULT_LOCALE, LOCALE_COOKIE, LOCALES, type Locale } from '@lm/contract';
import de from '../locales/de.json';
import en from '../locales/en.json';
import es from '../locales/es.json';
import fr from '../locales/fr.json';
import it from '../locales/it.json';

export const LOCALE_LABELS: Record<Locale, string> = { de: 'Deutsch', en: 'English', es: 'Español', fr: 'Français', it: 'Italiano' };

const ZOD_LOCALES = { de: zodDe, en: zodEn, es: zodEs, fr: zodFr, it: zodIt } satisfies Record<Locale, unknown>;

void i18n
  .use(LanguageDetector)
  .use(initReactI18next)
  .init({
    resources: { de: { translation: de }, en: { translation: en }, es: { translation: es }, fr: { translation: fr }, it: { translation: it } },
    supportedLngs: [...LOCALES],
    fallbackLng: DEFAULT_LOCALE,
    nonExplicitSupportedLngs: true,
    load: 'languageOnly',
    interpolation: { escapeValue: false },
    detection: {
      order: ['cookie', 'navigator'],
      lookupCookie: LOCALE_COOKIE,
      caches: ['cookie'],
      cookieMinutes: COOKIE_LIFETIME_DAYS * 24 * 60,
      cookieOptions: { path: '/', sameSite: 'lax' },
    },
  });

type ZodIssue = Parameters<NonNullable<ReturnType<typeof zodEn>['localeError']>>[0];

/** An empty required field reads "required" rather than zod's "too small: expected >=1 characters". */
function isMissing(issue: ZodIssue): boolean {
  return (issue.code === 'too_small' && issue.origin === 'string' && Number(issue.minimum) === 1) || (issue.code === 'invalid_type' && issue.input === undefined);
}

/** Form validation messages follow the interface language. */
function applyLocale(language: string) {
  const locale = (LOCALES as readonly string[]).includes(language) ? (language as Locale) : DEFAULT_LOCALE;
  const base = ZOD_LOCALES[locale]().localeError;
  z.config({ localeError: (issue) => (isMissing(issue) ? i18n.t('validation.required') : base(issue)) });
  document.documentElement.lang = locale;
}
applyLocale(i18n.language);
i18n.on('languageChanged', applyLocale);

export function currentLocale(): Locale {
  const language = i18n.resolvedLanguage ?? i18n.language;
  return (LOCALES as readonly string[]).includes(language) ? (language as Locale) : DEFAULT_LOCALE;
}

export default i18n;
