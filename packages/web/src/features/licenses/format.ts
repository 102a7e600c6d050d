import type { TFunction } from 'i18next';
import { asSubject, type TrialExtensionUnit } from '@lm/contract';
import { daysBetween, extensionDays, MAX_EXTENSION_AMOUNT } from '@lm/contract/license';
import { policyLabel } from '../../lib/license-policies.ts';
import type { LicenseItem } from './api/licenses.ts';

/** A license as the permission rules see it. */
export function licenseSubject(license: LicenseItem) {
  return asSubject('License', { ownerId: license.ownerId, kind: license.kind, distributorId: license.distributorId } as Record<string, unknown>);
}

/** The last day a license is valid: its own (unless permanent) or its TAN's subscription, whichever comes first. */
export function lastValidDay(license: Pick<LicenseItem, 'permanent' | 'validUntil' | 'tanValidUntil'>): string | null {
  const own = license.permanent ? null : license.validUntil;
  if (own === null || license.tanValidUntil === null) return own ?? license.tanValidUntil;
  return own < license.tanValidUntil ? own : license.tanValidUntil;
}

/** A license whose last day has passed (permanent ones end only with their TAN's subscription). */
export function hasEnded(license: Pick<LicenseItem, 'permanent' | 'validUntil' | 'tanValidUntil'>, today: string): boolean {
  const last = lastValidDay(license);
  return last !== null && last < today;
}

/**
 * The policy as customers read it: its public name in their language, else a built-in's friendly
 * label, else its name. A trial runs on its product's default policy but ends on its date, so it
 * is called a trial, never "perpetual".
 */
export function policyName(license: LicenseItem, locale: string, t: TFunction): string {
  if (license.kind === 'TEMPORARY') return t('licenses.trialPolicy');
  return license.licensePolicyPublicName[locale] || policyLabel({ name: license.licensePolicyName }, t);
}

/**
 * The most a trial may still be extended by, in each unit: up to its latest end (its start plus the
 * trial limit, DESIGN.md section 6), counted from its current end.
 */
export function extensionLimits(license: Pick<LicenseItem, 'validUntil' | 'latestTrialEnd'>, today: string): Record<TrialExtensionUnit, number> {
  const from = license.validUntil ?? today;
  const left = license.latestTrialEnd ? Math.max(0, daysBetween(from, license.latestTrialEnd)) : MAX_EXTENSION_AMOUNT;
  const most = (unit: TrialExtensionUnit) => {
    let amount = Math.min(MAX_EXTENSION_AMOUNT, Math.floor(left / extensionDays(1, unit)));
    while (amount > 0 && extensionDays(amount, unit) > left) amount--;
    return amount;
  };
  return { days: most('days'), weeks: most('weeks'), months: most('months') };
}
