import { describe, expect, it } from 'vitest';
import {
  checkMachineWindow,
  checkTrialAllowed,
  compareVersions,
  extendTrial,
  findFreeUpgrade,
  freeUpdatesUntilAtActivation,
  majorVersion,
  tanActivationRefusal,
  tanMachineWindow,
  temporaryValidityRefusal,
  type ProductVersion,
} from './rules.ts';

describe('TAN activation', () => {
  const usable = { revoked: false, licenseCount: 5, activatedCount: 4, productActive: true, floating: false };

  it('accepts a known, unrevoked TAN with activations left for an active product', () => {
    expect(tanActivationRefusal(usable)).toBeNull();
  });

  it('refuses an unknown, revoked or used-up TAN and an inactive product', () => {
    expect(tanActivationRefusal(undefined)).toBe('unknown');
    expect(tanActivationRefusal({ ...usable, revoked: true })).toBe('revoked');
    expect(tanActivationRefusal({ ...usable, activatedCount: 5 })).toBe('used-up');
    expect(tanActivationRefusal({ ...usable, activatedCount: 6 })).toBe('used-up');
    expect(tanActivationRefusal({ ...usable, productActive: false })).toBe('inactive-product');
  });

  it('lets any number of machines join a floating TAN: its count is seats in use, not activations', () => {
    expect(tanActivationRefusal({ ...usable, floating: true, activatedCount: 5 })).toBeNull();
    expect(tanActivationRefusal({ ...usable, floating: true, activatedCount: 500 })).toBeNull();
    expect(tanActivationRefusal({ ...usable, floating: true, revoked: true })).toBe('revoked');
  });
});

describe('different-machines window', () => {
  const now = new Date('2026-06-15T12:00:00.000Z');
  const window = { maxCount: 3, intervalHours: 48 };
  const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000).toISOString();

  it('allows machines up to the count within the interval', () => {
    expect(checkMachineWindow([], 'a', window, now)).toEqual({ allowed: true });
    expect(checkMachineWindow([{ machineId: 'a', boundAt: hoursAgo(1) }, { machineId: 'b', boundAt: hoursAgo(2) }], 'c', window, now)).toEqual({ allowed: true });
  });

  it('refuses one more different machine with the count, days and hours of the message', () => {
    const bindings = ['a', 'b', 'c'].map((machineId, i) => ({ machineId, boundAt: hoursAgo(i + 1) }));
    expect(checkMachineWindow(bindings, 'd', window, now)).toEqual({ allowed: false, count: 3, days: 2, hours: 48 });
  });

  it('lets a machine already bound within the window come back', () => {
    const bindings = ['a', 'b', 'c'].map((machineId, i) => ({ machineId, boundAt: hoursAgo(i + 1) }));
    expect(checkMachineWindow(bindings, 'b', window, now)).toEqual({ allowed: true });
  });

  it('counts each machine once, however often it was bound', () => {
    const bindings = ['a', 'b', 'a', 'b', 'a'].map((machineId, i) => ({ machineId, boundAt: hoursAgo(i + 1) }));
    expect(checkMachineWindow(bindings, 'c', window, now)).toEqual({ allowed: true });
  });

  it('forgets bindings older than the interval', () => {
    const bindings = [
      { machineId: 'a', boundAt: hoursAgo(49) },
      { machineId: 'b', boundAt: hoursAgo(47) },
      { machineId: 'c', boundAt: hoursAgo(3) },
    ];
    expect(checkMachineWindow(bindings, 'd', window, now)).toEqual({ allowed: true });
    expect(checkMachineWindow(bindings, 'd', { maxCount: 2, intervalHours: 48 }, now)).toEqual({ allowed: false, count: 2, days: 2, hours: 48 });
  });

  it('gives the days of a part-day interval to one decimal', () => {
    const result = checkMachineWindow([{ machineId: 'a', boundAt: hoursAgo(1) }], 'b', { maxCount: 1, intervalHours: 12 }, now);
    expect(result).toEqual({ allowed: false, count: 1, days: 0.5, hours: 12 });
  });

  it('never limits a TAN below its license count at activation', () => {
    expect(tanMachineWindow(window, 5)).toEqual({ maxCount: 5, intervalHours: 48 });
    expect(tanMachineWindow(window, 1)).toEqual({ maxCount: 3, intervalHours: 48 });
  });
});

