import { describe, expect, it } from 'vitest';
import { clientLicenseRequest } from './client-protocol.ts';
import { orderWebhook } from './order.ts';
import {
  activateLicense,
  addDays,
  daysBetween,
  extendedFreeUpdatesUntil,
  extendLicense,
  extensionDays,
  freeUpdatesState,
  machineId,
  todayOf,
} from './license.ts';

describe('license dates', () => {
  it('computes today in UTC and adds days across months and years', () => {
    expect(todayOf(new Date('2026-03-01T23:59:59.000Z'))).toBe('2026-03-01');
    expect(addDays('2026-02-27', 2)).toBe('2026-03-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-01-10', -10)).toBe('2025-12-31');
    expect(daysBetween('2026-01-01', '2026-03-01')).toBe(59);
    expect(daysBetween('2026-03-01', '2026-01-01')).toBe(-59);
  });

  it('extends trials by days, weeks (7 days) and months (30.5 days, rounded)', () => {
    expect(extensionDays(3, 'days')).toBe(3);
    expect(extensionDays(2, 'weeks')).toBe(14);
    expect(extensionDays(1, 'months')).toBe(31);
    expect(extensionDays(2, 'months')).toBe(61);
    expect(extensionDays(3, 'months')).toBe(92);
  });

  it('tells the free-updates state: none, active, expiring within 30 days, expired', () => {
    const today = '2026-06-15';
    expect(freeUpdatesState(null, today)).toBe('none');
    expect(freeUpdatesState('2026-08-01', today)).toBe('active');
    expect(freeUpdatesState('2026-07-15', today)).toBe('expiring');
    expect(freeUpdatesState('2026-06-15', today)).toBe('expiring');
    expect(freeUpdatesState('2026-06-14', today)).toBe('expired');
    expect(freeUpdatesState('2026-07-16', today)).toBe('active');
  });

  it('offers the policy period from today when a TAN changes product, a year without one', () => {
    expect(extendedFreeUpdatesUntil('2026-01-01', 366)).toBe('2027-01-02');
    expect(extendedFreeUpdatesUntil('2026-01-01', 30.5)).toBe('2026-02-01');
    expect(extendedFreeUpdatesUntil('2026-01-01', null)).toBe('2027-01-01');
    expect(extendedFreeUpdatesUntil('2026-01-01', 0)).toBe('2027-01-01');
  });
});

describe('license call schemas', () => {
  it('normalizes the TAN and trims the machine id on activation', () => {
    expect(activateLicense.parse({ tan: ' ABCD-EFGH-JKMN ', machineId: ' m-1 ' })).toEqual({ tan: 'abcdefghjkmn', machineId: 'm-1' });
    expect(activateLicense.safeParse({ tan: '', machineId: 'm' }).success).toBe(false);
    expect(activateLicense.safeParse({ tan: 'abcdefghjkmn', machineId: '' }).success).toBe(false);
  });

  it('takes machine ids of printable characters without spaces', () => {
    for (const ok of ['ABC-123', 'mac:00:11:22', 'x'.repeat(255)]) expect(machineId.safeParse(ok).success, ok).toBe(true);
    for (const bad of ['', 'two words', 'tab\tid', 'x'.repeat(256), 'ünïcode']) expect(machineId.safeParse(bad).success, bad).toBe(false);
    // `*` is the ANY-Lic files' machine (any machine): a license bound to it would give every machine a file.
    for (const any of ['*', ' * ']) expect(machineId.safeParse(any).error?.issues[0].message, any).toBe('validation.machineIdAnyMachine');
    expect(machineId.safeParse('**').success).toBe(true);
    // The same rule for the orders of a shop and the desktop protocol.
    const order = { orderId: 'o-1', email: 'buyer@example.com', firstName: 'B', lastName: 'Uyer', timestamp: '2026-01-01T00:00:00Z' };
    expect(orderWebhook.safeParse({ ...order, machineId: '*' }).success).toBe(false);
    expect(orderWebhook.safeParse({ ...order, machineId: 'two words' }).success).toBe(false);
    for (const none of ['', '  ', null, undefined]) expect(orderWebhook.parse({ ...order, machineId: none }).machineId).toBeNull();
    expect(orderWebhook.parse({ ...order, machineId: ' PC-1 ' }).machineId).toBe('PC-1');
    expect(clientLicenseRequest.safeParse({ machineId: '*', product: 'Studio' }).success).toBe(false);
  });

  it('takes an extension of 1 to 3650 days, weeks or months', () => {
    expect(extendLicense.parse({ amount: 2, unit: 'weeks' })).toEqual({ amount: 2, unit: 'weeks' });
    for (const bad of [{ amount: 0, unit: 'days' }, { amount: 1.5, unit: 'days' }, { amount: 1, unit: 'years' }, { amount: 3651, unit: 'days' }]) {
      expect(extendLicense.safeParse(bad).success).toBe(false);
    }
  });
});
