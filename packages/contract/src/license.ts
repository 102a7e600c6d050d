/**
 * Licenses (DESIGN.md sections 5 and 6): the shapes of the license calls and the date rules that the
 * server and the web app share. Dates are calendar dates `YYYY-MM-DD` computed in UTC.
 */
import { z } from 'zod';
import { MONTH_DAYS, TRIAL_EXTENSION_UNITS, type TrialExtensionUnit } from './constants.ts';
import { ANY_MACHINE } from './license-file.ts';
import { isoDate, isoDateTime, listQuery, listResponse, MAX_RECORD_ID, organizationFilter, organizationRef, recordId, wholeNumberText } from './list.ts';
import { email } from './user.ts';
import { tanCode } from './tan.ts';

export const LICENSE_KINDS = ['TAN', 'TEMPORARY'] as const;
export type LicenseKind = (typeof LICENSE_KINDS)[number];
export const POLICY_TYPES = ['INDEFINITE', 'PERPETUAL', 'FLOATING'] as const;

/** Free updates that end within this many days are announced to the customer. */
export const FREE_UPDATES_NOTICE_DAYS = 30;
export const MAX_EXTENSION_AMOUNT = 3650;

// ---------------------------------------------------------------------------------------------
// Dates

const DAY_MS = 86_400_000;

/** Today's date in UTC. */
export function todayOf(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00.000Z`) + Math.round(days) * DAY_MS).toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00.000Z`) - Date.parse(`${from}T00:00:00.000Z`)) / DAY_MS);
}

/**
 * How many days ahead a temporary license of a product may reach, when added or extended: the
 * product's trial days, never beyond the configured maximum (a product without trial days offers
 * no new trials; its existing ones keep the maximum).
 */
export function trialReachDays(productTrialDays: number | null, configuredMaxDays: number): number {
  return productTrialDays === null ? configuredMaxDays : Math.min(productTrialDays, configuredMaxDays);
}

/** A trial extension in days: a week is 7 days, a month 30.5 (spec section 9), rounded. */
export function extensionDays(amount: number, unit: TrialExtensionUnit): number {
  if (unit === 'weeks') return amount * 7;
  if (unit === 'months') return Math.round(amount * MONTH_DAYS);
  return amount;
}

export type FreeUpdatesState = 'none' | 'active' | 'expiring' | 'expired';

/** Whether a license's free updates run, end within 30 days, have ended, or never existed. */
export function freeUpdatesState(freeUpdatesUntil: string | null, today: string): FreeUpdatesState {
  if (!freeUpdatesUntil) return 'none';
  const left = daysBetween(today, freeUpdatesUntil);
  if (left < 0) return 'expired';
  return left <= FREE_UPDATES_NOTICE_DAYS ? 'expiring' : 'active';
}

/** The free-updates date offered when a TAN's product changes: the policy's period from today (a year without one). */
export function extendedFreeUpdatesUntil(today: string, periodDays: number | null | undefined): string {
  return addDays(today, periodDays && periodDays > 0 ? periodDays : 365);
}

// ---------------------------------------------------------------------------------------------
// Calls

/**
 * A machine id as the desktop software derives it: printable ASCII without spaces. `*` is the
 * machine id of ANY-Lic files (any machine), never of a license: a license bound to it would give
 * every machine a file.
 */
export const machineId = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'validation.machineId')
  .refine((value) => value !== ANY_MACHINE, 'validation.machineIdAnyMachine');

export const activateLicense = z.object({ tan: tanCode, machineId });
export type ActivateLicense = z.output<typeof activateLicense>;

export const temporaryLicense = z.object({ productId: recordId, machineId, validUntil: isoDate });
export type TemporaryLicense = z.output<typeof temporaryLicense>;

export const extendLicense = z.object({
  amount: z.number().int().min(1).max(MAX_EXTENSION_AMOUNT),
  unit: z.enum(TRIAL_EXTENSION_UNITS),
});
export type ExtendLicense = z.output<typeof extendLicense>;

export const changeMachine = z.object({ machineId });
export const moveLicense = z.object({ email });

