import type { ComboboxItemGroup } from '@mantine/core';
import type { TFunction } from 'i18next';
import { DIFFERENT_MACHINES_INTERVAL_OPTIONS_H, FREE_UPDATES_PERIOD_OPTIONS_MONTHS, REFETCH_INTERVAL_OPTIONS_S } from '@lm/contract';
import { DURATION_UNIT_SECONDS, monthsToDays, toSeconds, type DurationUnit } from '@lm/contract/license-policy';
import { formatDuration } from '../../lib/license-policies.ts';

type Group = ComboboxItemGroup<{ value: string; label: string }>;

/** Seconds in the unit the spec lists them in: minutes below an hour, hours up to 72, then days. */
function listUnit(seconds: number, hoursUpTo: number): DurationUnit {
  if (seconds < 3600) return 'minutes';
  return seconds <= hoursUpTo * 3600 ? 'hours' : 'days';
}

/**
 * Options grouped by unit. `values` and `current` are in the API's unit of `unitSeconds` seconds; a
 * current value off the list (older data) is offered too, so that editing keeps it.
 */
function grouped(values: readonly number[], unitSeconds: number, hoursUpTo: number, current: number | null, t: TFunction): Group[] {
  const all = current !== null && !values.includes(current) ? [...values, current] : [...values];
  const groups = new Map<DurationUnit, Group>();
  for (const value of all.sort((a, b) => a - b)) {
    const seconds = value * unitSeconds;
    const unit = listUnit(seconds, hoursUpTo);
    const amount = seconds / DURATION_UNIT_SECONDS[unit];
    const label = Number.isInteger(amount) ? t(`catalogue.duration.${unit}`, { count: amount }) : formatDuration(seconds, t);
    const group = groups.get(unit) ?? { group: t(`catalogue.units.${unit}`), items: [] };
    group.items.push({ value: String(value), label });
    groups.set(unit, group);
  }
  return [...groups.values()];
}

/** Refetch interval and refetch-before-expiry options (spec section 9), values in seconds. */
export function refetchOptions(t: TFunction, current: number | null = null): Group[] {
  return grouped(REFETCH_INTERVAL_OPTIONS_S, 1, 72, current, t);
}

/** Different-machines interval options (spec section 9), values in hours. */
export function machinesIntervalOptions(t: TFunction, current: number | null = null): Group[] {
  return grouped(DIFFERENT_MACHINES_INTERVAL_OPTIONS_H, 3600, 48, current, t);
}

/** Free-updates period options: none, or months, values in whole days (a month is 30.5 days). */
export function freeUpdatesOptions(t: TFunction, current: number | null = null): { value: string; label: string }[] {
  const options = FREE_UPDATES_PERIOD_OPTIONS_MONTHS.map((months) =>
    months === null ? { value: '', label: t('common.none') } : { value: String(monthsToDays(months)), label: t('catalogue.duration.months', { count: months }) },
  );
  if (current !== null && !options.some((option) => option.value === String(current))) options.push({ value: String(current), label: t('catalogue.duration.days', { count: current }) });
  return options;
}

/** The label of a free-updates period in days: "12 months", or days when it is no whole option. */
export function freeUpdatesLabel(days: number | null, t: TFunction): string {
  if (days === null) return t('common.none');
  const months = FREE_UPDATES_PERIOD_OPTIONS_MONTHS.find((option) => option !== null && monthsToDays(option) === days);
  return months ? t('catalogue.duration.months', { count: months }) : t('catalogue.duration.days', { count: days });
}

/** The units a file's validity is entered in (spec section 9: days, months, hours, minutes or seconds). */
export const VALIDITY_UNITS = ['days', 'months', 'hours', 'minutes', 'seconds'] as const satisfies readonly DurationUnit[];
export type ValidityUnit = (typeof VALIDITY_UNITS)[number];

/**
 * A validity typed in a unit, in the whole days the policy keeps (`licenseMaxValidDays`): 48 hours
 * are 2 days, 6 months 183 days (a month is 30.5 days, rounded as the free-updates period). Null
 * for an amount of hours, minutes or seconds that is no whole number of days.
 */
export function validityDays(amount: number, unit: ValidityUnit): number | null {
  if (unit === 'months') return monthsToDays(amount);
  const days = toSeconds(amount, unit) / DURATION_UNIT_SECONDS.days;
  return Number.isInteger(days) ? days : null;
}

/** How many of a unit make one day (24 hours, 1,440 minutes), for the message when an amount is not whole days. */
export function unitsPerDay(unit: ValidityUnit): number {
  return DURATION_UNIT_SECONDS.days / DURATION_UNIT_SECONDS[unit];
}
