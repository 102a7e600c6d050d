import { describe, expect, it } from 'vitest';
import type { TFunction } from 'i18next';
import { DIFFERENT_MACHINES_INTERVAL_OPTIONS_H, REFETCH_INTERVAL_OPTIONS_S } from '@lm/contract';
import { freeUpdatesLabel, freeUpdatesOptions, machinesIntervalOptions, refetchOptions, unitsPerDay, validityDays } from './policy-options.ts';

/** Shows the key and count instead of a translation: `catalogue.duration.hours:2`. */
const t = ((key: string, options?: { count?: number }) => (options?.count === undefined ? key : `${key}:${options.count}`)) as unknown as TFunction;
const values = (groups: ReturnType<typeof refetchOptions>) => groups.flatMap((group) => group.items.map((item) => item.value));

describe('policy options', () => {
  it('offer exactly the refetch intervals of the spec, in seconds, grouped as minutes, hours and days', () => {
    const groups = refetchOptions(t);
    expect(values(groups)).toEqual(REFETCH_INTERVAL_OPTIONS_S.map(String));
    expect(groups.map((group) => group.group)).toEqual(['catalogue.units.minutes', 'catalogue.units.hours', 'catalogue.units.days']);
    expect(groups[0].items.map((item) => item.label)).toEqual(['0', '15', '30', '45'].map((count) => `catalogue.duration.minutes:${count}`));
    expect(groups[1].items.at(-1)!.label).toBe('catalogue.duration.hours:72');
    expect(groups[2].items[0].label).toBe('catalogue.duration.days:5');
  });

  it('offer the different-machines intervals in hours up to 48, then days', () => {
    const groups = machinesIntervalOptions(t);
    expect(values(groups)).toEqual(DIFFERENT_MACHINES_INTERVAL_OPTIONS_H.map(String));
    expect(groups[0].items.map((item) => item.label)).toEqual([12, 24, 36, 48].map((count) => `catalogue.duration.hours:${count}`));
    expect(groups[1].items.map((item) => item.label)).toContain('catalogue.duration.days:1095');
  });

  it('keep a stored value that is off the list, so that editing does not lose it', () => {
    expect(values(refetchOptions(t, 90))).toContain('90');
    expect(values(machinesIntervalOptions(t, 25))).toContain('25');
    expect(freeUpdatesOptions(t, 400).map((option) => option.value)).toContain('400');
  });

  it('offer free updates as none or months, sent as whole days', () => {
    const options = freeUpdatesOptions(t);
    expect(options[0]).toEqual({ value: '', label: 'common.none' });
    expect(options.slice(1).map((option) => option.value)).toEqual(['31', '61', '92', '122', '153', '183', '214', '244', '275', '305', '336', '366', '732', '1098']);
    expect(freeUpdatesLabel(366, t)).toBe('catalogue.duration.months:12');
    expect(freeUpdatesLabel(null, t)).toBe('common.none');
    expect(freeUpdatesLabel(100, t)).toBe('catalogue.duration.days:100');
  });
});

describe('a file validity entered in any unit of the spec', () => {
  it('is kept in whole days: days as they are, months of 30.5 days, hours, minutes and seconds that make whole days', () => {
    expect(validityDays(30, 'days')).toBe(30);
    expect(validityDays(6, 'months')).toBe(183);
    expect(validityDays(1.5, 'months')).toBe(46);
    expect(validityDays(48, 'hours')).toBe(2);
    expect(validityDays(2880, 'minutes')).toBe(2);
    expect(validityDays(86400, 'seconds')).toBe(1);
  });

  it('is refused as no whole number of days, so that the form says so instead of rounding', () => {
    expect(validityDays(36, 'hours')).toBeNull();
    expect(validityDays(90, 'minutes')).toBeNull();
    expect(validityDays(1000, 'seconds')).toBeNull();
    expect([unitsPerDay('hours'), unitsPerDay('minutes'), unitsPerDay('seconds'), unitsPerDay('days')]).toEqual([24, 1440, 86400, 1]);
  });
});