/** The administrator's edit: revoke, valid until, permanent; a field left out keeps its value. */
export const licenseUpdate = z.object({
  revoked: z.boolean().optional(),
  validUntil: isoDate.nullable().optional(),
  permanent: z.boolean().optional(),
});
export type LicenseUpdate = z.output<typeof licenseUpdate>;

export const freeUpgrade = z.object({ productId: z.number().int(), productName: z.string() });

export const license = z.object({
  id: z.number().int(),
  kind: z.enum(LICENSE_KINDS),
  ownerId: z.number().int(),
  ownerName: z.string(),
  ownerEmail: z.string(),
  productId: z.number().int(),
  productName: z.string(),
  productVersion: z.string(),
  licensePolicyId: z.number().int(),
  licensePolicyName: z.string(),
  licensePolicyType: z.enum(POLICY_TYPES),
  /** The policy's name for customers, per locale (empty for INDEFINITE policies). */
  licensePolicyPublicName: z.record(z.string(), z.string()),
  tanId: z.number().int().nullable(),
  tanCode: z.string().nullable(),
  distributorId: z.number().int().nullable(),
  /** The organization that owns it (DESIGN.md section 6f). */
  organization: organizationRef.nullable(),
  machineId: z.string().nullable(),
  validUntil: isoDate.nullable(),
  permanent: z.boolean(),
  revoked: z.boolean(),
  /** Its TAN is suspended (an unpaid subscription): no file until the TAN is reinstated. */
  suspended: z.boolean(),
  /** Its TAN's validity (a subscription's paid period plus grace); the license ends then at the latest. */
  tanValidUntil: isoDate.nullable(),
  /** Its TAN was bought as a shop subscription: its end moves with each payment. False for an end set by hand. */
  tanSubscription: z.boolean(),
  /** A temporary license: the latest end its extensions may reach (its start plus the trial limit); null otherwise. */
  latestTrialEnd: isoDate.nullable(),
  /** A floating license: the machine's seat now, if it holds one, and whether it is borrowed for offline use. */
  seat: z.object({ leasedUntil: isoDateTime, borrowedUntil: isoDateTime.nullable() }).nullable(),
  freeUpdatesUntil: isoDate.nullable(),
  freeUpdatesState: z.enum(['none', 'active', 'expiring', 'expired']),
  upgradedToId: z.number().int().nullable(),
  /** A newer major version within the free-updates period, offered as a free upgrade. */
  freeUpgrade: freeUpgrade.nullable(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});
export type License = z.output<typeof license>;

export const LICENSE_SORT_FIELDS = ['id', 'createdAt', 'machineId', 'validUntil', 'freeUpdatesUntil'] as const;

export const licenseListQuery = listQuery(LICENSE_SORT_FIELDS).extend({
  /**
   * `all`: every license the caller may see across accounts (view-list on License: administrators
   * all, distributors those of their TANs); `filter` then also matches the owner's name and e-mail.
   */
  scope: z.enum(['all']).optional(),
  /** Another account's licenses (view-list on License). */
  userId: wholeNumberText(1, MAX_RECORD_ID).optional(),
  /** The licenses activated from one TAN (view-list on License). */
  tanId: wholeNumberText(1, MAX_RECORD_ID).optional(),
  /** Only what an offline machine can use: neither revoked, upgraded nor expired. */
  offline: z.enum(['true', 'false']).transform((value) => value === 'true').optional(),
  /** The licenses of one organization (view-list on License; a distributor's still only those of its TANs). */
  organizationId: organizationFilter,
});
export type LicenseListQuery = z.output<typeof licenseListQuery>;
export const licenseList = listResponse(license);

/** What the add-temporary-license form offers: active products and the longest validity. */
export const temporaryOptions = z.object({
  maxDays: z.number().int(),
  products: z.array(z.object({ id: z.number().int(), name: z.string(), version: z.string(), formattedName: z.string(), trialDays: z.number().int().nullable() })),
});
export type TemporaryOptions = z.output<typeof temporaryOptions>;
