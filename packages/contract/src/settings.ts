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
  'theme.productName': DEFAULT_PRODUCT_NAME,
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
export const settingUpdate = z.object({ value: z.unknown() });
