/**
 * The setting keys and reading their values, without zod: the web app's first screen reads the
 * theme through these, and a module with a schema would bring all of zod along (settings.ts has
 * the schemas and re-exports this).
 */
import { LOCALES } from './constants.ts';

const LINK_KEYS = ['theme.link.dataPrivacy', 'theme.link.imprint'] as const;

/** Single sign-on for staff (DESIGN.md section 6j); an API token changes none of them. */
export const SSO_SETTING_KEYS = [
  'sso.issuer',
  'sso.clientId',
  'sso.clientSecret',
  'sso.scopes',
  'sso.groupsClaim',
  'sso.roleMapping',
  'sso.provisioning',
  'sso.requiredForStaff',
  'sso.trustProviderMfa',
  'sso.buttonLabel',
] as const;

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
  ...SSO_SETTING_KEYS,
  'events.retentionDays',
] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

export function isSettingKey(key: string): key is SettingKey {
  return (SETTING_KEYS as readonly string[]).includes(key);
}

/** The product's name while `theme.productName` is unset: in mails, the navbar and the browser tab. */
export const DEFAULT_PRODUCT_NAME = 'License Manager';

/** What anyone, logged in or not, may read: the theme (the login page's single sign-on button is read from GET /api/sso/status). */
export function isPublicSettingKey(key: string): boolean {
  return key.startsWith('theme.');
}

/** Never sent to a browser once set, not even to administrators: they see only that it is set. */
export const SECRET_SETTING_KEYS: readonly string[] = ['webhook.secret', 'sso.clientSecret'];
export const SECRET_MASK = '********';

/** Keys whose value is an uploaded file; the value is the URL the file is served at. */
export const FILE_SETTING_KEYS: readonly string[] = ['theme.logo', 'theme.favicon'];

/** Uploaded theme files: at most 2 MB, and only these image types (checked by content on the server). */
export const THEME_FILE_MAX_BYTES = 2 * 1024 * 1024;
export const THEME_FILE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml', 'image/x-icon'] as const;
export type ThemeFileType = (typeof THEME_FILE_TYPES)[number];

export type SettingsMap = Record<string, unknown>;

/** The theme link for a locale: `key.<locale>` if set, else the bare key. */
export function localizedSetting(settings: SettingsMap, key: string, locale: string): string | null {
  const value = settings[`${key}.${locale}`] ?? settings[key];
  return typeof value === 'string' && value ? value : null;
}
