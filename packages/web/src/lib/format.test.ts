import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatNumber, formatValue, parseDate } from './format.ts';

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
});
