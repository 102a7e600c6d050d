import { z } from 'zod';
import { STATISTICS_FIELDS } from './ability.ts';
import { STATISTICS_CATEGORIES, type StatisticsCategory } from './constants.ts';
import { isoDate, MAX_RECORD_ID, wholeNumberText } from './list.ts';

export const statisticsCategory = z.enum(STATISTICS_CATEGORIES);
export const statisticsParams = z.object({ category: statisticsCategory });

/**
 * The numbers of each category, per month and in total; history, except where marked (what each
 * counts, and why: docs/statistics.md). Field rules (spec section 6) are checked per
 * number: `view-chart` on `Statistics` with the field `<category path>.<metric>`, e.g.
 * `Tans.Activated.activations`.
 * - tan-activations: TAN licenses activated (`activations`), and all activations up to the month's
 *   end, since the beginning (`total`);
 * - tan-free-updates-expired: TANs whose free updates ended (`tans`) and their activated licenses (`licenses`);
 * - trial-licenses: temporary licenses added (`trials`), machines that tried a product (`machines`:
 *   machine and product pairs, counted in the month of their first trial ever), those of them that got
 *   a TAN license for that product since (`converted`), and `conversionRate` = converted / machines
 *   (0 to 1);
 * - new-users: accounts created (`users`); with a product, those holding a license of it now (current state);
 * - active-users: accounts by the month of their last login (`users`, current state); with a product, as above;
 * - active-machines: machines by the month of their software's latest contact through the desktop
 *   protocol (`machines`); with a product, the latest contact for a license of that product;
 * - downloads: release artifact downloads started (`downloads`, whole months: the first and last
 *   month of a range count whole); with a product, of that product version's releases;
 * - overage: floating seats granted beyond a TAN's count (DESIGN.md section 6g), as the true-up lists
 *   them (`grants`: one per TAN, license, machine and day), and the TANs with at least one (`tans`;
 *   in the totals, each TAN once over the whole range); with a product, of that product's TANs.
 */
export const STATISTICS_METRICS = {
  'tan-activations': ['activations', 'total'],
  'tan-free-updates-expired': ['tans', 'licenses'],
  'trial-licenses': ['trials', 'machines', 'converted', 'conversionRate'],
  'new-users': ['users'],
  'active-users': ['users'],
  'active-machines': ['machines'],
  downloads: ['downloads'],
  overage: ['grants', 'tans'],
} as const satisfies Record<StatisticsCategory, readonly string[]>;

export type StatisticsMetric<C extends StatisticsCategory = StatisticsCategory> = (typeof STATISTICS_METRICS)[C][number];

/** The metrics that are shares (0 to 1) rather than counts, each with the count it is a share of (none of nothing). */
export const RATE_METRICS: Readonly<Record<string, string>> = { conversionRate: 'machines' };

/** A share of a month or of the totals; null where it is a share of nothing (no machine tried a product): no rate, not 0 %. */
export function shareValue(metric: string, values: Readonly<Record<string, number>>): number | null {
  return values[RATE_METRICS[metric]] ? (values[metric] ?? 0) : null;
}

/** The permission field of one number of a category, for `view-chart` on `Statistics`. */
export function statisticsField(category: StatisticsCategory, metric: string): string {
  return `${STATISTICS_FIELDS[category]}.${metric}`;
}

/** At most twenty years of months in one answer. */
export const STATISTICS_MAX_MONTHS = 240;

export const statisticsQuery = z
  .object({
    /** First day, inclusive; default: the first day of the month eleven months ago (twelve months in all). */
    from: isoDate.optional(),
    /** Last day, inclusive; default: today (UTC). */
    to: isoDate.optional(),
    productId: wholeNumberText(1, MAX_RECORD_ID).optional(),
  })
  .refine((query) => !query.from || !query.to || query.from <= query.to, { path: ['from'], message: 'validation.dateOrder' })
  .refine((query) => !query.from || !query.to || monthsBetween(query.from, query.to).length <= STATISTICS_MAX_MONTHS, {
    path: ['from'],
    message: 'validation.rangeTooLong',
    params: { months: STATISTICS_MAX_MONTHS },
  });
export type StatisticsQuery = z.output<typeof statisticsQuery>;

const month = z.string().regex(/^\d{4}-\d{2}$/);

export const statisticsResult = z.object({
  category: statisticsCategory,
  from: isoDate,
  to: isoDate,
  productId: z.number().int().nullable(),
  /** Every month of the range in order, months without events included with zeros. */
  months: z.array(z.object({ month, values: z.record(z.string(), z.number()) })),
  totals: z.record(z.string(), z.number()),
});
export type StatisticsResult = z.output<typeof statisticsResult>;
export type StatisticsMonth = StatisticsResult['months'][number];

/** An inclusive range of days (`YYYY-MM-DD`), or of months (`YYYY-MM`) where named so. */
export interface DateRange {
  /** The first, inclusive. */
  from: string;
  /** The last, inclusive. */
  to: string;
}

// Months counted as numbers: as text, the month after 9999-12 ("10000-01") would sort before it.
const monthNumber = (date: string) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1;
const monthName = (number: number) => `${String(Math.floor(number / 12)).padStart(4, '0')}-${String((number % 12) + 1).padStart(2, '0')}`;

/** `YYYY-MM` of every month touched by the inclusive range of two `YYYY-MM-DD` dates. */
export function monthsBetween(from: string, to: string): string[] {
  const months: string[] = [];
  const last = monthNumber(to);
  for (let current = monthNumber(from); current <= last && months.length <= STATISTICS_MAX_MONTHS; current++) {
    months.push(monthName(current));
  }
  return months;
}

/** The last day (`YYYY-MM-DD`) of a month (`YYYY-MM`), leap years included. */
export function lastDayOfMonth(month: string): string {
  const year = Number(month.slice(0, 4));
  const index = Number(month.slice(5, 7)) - 1;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return `${month}-${[31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][index]}`;
}

/**
 * An inclusive range of days split into the whole months within it (`YYYY-MM`, inclusive; none when
 * no month is whole) and the days of the partial months at its ends: what a monthly summary can
 * answer, and what only the day rows can.
 */
export function wholeMonthsOf(range: DateRange): { months?: DateRange; days: DateRange[] } {
  const [first, last] = [range.from.slice(0, 7), range.to.slice(0, 7)];
  const startsWhole = range.from <= `${first}-01`;
  const endsWhole = range.to >= lastDayOfMonth(last);
  if (first === last) return startsWhole && endsWhole ? { months: { from: first, to: last }, days: [] } : { days: [range] };
  const months = { from: startsWhole ? first : monthName(monthNumber(range.from) + 1), to: endsWhole ? last : monthName(monthNumber(range.to) - 1) };
  const days = [...(startsWhole ? [] : [{ from: range.from, to: lastDayOfMonth(first) }]), ...(endsWhole ? [] : [{ from: `${last}-01`, to: range.to }])];
  return months.from <= months.to ? { months, days } : { days };
}

/** The default range: the twelve months up to today (UTC), from the first day of the oldest. */
export function defaultStatisticsRange(today: Date): { from: string; to: string } {
  const to = today.toISOString().slice(0, 10);
  const start = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 11, 1));
  return { from: start.toISOString().slice(0, 10), to };
}

/** The day after a `YYYY-MM-DD` date: the exclusive upper bound for timestamps of the range. */
export function dayAfter(date: string): string {
  const next = new Date(`${date}T00:00:00.000Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}
