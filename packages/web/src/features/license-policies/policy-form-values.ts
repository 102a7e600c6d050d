import { z } from 'zod';
import {
  licensePolicyFields,
  publicNameEntries,
  type LicensePolicy,
  type LeaseMode,
  type LicensePolicyInput,
  type PolicyType,
  type SeatMode,
} from '@lm/contract/license-policy';
import { formValidator } from '../../lib/forms.ts';
import { formatGrants, parseGrantsText } from '../../lib/grants-text.ts';
import i18n from '../../lib/i18n.ts';
import { unitsPerDay, validityDays, type ValidityUnit } from './policy-options.ts';

/** The license policy form's values, its body and its checks; the form is LicensePolicyForm.tsx. */
export interface PolicyFormValues {
  name: string;
  type: PolicyType | '';
  publicNames: { locale: string; description: string }[];
  validityAmount: number | string;
  validityUnit: ValidityUnit;
  refetchIntervalSeconds: string;
  refetchBeforeExpirySeconds: string;
  maxDifferentMachinesCount: number | string;
  maxDifferentMachinesIntervalHours: string;
  freeUpdatesPeriodDays: string;
  maxBorrowDays: number | string;
  betaUpdates: boolean;
  /** Soft limit in percent (DESIGN.md section 6g), as the select holds it. */
  overagePercent: string;
  leaseMode: LeaseMode;
  leaseTtlSeconds: number | string;
  /** Named users (DESIGN.md section 6f): a TAN's count is people, each on up to machinesPerUser machines. */
  seatMode: SeatMode;
  seatReassignHours: number | string;
  machinesPerUser: number | string;
  /** Grants (DESIGN.md section 6g) as text lines, as the TAN form edits them (lib/grants-text.ts). */
  entitlements: string;
  notes: string;
}

export const DEFAULTS: PolicyFormValues = {
  name: '',
  type: 'PERPETUAL',
  publicNames: [{ locale: 'en', description: '' }],
  validityAmount: 30,
  validityUnit: 'days',
  refetchIntervalSeconds: String(86400),
  refetchBeforeExpirySeconds: String(7 * 86400),
  maxDifferentMachinesCount: 3,
  maxDifferentMachinesIntervalHours: String(720),
  freeUpdatesPeriodDays: '',
  maxBorrowDays: 0,
  betaUpdates: false,
  overagePercent: '0',
  leaseMode: 'MACHINE',
  leaseTtlSeconds: 900,
  seatMode: 'MACHINE',
  seatReassignHours: 0,
  machinesPerUser: 2,
  entitlements: '',
  notes: '',
};

export function initialValues(policy: LicensePolicy | null): PolicyFormValues {
  if (!policy) return DEFAULTS;
  return {
    name: policy.name,
    type: policy.type,
    publicNames: Object.entries(policy.publicName).map(([locale, description]) => ({ locale, description: description ?? '' })),
    validityAmount: policy.licenseMaxValidDays,
    validityUnit: 'days',
    refetchIntervalSeconds: String(policy.refetchIntervalSeconds),
    refetchBeforeExpirySeconds: String(policy.refetchBeforeExpirySeconds),
    maxDifferentMachinesCount: policy.maxDifferentMachinesCount,
    maxDifferentMachinesIntervalHours: String(policy.maxDifferentMachinesIntervalHours),
    freeUpdatesPeriodDays: policy.freeUpdatesPeriodDays === null ? '' : String(policy.freeUpdatesPeriodDays),
    maxBorrowDays: policy.maxBorrowDays,
    betaUpdates: policy.betaUpdates,
    overagePercent: String(policy.overagePercent),
    leaseMode: policy.leaseMode,
    leaseTtlSeconds: policy.leaseTtlSeconds ?? 900,
    seatMode: policy.seatMode,
    seatReassignHours: policy.seatReassignHours,
    machinesPerUser: policy.machinesPerUser,
    entitlements: formatGrants(policy.entitlements),
    notes: policy.notes ?? '',
  };
}

const integer = (value: number | string) => (value === '' ? Number.NaN : Math.round(Number(value)));

