/** Business constants of the product specification (section 9) and DESIGN.md. */

export const LOCALES = ['de', 'en', 'es', 'fr', 'it'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';
/** Each language by its own name, as a language switcher shows it. */
export const LOCALE_NAMES: Record<Locale, string> = { de: 'Deutsch', en: 'English', es: 'Español', fr: 'Français', it: 'Italiano' };

export const PASSWORD_MIN_LENGTH = 5;
export const COPIED_LABEL_MS = 700;
export const TOAST_MS = 5000;
export const API_RETRIES = 5;
export const CACHE_LIFETIME_MS = 10 * 60 * 1000;
export const FEATURE_CACHE_LIMIT = 10000;
export const VERSION_CHECK_INTERVAL_S = 3600;
export const SELECT_PAGE_SIZE = 50;
export const SELECT_SEARCH_DEBOUNCE_MS = 300;
export const COOKIE_LIFETIME_DAYS = 91;
export const CHUNK_LOAD_TIMEOUT_S = 120;

export const LIST_DEFAULT_LIMIT = 50;
export const LIST_MAX_LIMIT = 1000;
/** The longest list search (`filter`): the search fields stop taking characters there. */
export const LIST_FILTER_MAX_LENGTH = 200;
/**
 * The large lists (TANs, licenses, users) count their matches up to this many: beyond it the count
 * says "more than", so that no page counts a million rows; pages beyond it follow the next-page cursor.
 */
export const LIST_COUNT_LIMIT = 10_000;
/**
 * The user list counts the matches of a typed search up to this many: each keystroke asks again,
 * and counting 10,000 matches of a text search took PostgreSQL 25 ms of its 50 ms.
 */
export const LIST_SEARCH_COUNT_LIMIT = 1_000;

export const SESSION_COOKIE = 'lm_session';
export const LOCALE_COOKIE = 'i18next';
export const SESSION_LIFETIME_DAYS = 30;

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** One month is 30.5 days (spec section 9). */
export const MONTH_DAYS = 30.5;
export const MONTH_SECONDS = 2635200;

export const REFETCH_INTERVAL_OPTIONS_S = [
  0, 15 * MINUTE, 30 * MINUTE, 45 * MINUTE,
  1 * HOUR, 2 * HOUR, 4 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR, 36 * HOUR, 48 * HOUR, 72 * HOUR,
  5 * DAY, 7 * DAY, 10 * DAY, 14 * DAY, 20 * DAY, 30 * DAY, 60 * DAY, 90 * DAY, 100 * DAY, 180 * DAY, 365 * DAY,
] as const;

export const DIFFERENT_MACHINES_INTERVAL_OPTIONS_H = [
  12, 24, 36, 48,
  ...Array.from({ length: 14 }, (_, i) => (i + 1) * 24),
  20 * 24, 30 * 24, 60 * 24, 90 * 24, 100 * 24, 180 * 24, 365 * 24, 730 * 24, 1095 * 24,
].filter((value, index, all) => all.indexOf(value) === index);

/** Free-updates period options in months; null is "none". */
export const FREE_UPDATES_PERIOD_OPTIONS_MONTHS = [null, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 24, 36] as const;

export const TRIAL_EXTENSION_UNITS = ['days', 'weeks', 'months'] as const;
export type TrialExtensionUnit = (typeof TRIAL_EXTENSION_UNITS)[number];

export const STATISTICS_CATEGORIES = [
  'tan-activations',
  'tan-free-updates-expired',
  'trial-licenses',
  'new-users',
  'active-users',
  'active-machines',
  'downloads',
  'overage',
] as const;
export type StatisticsCategory = (typeof STATISTICS_CATEGORIES)[number];

export const CHANGE_LOG_MODELS = ['User', 'Product', 'Tan', 'License', 'Feature', 'LicensePolicy', 'Organization'] as const;
export type ChangeLogModel = (typeof CHANGE_LOG_MODELS)[number];