describe('free updates at activation', () => {
  it("takes the TAN's date, else the policy's period from today, else none", () => {
    expect(freeUpdatesUntilAtActivation('2027-01-31', 366, '2026-06-15')).toBe('2027-01-31');
    expect(freeUpdatesUntilAtActivation(null, 366, '2026-06-15')).toBe('2027-06-16');
    expect(freeUpdatesUntilAtActivation(null, 30.5, '2026-06-15')).toBe('2026-07-16');
    expect(freeUpdatesUntilAtActivation(null, null, '2026-06-15')).toBeNull();
    expect(freeUpdatesUntilAtActivation(null, 0, '2026-06-15')).toBeNull();
  });
});

describe('temporary licenses', () => {
  const today = '2026-06-15';

  it('are valid from today up to the configured maximum of days', () => {
    expect(temporaryValidityRefusal('2026-06-15', today, 30)).toBeNull();
    expect(temporaryValidityRefusal('2026-07-15', today, 30)).toBeNull();
    expect(temporaryValidityRefusal('2026-07-16', today, 30)).toBe('too-far');
    expect(temporaryValidityRefusal('2026-06-14', today, 30)).toBe('past');
  });

  it('are one per product and machine without a repeat period', () => {
    const product = { repeatTrialAfterMonths: null, ignoreTrialsBefore: null };
    expect(checkTrialAllowed([], product, today)).toEqual({ allowed: true });
    expect(checkTrialAllowed(['2025-01-01T10:00:00.000Z'], product, today)).toEqual({ allowed: false, nextTrialFrom: null });
  });

  it('may repeat after the repeat period of months (30.5 days each)', () => {
    const product = { repeatTrialAfterMonths: 2, ignoreTrialsBefore: null };
    // 2 × 30.5 = 61 days after 2026-04-01 is 2026-06-01.
    expect(checkTrialAllowed(['2026-04-01T10:00:00.000Z'], product, today)).toEqual({ allowed: true });
    expect(checkTrialAllowed(['2026-04-01T10:00:00.000Z', '2026-05-01T10:00:00.000Z'], product, today)).toEqual({ allowed: false, nextTrialFrom: '2026-07-01' });
    expect(checkTrialAllowed(['2026-04-15T10:00:00.000Z'], product, today)).toEqual({ allowed: true });
    expect(checkTrialAllowed(['2026-04-16T10:00:00.000Z'], product, today)).toEqual({ allowed: false, nextTrialFrom: '2026-06-16' });
  });

  it('ignore trials before the product’s ignoreTrialsBefore date', () => {
    const product = { repeatTrialAfterMonths: null, ignoreTrialsBefore: '2026-01-01' };
    expect(checkTrialAllowed(['2025-12-31T23:00:00.000Z'], product, today)).toEqual({ allowed: true });
    expect(checkTrialAllowed(['2025-12-31T23:00:00.000Z', '2026-01-01T00:00:00.000Z'], product, today)).toEqual({ allowed: false, nextTrialFrom: null });
  });

  it('extend from their end by days, weeks or months up to the trial’s start + the maximum', () => {
    const started = { startedOn: today };
    expect(extendTrial({ ...started, validUntil: '2026-06-20' }, 5, 'days', today, 30)).toEqual({ allowed: true, validUntil: '2026-06-25' });
    expect(extendTrial({ ...started, validUntil: '2026-06-20' }, 2, 'weeks', today, 30)).toEqual({ allowed: true, validUntil: '2026-07-04' });
    expect(extendTrial({ ...started, validUntil: '2026-06-15' }, 1, 'months', today, 31)).toEqual({ allowed: true, validUntil: '2026-07-16' });
    expect(extendTrial({ ...started, validUntil: '2026-06-20' }, 1, 'months', today, 30)).toEqual({ allowed: false, reason: 'too-far', latest: '2026-07-15' });
  });

  it('count the limit from the trial’s start, never from today', () => {
    // Started on 1 June with a 14-day limit, ending tomorrow: three extensions of 13 days each
    // counted from today would reach 2 July; from the start it ends on 15 June at the latest.
    const trial = { startedOn: '2026-06-01', validUntil: '2026-06-16' };
    expect(extendTrial(trial, 13, 'days', '2026-06-15', 14)).toEqual({ allowed: false, reason: 'too-far', latest: '2026-06-15' });
    const running = { startedOn: '2026-06-01', validUntil: '2026-06-10' };
    expect(extendTrial(running, 5, 'days', '2026-06-09', 14)).toEqual({ allowed: true, validUntil: '2026-06-15' });
    expect(extendTrial({ ...running, validUntil: '2026-06-15' }, 1, 'days', '2026-06-09', 14)).toEqual({ allowed: false, reason: 'too-far', latest: '2026-06-15' });
    // A 200-day maximum and a trial ending tomorrow that started 100 days ago: 100 more days at most, not 150.
    expect(extendTrial({ startedOn: '2026-03-07', validUntil: '2026-06-16' }, 150, 'days', today, 200)).toEqual({ allowed: false, reason: 'too-far', latest: '2026-09-23' });
  });

  it('do not extend a trial that has ended; its last day still counts as running', () => {
    expect(extendTrial({ startedOn: '2026-05-01', validUntil: '2026-06-14' }, 3, 'days', today, 60)).toEqual({ allowed: false, reason: 'ended' });
    expect(extendTrial({ startedOn: '2026-05-01', validUntil: today }, 3, 'days', today, 60)).toEqual({ allowed: true, validUntil: '2026-06-18' });
    expect(extendTrial({ startedOn: today, validUntil: null }, 3, 'days', today, 30)).toEqual({ allowed: true, validUntil: '2026-06-18' });
  });
});

