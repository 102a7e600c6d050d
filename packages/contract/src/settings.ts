import { z } from 'zod';
import { LOCALES } from './constants.ts';
import { recordId } from './list.ts';

const LINK_KEYS = ['theme.link.dataPrivacy', 'theme.link.imprint'] as const;

/** Setting keys (spec section 3). Localized links take a `.<locale>` suffix; the bare key is the fallback. */
export const SETTING_KEYS = [
  'SERVER_CUSTOMER_ID',
  'theme.productName',
  'theme.logo',
  'theme.favicon',
  ...LINK_KEYS.flatMap((key) => [key, ...LOCALES.map((locale) => `${key}.${locale}` as const)]),
  'tan.maxLicenseCount',
  'license.temporaryMaxDays',
  'anylic.maxDays',
  'webhook.secret',
  'order.autoCreateAccount',
  'order.autoTemporaryLicense',
  'order.temporaryLicenseProductId',
  'order.temporaryLicenseDays',
  'security.requireTwoFactor',
] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

export function isSettingKey(key: string): key is SettingKey {
  return (SETTING_KEYS as readonly string[]).includes(key);
}

/** What anyone, logged in or not, may read: the theme. */
export function isPublicSettingKey(key: string): boolean {
  return key.startsWith('theme.');
}

/** Never sent to a browser once set, not even to administrators: they see only that it is set. */
export const SECRET_SETTING_KEYS: readonly string[] = ['webhook.secret'];
export const SECRET_MASK = '********';

/** Keys whose value is an uploaded file; the value is the URL the file is served at. */
export const FILE_SETTING_KEYS: readonly string[] = ['theme.logo', 'theme.favicon'];

/** Uploaded theme files: at most 2 MB, and only these image types (checked by content on the server). */
export const THEME_FILE_MAX_BYTES = 2 * 1024 * 1024;
export const THEME_FILE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml', 'image/x-icon'] as const;
export type ThemeFileType = (typeof THEME_FILE_TYPES)[number];
/** The answer to an upload: the setting's new value, the file's URL with a cache-busting version. */
export const settingUploadResult = z.object({ value: z.string() });

const link = z.union([z.url({ protocol: /^https?$/ }), z.string().regex(/^\/[^/]/, 'must be a URL or a path starting with /')]);
const positiveInt = (max: number) => z.number().int().min(1).max(max);

/** How each writable key's value is checked. */
export function settingValueSchema(key: SettingKey): z.ZodType {
  if (key.startsWith('theme.link.')) return link;
  switch (key) {
    case 'SERVER_CUSTOMER_ID':
      return z.string().trim().min(1).max(255);
    case 'theme.productName':
      return z.string().trim().min(1).max(100);
    case 'tan.maxLicenseCount':
      return positiveInt(1_000_000);
    case 'license.temporaryMaxDays':
    case 'anylic.maxDays':
    case 'order.temporaryLicenseDays':
      return positiveInt(3650);
    case 'order.temporaryLicenseProductId':
      return recordId;
    case 'order.autoCreateAccount':
    case 'order.autoTemporaryLicense':
    case 'security.requireTwoFactor':
      return z.boolean();
    case 'webhook.secret':
      return z.string().min(16).max(255);
    default:
      return z.string().max(2048);
  }
}

/** Values used while a setting is unset. */
export const SETTING_DEFAULTS: Partial<Record<SettingKey, unknown>> = {
  /** The product's name in mails (and wherever the theme names the product). */
  'theme.productName': 'License Manager',
  'tan.maxLicenseCount': 1000,
  'license.temporaryMaxDays': 30,
  'anylic.maxDays': 365,
  'order.autoCreateAccount': false,
  'order.autoTemporaryLicense': false,
  'order.temporaryLicenseDays': 30,
  /** Administrators and distributors must sign in with a second factor. */
  'security.requireTwoFactor': false,
};

export const settingsMap = z.record(z.string(), z.unknown());
export type SettingsMap = Record<string, unknown>;
export const settingUpdate = z.object({ value: z.unknown() });

/** The theme link for a locale: `key.<locale>` if set, else the bare key. */
export function localizedSetting(settings: SettingsMap, key: string, locale: string): string | null {
  const value = settings[`${key}.${locale}`] ?? settings[key];
  return typeof value === 'string' && value ? value : null;
}
