import { asSubject } from '@lm/contract';
import type { LicenseItem } from './api/licenses.ts';

/** A calendar date `YYYY-MM-DD` in the reader's language. */
export function formatDate(date: string, language: string): string {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString(language, { timeZone: 'UTC' });
}

/** A license as the permission rules see it. */
export function licenseSubject(license: LicenseItem) {
  return asSubject('License', { ownerId: license.ownerId, kind: license.kind, distributorId: license.distributorId } as Record<string, unknown>);
}

/** A temporary or dated license whose last day has passed (permanent ones never end). */
export function hasEnded(license: LicenseItem, today: string): boolean {
  return !license.permanent && license.validUntil !== null && license.validUntil < today;
}

const BUILT_IN_POLICIES = ['SINGLE_HOST_INDEFINITE', 'SINGLE_HOST_PERPETUAL', 'FLOATING_DEFAULT'];

/** The policy as customers read it: its public name in their language, a built-in's friendly label, else its name. */
export function policyLabel(license: LicenseItem, locale: string, t: (key: string) => string): string {
  const publicName = license.licensePolicyPublicName[locale];
  if (publicName) return publicName;
  return BUILT_IN_POLICIES.includes(license.licensePolicyName) ? t(`tans.builtInPolicies.${license.licensePolicyName}`) : license.licensePolicyName;
}
