import type { TFunction } from 'i18next';
import { asSubject } from '@lm/contract';
import { policyLabel } from '../../lib/license-policies.ts';
import type { LicenseItem } from './api/licenses.ts';

/** A license as the permission rules see it. */
export function licenseSubject(license: LicenseItem) {
  return asSubject('License', { ownerId: license.ownerId, kind: license.kind, distributorId: license.distributorId } as Record<string, unknown>);
}

/** A temporary or dated license whose last day has passed (permanent ones never end). */
export function hasEnded(license: LicenseItem, today: string): boolean {
  return !license.permanent && license.validUntil !== null && license.validUntil < today;
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
