import { describe, expect, it } from 'vitest';
import { abilityFor } from './ability.ts';
import { STATISTICS_CATEGORIES } from './constants.ts';
import { dayAfter, defaultStatisticsRange, lastDayOfMonth, monthsBetween, wholeMonthsOf, shareValue, STATISTICS_METRICS, statisticsField, statisticsQuery } from './statistics.ts';

describe('statistics ranges', () => {
  it('lists every month touched by an inclusive range, across years', () => {
    expect(monthsBetween('2024-11-15', '2025-02-01')).toEqual(['2024-11', '2024-12', '2025-01', '2025-02']);
    expect(monthsBetween('2025-03-01', '2025-03-31')).toEqual(['2025-03']);
  });

  it('defaults to the twelve months up to today, from the first of the oldest month', () => {
    expect(defaultStatisticsRange(new Date('2026-02-10T22:00:00Z'))).toEqual({ from: '2025-03-01', to: '2026-02-10' });
    expect(defaultStatisticsRange(new Date('2026-12-31T23:59:59Z'))).toEqual({ from: '2026-01-01', to: '2026-12-31' });
  });

  it('gives the day after, across month, year and leap days', () => {
    expect(dayAfter('2024-02-28')).toBe('2024-02-29');
    expect(dayAfter('2024-02-29')).toBe('2024-03-01');
    expect(dayAfter('2025-12-31')).toBe('2026-01-01');
  });

  it('refuses a range that ends before it starts or spans more than twenty years', () => {
    expect(statisticsQuery.safeParse({ from: '2025-02-01', to: '2025-01-31' }).success).toBe(false);
    expect(statisticsQuery.safeParse({ from: '2000-01-01', to: '2025-01-31' }).success).toBe(false);
    expect(statisticsQuery.safeParse({ from: '2006-01-01', to: '2025-12-31', productId: '3' })).toMatchObject({ success: true, data: { productId: 3 } });
  });
});

describe('statistics field rules', () => {
  it('let administrators see every number and distributors only those of their TANs: activations and over-limit grants', () => {
    const admin = abilityFor({ id: 1, accessRole: 'ADMIN' });
    const distributor = abilityFor({ id: 2, accessRole: 'DISTRIBUTOR' });
    const customer = abilityFor({ id: 3, accessRole: 'USER' });
    for (const category of STATISTICS_CATEGORIES) {
      for (const metric of STATISTICS_METRICS[category]) {
        const field = statisticsField(category, metric);
        expect(admin.can('view-chart', 'Statistics', field), field).toBe(true);
        expect(distributor.can('view-chart', 'Statistics', field), field).toBe(category === 'tan-activations' || category === 'overage');
        expect(customer.can('view-chart', 'Statistics', field), field).toBe(false);
      }
    }
    expect(statisticsField('trial-licenses', 'conversionRate')).toBe('Licenses.Trial.conversionRate');
    expect(statisticsField('overage', 'grants')).toBe('Tans.Overage.grants');
  });
});

describe('shares', () => {
  it('have a value only where their count is not zero: a month without trial machines has no conversion rate, not 0 %', () => {
    expect(shareValue('conversionRate', { trials: 0, machines: 0, converted: 0, conversionRate: 0 })).toBeNull();
    expect(shareValue('conversionRate', { trials: 5, machines: 4, converted: 0, conversionRate: 0 })).toBe(0);
    expect(shareValue('conversionRate', { trials: 5, machines: 4, converted: 1, conversionRate: 0.25 })).toBe(0.25);
  });
});

describe('whole months of a range', () => {
  it('splits a range into the whole months within it and the days of the partial months at its ends', () => {
    expect(wholeMonthsOf({ from: '2025-01-01', to: '2025-12-31' })).toEqual({ months: { from: '2025-01', to: '2025-12' }, days: [] });
    expect(wholeMonthsOf({ from: '2025-01-10', to: '2025-03-15' })).toEqual({
      months: { from: '2025-02', to: '2025-02' },
      days: [
        { from: '2025-01-10', to: '2025-01-31' },
        { from: '2025-03-01', to: '2025-03-15' },
      ],
    });
    expect(wholeMonthsOf({ from: '2025-01-10', to: '2025-02-15' })).toEqual({ days: [{ from: '2025-01-10', to: '2025-01-31' }, { from: '2025-02-01', to: '2025-02-15' }] });
    expect(wholeMonthsOf({ from: '2025-02-03', to: '2025-02-20' })).toEqual({ days: [{ from: '2025-02-03', to: '2025-02-20' }] });
    expect(wholeMonthsOf({ from: '2024-02-01', to: '2024-02-29' })).toEqual({ months: { from: '2024-02', to: '2024-02' }, days: [] });
    expect(wholeMonthsOf({ from: '2023-12-31', to: '2025-01-01' })).toEqual({
      months: { from: '2024-01', to: '2024-12' },
      days: [
        { from: '2023-12-31', to: '2023-12-31' },
        { from: '2025-01-01', to: '2025-01-01' },
      ],
    });
  });

  it('knows the last day of every month, leap years and years before 100 included', () => {
    expect(['2023-02', '2024-02', '1900-02', '2000-02', '0040-02', '2025-04', '9999-12'].map(lastDayOfMonth)).toEqual([
      '2023-02-28',
      '2024-02-29',
      '1900-02-28',
      '2000-02-29',
      '0040-02-29',
      '2025-04-30',
      '9999-12-31',
    ]);
  });
});
