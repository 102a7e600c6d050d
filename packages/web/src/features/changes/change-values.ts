import type { TFunction } from 'i18next';
import { LOCALE_NAMES, LOCALES, resolveLocale, type Locale } from '@lm/contract';
import { CHANGE_REFERENCE_FIELDS, type ChangeReferences } from '@lm/contract/change-log';
import { formatTanCode, isTanCode } from '@lm/contract/tan';
import { countryName } from '../../lib/countries.ts';
import { policyLabel } from '../../lib/license-policies.ts';
import { formatDate, formatDateTime, formatNumber } from '../../lib/format.ts';

/** Every field the server writes into the change log, across the six models (labels: `changes.fields.*`). */
export const LOGGED_FIELDS = [
  'id', 'email', 'username', 'firstName', 'lastName', 'formattedName', 'company', 'address', 'address2', 'zip', 'city', 'country', 'phone', 'fax',
  'notes', 'accessRole', 'optInEmail', 'confirmed', 'passwordReset', 'passwordChanged', 'twoFactor', 'locale', 'createdAt', 'updatedAt',
  'name', 'version', 'active', 'trialDays', 'repeatTrialAfterMonths', 'ignoreTrialsBefore', 'releaseDate', 'features', 'defaultLicensePolicyId', 'downloadLinks',
  'code', 'productId', 'licensePolicyId', 'licenseCount', 'activatedCount', 'distributorId', 'revoked', 'suspended', 'freeUpdatesUntil', 'tags',
  'kind', 'ownerId', 'tanId', 'machineId', 'validUntil', 'tanValidUntil', 'permanent', 'upgradedToId',
  'localizedDescription', 'hidden', 'expandToFeatures',
  'builtIn', 'publicName', 'type', 'licenseMaxValidDays', 'refetchIntervalSeconds', 'refetchBeforeExpirySeconds', 'maxDifferentMachinesCount',
  'maxDifferentMachinesIntervalHours', 'freeUpdatesPeriodDays', 'maxBorrowDays',
] as const;

/** A referenced record by what it is called now; one deleted since by its id. */
function referenceName(field: keyof typeof CHANGE_REFERENCE_FIELDS, id: number, t: TFunction, references: ChangeReferences): string {
  const model = CHANGE_REFERENCE_FIELDS[field];
  const name = references[model]?.[String(id)];
  if (name === undefined) return t('changes.deletedRecord', { id });
  return model === 'LicensePolicy' ? policyLabel({ name }, t) : name;
}

const CALENDAR_DAY = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** A field's label in the interface language; a field the log did not have when this was written shows as it is named. */
export function fieldLabel(field: string, t: TFunction): string {
  return (LOGGED_FIELDS as readonly string[]).includes(field) ? t(`changes.fields.${field}`) : field;
}

/** Values that are codes get their label: roles, policy types, license kinds; TAN codes are written in groups. */
const CODED: Record<string, (value: string, t: TFunction) => string> = {
  code: (value) => (isTanCode(value) ? formatTanCode(value) : value),
  accessRole: (value, t) => t(`users.roles.${value}`, { defaultValue: value }),
  type: (value, t) => t(`catalogue.policy.types.${value}`, { defaultValue: value }),
  kind: (value, t) => t(`changes.kinds.${value}`, { defaultValue: value }),
  locale: (value) => LOCALE_NAMES[value as Locale] ?? value,
};

/**
 * A value as a person reads it, in the interface language: yes/no, labels for codes, country
 * names, dates and numbers as the language writes them, texts per language named by the language,
 * lists joined; nothing as a dash.
 */
export function displayValue(field: string, value: unknown, t: TFunction, interfaceLanguage: string, references: ChangeReferences = {}): string {
  const language = resolveLocale(interfaceLanguage);
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'number' && field in CHANGE_REFERENCE_FIELDS) return referenceName(field as keyof typeof CHANGE_REFERENCE_FIELDS, value, t, references);
  if (typeof value === 'boolean') return value ? t('common.yes') : t('common.no');
  if (typeof value === 'number') return field.endsWith('Id') || field === 'id' ? String(value) : formatNumber(value, language);
  if (value instanceof Date) return formatDateTime(value, language);
  if (typeof value === 'string') {
    if (CODED[field]) return CODED[field](value, t);
    if (field === 'country') return countryName(value, language);
    if (CALENDAR_DAY.test(value)) return formatDate(value, language);
    if (INSTANT.test(value)) return formatDateTime(value, language);
    return value;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return '—';
    return value.map((item) => (item && typeof item === 'object' && 'url' in item ? `${t(`catalogue.product.linkTypes.${String((item as { type?: string }).type)}`)}: ${String((item as { url: unknown }).url)}` : String(item))).join(', ');
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return '—';
    if (entries.every(([key]) => (LOCALES as readonly string[]).includes(key))) return entries.map(([key, text]) => `${LOCALE_NAMES[key as Locale]}: ${String(text)}`).join('; ');
    return JSON.stringify(value);
  }
  return String(value);
}
