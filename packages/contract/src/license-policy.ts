import { z } from 'zod';
import {
  DIFFERENT_MACHINES_INTERVAL_OPTIONS_H,
  FREE_UPDATES_PERIOD_OPTIONS_MONTHS,
  LOCALES,
  MONTH_DAYS,
  MONTH_SECONDS,
  REFETCH_INTERVAL_OPTIONS_S,
} from './constants.ts';
import { isoDateTime, listQuery, listResponse, updateOf } from './list.ts';
import { entitlementList, grantsView, OVERAGE_PERCENTS } from './entitlement.ts';

export const POLICY_TYPES = ['INDEFINITE', 'PERPETUAL', 'FLOATING'] as const;
/** The longest a floating seat may be borrowed for offline use. */
export const MAX_BORROW_DAYS = 365;
export type PolicyType = (typeof POLICY_TYPES)[number];
/** MACHINE: a TAN's count is machines (the default); USER: named users, seats an organization assigns (DESIGN.md 6f). */
export const SEAT_MODES = ['MACHINE', 'USER'] as const;
export type SeatMode = (typeof SEAT_MODES)[number];
/** The longest reassignment wait of a named-user seat (a year) and the most machines per person. */
export const MAX_SEAT_REASSIGN_HOURS = 8760;
export const MAX_MACHINES_PER_USER = 100;
/** How a FLOATING policy's seats are held (DESIGN.md section 6h): by machines, or by process instances leasing with the TAN. */
export const LEASE_MODES = ['MACHINE', 'INSTANCE'] as const;
export type LeaseMode = (typeof LEASE_MODES)[number];
/** The bounds of an instance lease's time to live, in seconds. */
export const LEASE_TTL_SECONDS = { min: 60, max: 86_400 } as const;
/** The types a person may choose (spec section 5); INDEFINITE belongs to the built-in policy. */
export const SELECTABLE_POLICY_TYPES = ['PERPETUAL', 'FLOATING'] as const satisfies readonly PolicyType[];

/** The policies of the first migration; their internal names are shown with friendly labels. */
export const BUILT_IN_POLICY_NAMES = ['SINGLE_HOST_INDEFINITE', 'SINGLE_HOST_PERPETUAL', 'FLOATING_DEFAULT'] as const;
export function isBuiltInPolicyName(name: string): boolean {
  return (BUILT_IN_POLICY_NAMES as readonly string[]).includes(name);
}

/** Months in days, whole days as the API takes them: one month is 30.5 days (spec section 9). */
export function monthsToDays(months: number): number {
  return Math.round(months * MONTH_DAYS);
}

/** The free-updates period options (spec section 9) in days; null is "none". */
export const FREE_UPDATES_PERIOD_OPTIONS_DAYS = FREE_UPDATES_PERIOD_OPTIONS_MONTHS.map((months) => (months === null ? null : monthsToDays(months)));

const DURATION_UNITS_S = [
  ['months', MONTH_SECONDS],
  ['days', 86400],
  ['hours', 3600],
  ['minutes', 60],
  ['seconds', 1],
] as const;
export type DurationUnit = (typeof DURATION_UNITS_S)[number][0];
export const DURATION_UNITS: readonly DurationUnit[] = DURATION_UNITS_S.map(([unit]) => unit);
export const DURATION_UNIT_SECONDS: Record<DurationUnit, number> = Object.fromEntries(DURATION_UNITS_S) as Record<DurationUnit, number>;

/**
 * A duration in seconds as the largest whole unit, for display: 2635200 s is one month, 86400 s
 * one day. Zero is 0 seconds.
 */
export function splitDuration(seconds: number): { amount: number; unit: DurationUnit } {
  for (const [unit, size] of DURATION_UNITS_S) {
    if (seconds >= size && seconds % size === 0) return { amount: seconds / size, unit };
  }
  return { amount: seconds, unit: 'seconds' };
}

/** An amount of a unit in whole seconds (what the API takes). */
export function toSeconds(amount: number, unit: DurationUnit): number {
  return Math.round(amount * DURATION_UNIT_SECONDS[unit]);
}

const oneOf = <T extends number>(options: readonly T[]) =>
  z
    .number()
    .int()
    .refine((value) => options.includes(value as T), 'validation.notAnOption');

/** A public name per locale, 2 to 255 characters (spec section 5): an entry without description is refused, not dropped. */
export const policyPublicName = z.partialRecord(z.enum(LOCALES), z.string().trim().min(2).max(255));

