import { describe, expect, it } from 'vitest';
import { MONTH_SECONDS } from './constants.ts';
import { FREE_UPDATES_PERIOD_OPTIONS_DAYS, licensePolicyFields, monthsToDays, publicNameEntries, splitDuration, toSeconds } from './license-policy.ts';

const valid = {
  name: 'Office policy',
  type: 'PERPETUAL',
  licenseMaxValidDays: 30,
  refetchIntervalSeconds: 86400,
  refetchBeforeExpirySeconds: 3600,
  maxDifferentMachinesCount: 2,
  maxDifferentMachinesIntervalHours: 48,
};

describe('durations', () => {
  it('count a month as 30.5 days and 2635200 seconds', () => {
    expect(MONTH_SECONDS).toBe(30.5 * 86400);
    expect(splitDuration(2635200)).toEqual({ amount: 1, unit: 'months' });
    expect(splitDuration(3 * 86400)).toEqual({ amount: 3, unit: 'days' });
    expect(splitDuration(90 * 60)).toEqual({ amount: 90, unit: 'minutes' });
    expect(splitDuration(0)).toEqual({ amount: 0, unit: 'seconds' });
    expect(toSeconds(2, 'months')).toBe(5270400);
    expect(toSeconds(1.5, 'hours')).toBe(5400);
  });

  it('turn free-updates months into whole days', () => {
    expect(monthsToDays(1)).toBe(31);
    expect(monthsToDays(12)).toBe(366);
    expect(FREE_UPDATES_PERIOD_OPTIONS_DAYS).toEqual([null, 31, 61, 92, 122, 153, 183, 214, 244, 275, 305, 336, 366, 732, 1098]);
  });
});

describe('licensePolicyFields', () => {
  it('takes a valid policy and defaults public name, free updates, borrowing and notes', () => {
    expect(licensePolicyFields.parse(valid)).toEqual({ ...valid, publicName: {}, freeUpdatesPeriodDays: null, maxBorrowDays: 0, betaUpdates: false, seatMode: 'MACHINE', seatReassignHours: 0, machinesPerUser: 2, entitlements: [], overagePercent: 0, leaseMode: 'MACHINE', leaseTtlSeconds: null, notes: null });
  });

  it('lets only floating policies allow borrowing, for at most a year', () => {
    expect(licensePolicyFields.safeParse({ ...valid, type: 'FLOATING', maxBorrowDays: 30 }).success).toBe(true);
    const refused = licensePolicyFields.safeParse({ ...valid, type: 'PERPETUAL', maxBorrowDays: 30 });
    expect(refused.error?.issues).toMatchObject([{ path: ['maxBorrowDays'], message: 'validation.borrowOnlyFloating' }]);
    expect(licensePolicyFields.safeParse({ ...valid, type: 'FLOATING', maxBorrowDays: 366 }).success).toBe(false);
  });

  it('refuses values off the spec lists and non-integers', () => {
    for (const change of [{ refetchIntervalSeconds: 1 }, { maxDifferentMachinesIntervalHours: 13 }, { freeUpdatesPeriodDays: 30.5 }, { licenseMaxValidDays: 2.5 }, { maxDifferentMachinesCount: 0 }]) {
      expect(licensePolicyFields.safeParse({ ...valid, ...change }).success, JSON.stringify(change)).toBe(false);
    }
  });

  it('refuses a public name on an INDEFINITE policy', () => {
    const result = licensePolicyFields.safeParse({ ...valid, type: 'INDEFINITE', publicName: { en: 'Named' } });
    expect(result.error?.issues[0].path).toEqual(['publicName']);
  });
});

describe('publicNameEntries', () => {
  it('requires the locale, 2 to 255 characters, and one entry per locale', () => {
    expect(publicNameEntries.safeParse([{ locale: 'en', description: 'OK' }, { locale: 'de', description: 'Gut' }]).success).toBe(true);
    const paths = (value: unknown) => publicNameEntries.safeParse(value).error?.issues.map((issue) => issue.path.join('.'));
    expect(paths([{ locale: '', description: 'Text' }])).toEqual(['0.locale']);
    expect(paths([{ locale: 'en', description: 'x' }])).toEqual(['0.description']);
    expect(paths([{ locale: 'en', description: 'x'.repeat(256) }])).toEqual(['0.description']);
    expect(paths([{ locale: 'en', description: 'One' }, { locale: 'en', description: 'Two' }])).toEqual(['1.locale']);
  });
});
