import { describe, expect, it, vi } from 'vitest';
import { renderMessage } from '@lm/contract';
import { licensePolicyFields, type LicensePolicy } from '@lm/contract/license-policy';
import { MESSAGE_CATALOGS } from '@lm/contract/messages/index';

// i18next as the app runs it, on the shared English texts.
vi.mock('../../lib/i18n.ts', () => ({
  default: { t: (key: string, params: Record<string, string | number> = {}) => renderMessage(MESSAGE_CATALOGS.en, 'en', 'validation', key.replace(/^validation\./, ''), params) },
}));

const { DEFAULTS, initialValues, toBody, validate } = await import('./policy-form-values.ts');

const policy: LicensePolicy = {
  id: 4,
  name: 'Studio floating',
  builtIn: false,
  publicName: { en: 'Studio seats' },
  type: 'FLOATING',
  licenseMaxValidDays: 30,
  refetchIntervalSeconds: 86400,
  refetchBeforeExpirySeconds: 604800,
  maxDifferentMachinesCount: 3,
  maxDifferentMachinesIntervalHours: 720,
  freeUpdatesPeriodDays: null,
  maxBorrowDays: 0,
  betaUpdates: false,
  seatMode: 'MACHINE',
  seatReassignHours: 0,
  machinesPerUser: 2,
  entitlements: [
    { feature: 'MAX_PROJECTS', value: 100 },
    { feature: 'CLOUD', value: null },
    { feature: 'CODE', value: '42' },
  ],
  overagePercent: 0,
  leaseMode: 'MACHINE',
  leaseTtlSeconds: null,
  notes: null,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
};

describe('the license policy form', () => {
  it('shows a policy\'s grants as text lines and sends them back unchanged', () => {
    const values = initialValues(policy);
    expect(values.entitlements).toBe('MAX_PROJECTS=100\nCLOUD\nCODE="42"');
    expect(toBody(values).entitlements).toEqual(policy.entitlements);
    expect(licensePolicyFields.safeParse(toBody(values)).success).toBe(true);
  });

  it('starts a new policy without grants', () => {
    expect(DEFAULTS.entitlements).toBe('');
    expect(toBody({ ...DEFAULTS, name: 'Lab perpetual', publicNames: [] }).entitlements).toEqual([]);
  });

  it('marks a wrong grant at the grants\' text, the first problem shown', () => {
    const values = { ...initialValues(policy), entitlements: 'MAX PROJECTS=1\nCLOUD\nCLOUD' };
    const errors = validate(values);
    expect(Object.keys(errors)).toEqual(['entitlements']);
    expect(errors.entitlements).toBe(MESSAGE_CATALOGS.en.validation.featureNameChars);
    expect(validate({ ...values, entitlements: 'CLOUD\nCLOUD' }).entitlements).toBe(MESSAGE_CATALOGS.en.validation.duplicateFeature);
  });
});