/**
 * The API body: every number an integer (spec section 7); the validity in whole days, whatever unit
 * it was entered in (a month is 30.5 days).
 */
export function toBody(values: PolicyFormValues): LicensePolicyInput {
  const amount = values.validityAmount === '' ? Number.NaN : Number(values.validityAmount);
  return {
    name: values.name,
    type: values.type as PolicyType,
    publicName: values.type === 'INDEFINITE' ? {} : Object.fromEntries(values.publicNames.map((entry) => [entry.locale, entry.description])),
    licenseMaxValidDays: validityDays(amount, values.validityUnit) ?? Number.NaN,
    refetchIntervalSeconds: integer(values.refetchIntervalSeconds),
    refetchBeforeExpirySeconds: integer(values.refetchBeforeExpirySeconds),
    maxDifferentMachinesCount: integer(values.maxDifferentMachinesCount),
    maxDifferentMachinesIntervalHours: integer(values.maxDifferentMachinesIntervalHours),
    freeUpdatesPeriodDays: values.freeUpdatesPeriodDays === '' ? null : integer(values.freeUpdatesPeriodDays),
    // Only floating seats can be borrowed: another type sends 0, whatever was typed before switching.
    maxBorrowDays: values.type === 'FLOATING' ? integer(values.maxBorrowDays) : 0,
    betaUpdates: values.betaUpdates,
    overagePercent: values.type === 'FLOATING' ? integer(values.overagePercent) : 0,
    // Instance leases (DESIGN.md section 6h) are for floating policies only.
    leaseMode: values.type === 'FLOATING' ? values.leaseMode : 'MACHINE',
    leaseTtlSeconds: values.type === 'FLOATING' && values.leaseMode === 'INSTANCE' ? integer(values.leaseTtlSeconds) : null,
    // Floating seats are machines at once; named users are for the other types. Their numbers count only for named users.
    seatMode: values.type === 'FLOATING' ? 'MACHINE' : values.seatMode,
    seatReassignHours: values.type !== 'FLOATING' && values.seatMode === 'USER' ? integer(values.seatReassignHours) : 0,
    machinesPerUser: values.type !== 'FLOATING' && values.seatMode === 'USER' ? integer(values.machinesPerUser) : 2,
    entitlements: parseGrantsText(values.entitlements),
    notes: values.notes,
  };
}

const validateEntries = formValidator(z.object({ publicNames: publicNameEntries }));
const validateBody = formValidator(licensePolicyFields);
const FIELD_OF_BODY: Record<string, string> = { licenseMaxValidDays: 'validityAmount', publicName: 'publicNames' };
/** The form field of a body path: a grant's problem (`entitlements.1.value`) marks the grants' text. */
const fieldOfBody = (path: string) => (path.startsWith('entitlements.') ? 'entitlements' : (FIELD_OF_BODY[path] ?? path));

export function validate(values: PolicyFormValues): Record<string, string> {
  const bodyErrors = Object.entries(validateBody(toBody(values)))
    // Public-name entries are checked one by one below, with their positions. A field's first problem is shown.
    .filter(([path]) => !path.startsWith('publicName.'))
    .reduce<Record<string, string>>((errors, [path, message]) => ({ [fieldOfBody(path)]: message, ...errors }), {});
  const entryErrors = values.type === 'INDEFINITE' ? {} : validateEntries(values);
  return { ...bodyErrors, ...validityErrors(values), ...entryErrors };
}

/** Hours, minutes or seconds that make no whole day: the policy keeps days, and says so rather than rounding. */
function validityErrors(values: PolicyFormValues): Record<string, string> {
  const amount = Number(values.validityAmount);
  if (values.validityAmount === '' || !Number.isFinite(amount) || amount <= 0 || validityDays(amount, values.validityUnit) !== null) return {};
  const unit = values.validityUnit;
  return { validityAmount: i18n.t('catalogue.policy.wholeDays', { perDay: i18n.t(`catalogue.duration.${unit}`, { count: unitsPerDay(unit) }) }) };
}
