import type { DetectorOptions } from 'i18next-browser-languagedetector';
import { COOKIE_LIFETIME_DAYS, isSupportedLocaleTag, LOCALE_COOKIE, resolveLocale } from '@lm/contract';

/**
 * A detected tag as i18next should weigh it: one of our languages by its language part (`de-AT` is
 * `de`), any other left as it is, so that i18next passes over it to the next tag of the browser's
 * list. Turning it into English at once made `[ja, it]` English instead of Italian.
 */
export function detectedLanguage(tag: string): string {
  return isSupportedLocaleTag(tag) ? resolveLocale(tag) : tag;
}

/**
 * The spec's order (and the server's, platform/http/locale.ts): the language cookie, then the
 * browser's languages in their order, then English (i18next's fallbackLng).
 */
export const LOCALE_DETECTION: DetectorOptions = {
  order: ['cookie', 'navigator'],
  lookupCookie: LOCALE_COOKIE,
  caches: ['cookie'],
  cookieMinutes: COOKIE_LIFETIME_DAYS * 24 * 60,
  cookieOptions: { path: '/', sameSite: 'lax' },
  convertDetectedLanguage: detectedLanguage,
};