describe('free upgrades', () => {
  const today = '2026-06-15';
  const product = (id: number, version: string, releaseDate: string | null, extra: Partial<ProductVersion> = {}): ProductVersion => ({
    id,
    name: 'Studio',
    version,
    active: true,
    releaseDate,
    ...extra,
  });
  const current = product(1, '1.4', '2025-01-01');

  it('reads major versions and compares versions numerically', () => {
    expect(majorVersion('2.1.3')).toBe(2);
    expect(majorVersion('v10')).toBe(10);
    expect(majorVersion('2026')).toBe(2026);
    expect(majorVersion('beta')).toBeNull();
    expect(compareVersions('2.10', '2.9')).toBe(1);
    expect(compareVersions('2.0', '2')).toBe(0);
    expect(compareVersions('1.9.9', '2.0')).toBe(-1);
  });

  it('offers the newest release of the next major version released within the free-updates period', () => {
    const candidates = [current, product(2, '2.0', '2026-01-10'), product(3, '2.1', '2026-03-01'), product(4, '3.0', '2026-04-01')];
    expect(findFreeUpgrade(current, { from: '2025-06-01', until: '2026-12-31' }, candidates, today)?.id).toBe(3);
  });

  it('offers nothing released before the license was activated; a license from an upgrade has no such start', () => {
    const candidates = [product(2, '2.0', '2026-01-10'), product(3, '2.1', '2026-03-01')];
    expect(findFreeUpgrade(current, { from: '2026-03-02', until: '2026-12-31' }, candidates, today)).toBeNull();
    expect(findFreeUpgrade(current, { from: '2026-03-01', until: '2026-12-31' }, candidates, today)?.id).toBe(3);
    expect(findFreeUpgrade(current, { from: '2026-02-01', until: '2026-12-31' }, candidates, today)?.id).toBe(3);
    expect(findFreeUpgrade(current, { from: null, until: '2026-12-31' }, candidates, today)?.id).toBe(3);
  });

  it('offers nothing released after the free-updates end, in the future, inactive, of another name, or without a release date', () => {
    const candidates = [
      product(2, '2.0', '2027-01-10'),
      product(3, '2.1', '2026-09-01'),
      product(4, '3.0', '2026-01-01', { active: false }),
      product(5, '4.0', '2026-01-01', { name: 'Other' }),
      product(6, '5.0', null),
      product(7, '1.9', '2026-01-01'),
    ];
    expect(findFreeUpgrade(current, { from: '2025-06-01', until: '2026-12-31' }, candidates, today)).toBeNull();
  });

  it('offers nothing without free updates', () => {
    expect(findFreeUpgrade(current, { from: '2025-06-01', until: null }, [product(2, '2.0', '2026-01-10')], today)).toBeNull();
  });
});
