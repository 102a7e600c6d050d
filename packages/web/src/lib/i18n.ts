import i18n, { type BackendModule, type FormatterModule, type ResourceKey } from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';
import { DEFAULT_LOCALE, LOCALES, resolveLocale, type Locale, type MessageCatalog } from '@lm/contract';
import { LOCALE_DETECTION } from './locale-detection.ts';
import { setRequestLocale } from './api.ts';
import { formatValue, setFormatLocale } from './format.ts';

/** Only the language in use is downloaded: each locale file is its own chunk. */
const MESSAGES: Record<Locale, () => Promise<{ default: ResourceKey }>> = {
  de: () => import('../locales/de.json'),
  en: () => import('../locales/en.json'),
  es: () => import('../locales/es.json'),
  fr: () => import('../locales/fr.json'),
  it: () => import('../locales/it.json'),
};

/** The error and validation texts the server renders too: one copy per language, in the contract. */
const SHARED_MESSAGES: Record<Locale, () => Promise<{ default: MessageCatalog }>> = {
  de: () => import('@lm/contract/messages/de'),
  en: () => import('@lm/contract/messages/en'),
  es: () => import('@lm/contract/messages/es'),
  fr: () => import('@lm/contract/messages/fr'),
  it: () => import('@lm/contract/messages/it'),
};

const lazyMessages: BackendModule = {
  type: 'backend',
  init() {},
  read(language, _namespace, callback) {
    const locale = resolveLocale(language);
    Promise.all([MESSAGES[locale](), SHARED_MESSAGES[locale]()]).then(
      ([page, shared]) => callback(null, { ...(page.default as object), ...shared.default }),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  },
};

/** Numbers in messages are grouped as the language writes them ("5.056 TANs"). */
const localeFormatter: FormatterModule = {
  type: 'formatter',
  init() {},
  // Other values pass through unchanged (i18next turns them into text itself).
  format: (value, _format, language) => formatValue(value, resolveLocale(language)) as string,
  add() {},
  addCached() {},
};

/**
 * One language for everything: the page texts, `<html lang>`, the accept-language header of every
 * call (so mails and the account's language follow) and the cookie all get the resolved one
 * (`de-AT` → `de`).
 */
function applyLocale(language: string) {
  const locale = resolveLocale(language);
  setRequestLocale(locale);
  setFormatLocale(locale);
  document.documentElement.lang = locale;
}

i18n.on('languageChanged', applyLocale);

export const i18nReady = i18n
  .use(lazyMessages)
  .use(LanguageDetector)
  .use(localeFormatter)
  .use(initReactI18next)
  .init({
    supportedLngs: [...LOCALES],
    fallbackLng: DEFAULT_LOCALE,
    load: 'languageOnly',
    interpolation: { escapeValue: false, alwaysFormat: true },
    react: { useSuspense: true },
    detection: LOCALE_DETECTION,
  });

export function currentLocale(): Locale {
  return resolveLocale(i18n.resolvedLanguage ?? i18n.language);
}

export default i18n;
