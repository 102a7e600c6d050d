import { z } from 'zod';
import { recordId } from './list.ts';
import { DEFAULT_PRODUCT_NAME, type SettingKey } from './setting-keys.ts';

export * from './setting-keys.ts';

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
    case 'sso.provisioning':
    case 'sso.requiredForStaff':
    case 'sso.trustProviderMfa':
      return z.boolean();
    case 'sso.issuer':
      return z.url({ protocol: /^https?$/ }).max(500);
    case 'sso.clientId':
      return z.string().trim().min(1).max(500);
    case 'sso.clientSecret':
      return z.string().min(1).max(1000);
    case 'sso.scopes':
      return z.string().trim().regex(/^[\x21-\x7e]+( [\x21-\x7e]+)*$/).max(500);
    case 'sso.groupsClaim':
      return z.string().trim().min(1).max(200);
    case 'sso.buttonLabel':
      return z.string().trim().min(1).max(100);
    case 'sso.roleMapping':
      return z.record(z.string().trim().min(1).max(200), z.enum(['ADMIN', 'DISTRIBUTOR', 'USER']));
    case 'events.retentionDays':
      return positiveInt(3650);
    case 'webhook.secret':
      return z.string().min(16).max(255);
    default:
      return z.string().max(2048);
  }
}

/** Values used while a setting is unset. */
export const SETTING_DEFAULTS: Partial<Record<SettingKey, unknown>> = {
  /** The product's name in mails (and wherever the theme names the product). */
  'theme.productName': DEFAULT_PRODUCT_NAME,
  'tan.maxLicenseCount': 1000,
  'license.temporaryMaxDays': 30,
  'anylic.maxDays': 365,
  'order.autoCreateAccount': false,
  'order.autoTemporaryLicense': false,
  'order.temporaryLicenseDays': 30,
  /** Administrators and distributors must sign in with a second factor. */
  'security.requireTwoFactor': false,
  'sso.scopes': 'openid email profile',
  'sso.groupsClaim': 'groups',
  'sso.roleMapping': {},
  'sso.provisioning': false,
  'sso.requiredForStaff': false,
  /** A provider that asserts a second factor (amr) spares the account's own. */
  'sso.trustProviderMfa': true,
  /** Runtime events of licenses are kept this many days (DESIGN.md section 6j). */
  'events.retentionDays': 180,
};

export const settingsMap = z.record(z.string(), z.unknown());
export const settingUpdate = z.object({ value: z.unknown() });
/** `PATCH /settings`: only the keys that change, each to its new value (null: unset it). */
export const settingsPatch = z
  .record(z.string().min(1).max(100), z.unknown())
  .refine((changes) => Object.keys(changes).length <= 200, { message: 'tooManyKeys' })
  .describe('The keys that change, each with its new value; null unsets a key. Keys left out keep their value.');