export const licensePolicyFields = z
  .object({
    name: z.string().trim().min(5).max(255),
    publicName: policyPublicName.default({}),
    type: z.enum(POLICY_TYPES),
    licenseMaxValidDays: z.number().int().min(1).max(100_000),
    refetchIntervalSeconds: oneOf(REFETCH_INTERVAL_OPTIONS_S),
    refetchBeforeExpirySeconds: oneOf(REFETCH_INTERVAL_OPTIONS_S),
    maxDifferentMachinesCount: z.number().int().min(1).max(1_000_000),
    maxDifferentMachinesIntervalHours: oneOf(DIFFERENT_MACHINES_INTERVAL_OPTIONS_H),
    freeUpdatesPeriodDays: z
      .number()
      .int()
      .refine((value) => FREE_UPDATES_PERIOD_OPTIONS_DAYS.includes(value), 'validation.notAnOption')
      .nullable()
      .default(null),
    /** Days a machine may borrow a floating seat for offline use; 0: no borrowing. */
    maxBorrowDays: z.number().int().min(0).max(MAX_BORROW_DAYS).default(0),
    /** Licenses of the policy may have beta releases (DESIGN.md section 6i). */
    betaUpdates: z.boolean().default(false),
    seatMode: z.enum(SEAT_MODES).default('MACHINE'),
    seatReassignHours: z.number().int().min(0).max(MAX_SEAT_REASSIGN_HOURS).default(0),
    machinesPerUser: z.number().int().min(1).max(MAX_MACHINES_PER_USER).default(2),
    /** Overrides of the product's feature values and added features (DESIGN.md section 6g). */
    entitlements: entitlementList.default([]),
    /** Soft limit: floating seats beyond the count, in percent of it (0: none). */
    overagePercent: oneOf(OVERAGE_PERCENTS).default(0),
    /** INSTANCE: the TAN is the key each process leases a seat with, for leaseTtlSeconds (FLOATING only). */
    leaseMode: z.enum(LEASE_MODES).default('MACHINE'),
    leaseTtlSeconds: z.number().int().min(LEASE_TTL_SECONDS.min).max(LEASE_TTL_SECONDS.max).nullable().default(null),
    notes: z.string().max(10000).nullish().transform((value) => value || null),
  })
  .refine((policy) => policy.type === 'FLOATING' || policy.maxBorrowDays === 0, { path: ['maxBorrowDays'], message: 'validation.borrowOnlyFloating' })
  .refine((policy) => policy.type !== 'FLOATING' || policy.seatMode === 'MACHINE', { path: ['seatMode'], message: 'validation.notAnOption' })
  .refine((policy) => policy.type === 'FLOATING' || policy.overagePercent === 0, { path: ['overagePercent'], message: 'validation.overageOnlyFloating' })
  .refine((policy) => policy.type === 'FLOATING' || policy.leaseMode === 'MACHINE', { path: ['leaseMode'], message: 'validation.instanceOnlyFloating' })
  .refine((policy) => policy.leaseMode === 'MACHINE' || policy.leaseTtlSeconds !== null, { path: ['leaseTtlSeconds'], message: 'validation.required' })
  .refine((policy) => policy.type !== 'INDEFINITE' || Object.keys(policy.publicName).length === 0, {
    path: ['publicName'],
    message: 'validation.indefiniteNoPublicName',
  })
  .superRefine((policy, ctx) => {
    // A file that expires before its next refresh (or is always "about to expire") leaves the
    // program without a license between refreshes; a perpetual file does not expire.
    if (policy.type === 'PERPETUAL') return;
    const validSeconds = policy.licenseMaxValidDays * 86400;
    for (const field of ['refetchIntervalSeconds', 'refetchBeforeExpirySeconds'] as const) {
      if (policy[field] >= validSeconds) ctx.addIssue({ code: 'custom', path: [field], message: 'validation.refetchBeyondValidity', params: { count: policy.licenseMaxValidDays } });
    }
  });
export type LicensePolicyFields = z.output<typeof licensePolicyFields>;
export type LicensePolicyInput = z.input<typeof licensePolicyFields>;
/**
 * The body of a POST: the fields, with only the types a person may choose (issue 49: the API document
 * offered INDEFINITE, which the server refuses; only the built-in policy has it).
 */
export const licensePolicyCreate = licensePolicyFields.safeExtend({
  type: z.enum(SELECTABLE_POLICY_TYPES).describe('PERPETUAL or FLOATING; INDEFINITE belongs to the built-in SINGLE_HOST_INDEFINITE policy only'),
});
/** The body of a PUT: a field left out keeps its value. */
export const licensePolicyUpdate = updateOf(licensePolicyFields);
export type LicensePolicyUpdate = z.output<typeof licensePolicyUpdate>;

export const licensePolicy = z.object({
  id: z.number().int(),
  name: z.string(),
  /** Built-in policies keep their internal name; the web app shows a friendly label. */
  builtIn: z.boolean(),
  publicName: z.partialRecord(z.enum(LOCALES), z.string()),
  type: z.enum(POLICY_TYPES),
  licenseMaxValidDays: z.number().int(),
  refetchIntervalSeconds: z.number().int(),
  refetchBeforeExpirySeconds: z.number().int(),
  maxDifferentMachinesCount: z.number().int(),
  maxDifferentMachinesIntervalHours: z.number().int(),
  freeUpdatesPeriodDays: z.number().nullable(),
  maxBorrowDays: z.number().int(),
  betaUpdates: z.boolean(),
  seatMode: z.enum(SEAT_MODES),
  seatReassignHours: z.number().int(),
  machinesPerUser: z.number().int(),
  entitlements: grantsView,
  overagePercent: z.number().int(),
  leaseMode: z.enum(LEASE_MODES),
  leaseTtlSeconds: z.number().int().nullable(),
  /** For administrators only: left out of answers to anyone else. */
  notes: z.string().nullable().optional(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});
export type LicensePolicy = z.output<typeof licensePolicy>;

export const LICENSE_POLICY_SORT_FIELDS = ['id', 'name', 'type', 'licenseMaxValidDays', 'createdAt'] as const;
export const licensePolicyListQuery = listQuery(LICENSE_POLICY_SORT_FIELDS).extend({ type: z.enum(POLICY_TYPES).optional() });
export const licensePolicyList = listResponse(licensePolicy);

/**
 * The form's public-name entries (spec section 5): locale required, description 2 to 255
 * characters, at most one entry per locale. The form turns them into the API's map.
 */
export const publicNameEntries = z
  .array(
    z.object({
      locale: z.enum(LOCALES, 'validation.required'),
      description: z.string().trim().min(2).max(255),
    }),
  )
  .superRefine((entries, ctx) => {
    entries.forEach((entry, index) => {
      if (entries.findIndex((other) => other.locale === entry.locale) !== index) {
        ctx.addIssue({ code: 'custom', path: [index, 'locale'], message: 'validation.duplicateLocale' });
      }
    });
  });
