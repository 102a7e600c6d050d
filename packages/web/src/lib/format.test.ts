import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatNumber, formatValue, parseDate, typedDateProblem } from './format.ts';

describe('locale-true formats, in one place', () => {
  it('groups numbers as each language writes them', () => {
    expect(['en', 'de', 'fr', 'es', 'it'].map((language) => formatNumber(5056, language as never))).toEqual(['5,056', '5.056', '5\u202f056', '5056', '5056']);
    expect(formatNumber(1_234_567, 'es')).toBe('1.234.567');
    expect(formatValue(12000, 'de')).toBe('12.000');
    expect(formatValue('abc', 'de')).toBe('abc');
  });

  it('shows a calendar day as the date pickers do, the same day in every time zone', () => {
    expect(formatDate('2025-12-01', 'en')).toBe('Dec 1, 2025');
    expect(formatDate('2025-12-01', 'de')).toBe('01.12.2025');
    expect(formatDate('2025-12-01', 'fr')).toBe('1 déc. 2025');
    expect(formatDate('2026-11-22', 'en')).not.toContain('/');
    expect(formatDate(null)).toBe('');
  });

  it('shows an instant with its local time', () => {
    const text = formatDateTime(new Date(2025, 11, 1, 14, 5), 'de');
    expect(text).toBe('01.12.2025, 14:05');
  });

  it('reads a typed date in the ISO form or the language’s own numeric form', () => {
    expect(parseDate('2025-12-01', 'de')).toBe('2025-12-01');
    expect(parseDate('01.12.2025', 'de')).toBe('2025-12-01');
    expect(parseDate('12/1/2025', 'en')).toBe('2025-12-01');
    expect(parseDate('1/12/2025', 'fr')).toBe('2025-12-01');
    expect(parseDate('31.02.2025', 'de')).toBeNull();
    expect(parseDate('tomorrow', 'en')).toBeNull();
  });

  it('reads a date typed the way the date fields show it, with the month by name', () => {
    for (const language of ['de', 'en', 'es', 'fr', 'it'] as const) {
      for (const day of ['2026-12-01', '2026-05-31', '2027-02-28', '2026-09-15']) expect(parseDate(formatDate(day, language), language), `${language} ${formatDate(day, language)}`).toBe(day);
    }
    expect(parseDate('Dec 1, 2026', 'en')).toBe('2026-12-01');
    expect(parseDate('december 1 2026', 'en')).toBe('2026-12-01');
    expect(parseDate('1 déc. 2026', 'fr')).toBe('2026-12-01');
    expect(parseDate('1 dec 2026', 'fr')).toBe('2026-12-01');
    expect(parseDate('1. Dezember 2026', 'de')).toBe('2026-12-01');
    expect(parseDate('1 dic 2026', 'it')).toBe('2026-12-01');
    expect(parseDate('2026 Dec 1', 'en')).toBe('2026-12-01');
    // An English month in another language, as people type it anyway.
    expect(parseDate('Dec 1, 2026', 'de')).toBe('2026-12-01');
  });

  it('refuses a named-month date that is no real day or names no month', () => {
    expect(parseDate('Feb 30, 2026', 'en')).toBeNull();
    expect(parseDate('Foo 1, 2026', 'en')).toBeNull();
    expect(parseDate('De 1, 2026', 'en')).toBeNull();
    expect(parseDate('Dec 2026', 'en')).toBeNull();
  });

  it('says why a typed date was not taken: unreadable, after the latest or before the earliest day', () => {
    const limits = { earliest: '2026-11-26', latest: '2026-12-26' };
    expect(typedDateProblem('Dec 1, 2026', limits, 'en')).toBeNull();
    expect(typedDateProblem('', limits, 'en')).toBeNull();
    expect(typedDateProblem('Dec 27, 2026', limits, 'en')).toEqual({ kind: 'tooLate', latest: '2026-12-26' });
    expect(typedDateProblem('01.01.2030', limits, 'de')).toEqual({ kind: 'tooLate', latest: '2026-12-26' });
    expect(typedDateProblem('2026-11-25', limits, 'fr')).toEqual({ kind: 'tooEarly', earliest: '2026-11-26' });
    expect(typedDateProblem('soon', limits, 'en')).toEqual({ kind: 'unreadable' });
    expect(typedDateProblem('31.02.2026', {}, 'de')).toEqual({ kind: 'unreadable' });
    expect(typedDateProblem('Dec 27, 2099', {}, 'en')).toBeNull();
  });
});
