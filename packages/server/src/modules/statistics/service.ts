import type { StatisticsCategory } from '@lm/contract';
import {
  dayAfter,
  defaultStatisticsRange,
  monthsBetween,
  STATISTICS_METRICS,
  type StatisticsMonth,
  type StatisticsQuery,
  type StatisticsResult,
} from '@lm/contract/statistics';
import type { AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import {
  activeMachinesByMonth,
  activeMachinesInRange,
  activeUsersByMonth,
  freeUpdatesExpiredByMonth,
  newUsersByMonth,
  tanActivationsBefore,
  tanActivationsByMonth,
  trialConversionsByMonth,
  trialLicensesByMonth,
  type MonthCounts,
  type Range,
} from './repo.ts';

/** Whose data a caller may count: a distributor only its own TANs' activations. */
export interface StatisticsScope {
  distributorId?: number;
}

type Row = Record<string, number>;

/** Every month of the range, in order, with each metric (zero where nothing happened). */
function fillMonths(months: string[], metrics: readonly string[], ...sources: MonthCounts[]): StatisticsMonth[] {
  return months.map((month) => {
    const values: Row = Object.fromEntries(metrics.map((metric) => [metric, 0]));
    for (const source of sources) Object.assign(values, source.get(month));
    return { month, values };
  });
}

const sum = (months: StatisticsMonth[], metric: string) => months.reduce((total, month) => total + (month.values[metric] ?? 0), 0);
const rate = (part: number, whole: number) => (whole ? part / whole : 0);

async function compute(db: Executor, category: StatisticsCategory, range: Range, months: string[], scope: StatisticsScope): Promise<{ months: StatisticsMonth[]; totals: Row }> {
  const metrics = STATISTICS_METRICS[category];
  switch (category) {
    case 'tan-activations': {
      const [counts, before] = await Promise.all([
        tanActivationsByMonth(db, range, scope.distributorId),
        tanActivationsBefore(db, range.from, range.productId, scope.distributorId),
      ]);
      let running = before;
      const rows = fillMonths(months, metrics, counts).map(({ month, values }) => {
        running += values.activations;
        return { month, values: { ...values, total: running } };
      });
      return { months: rows, totals: { activations: sum(rows, 'activations'), total: running } };
    }
    case 'tan-free-updates-expired': {
      const rows = fillMonths(months, metrics, await freeUpdatesExpiredByMonth(db, range));
      return { months: rows, totals: { tans: sum(rows, 'tans'), licenses: sum(rows, 'licenses') } };
    }
    case 'trial-licenses': {
      const [trials, conversions] = await Promise.all([trialLicensesByMonth(db, range), trialConversionsByMonth(db, range)]);
      const rows = fillMonths(months, metrics, trials, conversions).map(({ month, values }) => ({
        month,
        values: { ...values, conversionRate: rate(values.converted, values.machines) },
      }));
      const machines = sum(rows, 'machines');
      const converted = sum(rows, 'converted');
      return { months: rows, totals: { trials: sum(rows, 'trials'), machines, converted, conversionRate: rate(converted, machines) } };
    }
    case 'new-users': {
      const rows = fillMonths(months, metrics, await newUsersByMonth(db, range));
      return { months: rows, totals: { users: sum(rows, 'users') } };
    }
    case 'active-users': {
      const rows = fillMonths(months, metrics, await activeUsersByMonth(db, range));
      return { months: rows, totals: { users: sum(rows, 'users') } };
    }
    case 'active-machines': {
      const [counts, machines] = await Promise.all([activeMachinesByMonth(db, range), activeMachinesInRange(db, range)]);
      return { months: fillMonths(months, metrics, counts), totals: { machines } };
    }
  }
}

/**
 * One statistics category over a date range (default: the last twelve months), optionally for one
 * product: the numbers per month and in total, computed by the database.
 */
export async function statistics(ctx: AppContext, category: StatisticsCategory, query: StatisticsQuery, scope: StatisticsScope, today = new Date()): Promise<StatisticsResult> {
  const defaults = defaultStatisticsRange(today);
  const to = query.to ?? (query.from && query.from > defaults.to ? query.from : defaults.to);
  const from = query.from ?? (to < defaults.from ? `${to.slice(0, 7)}-01` : defaults.from);
  // The free updates of a TAN ended once its last day is over: only days before today count.
  const lastDay = category === 'tan-free-updates-expired' && to >= defaults.to ? dayBefore(defaults.to) : to;
  const range: Range = { from, before: dayAfter(lastDay), productId: query.productId };
  const result = await compute(ctx.db, category, range, monthsBetween(from, to), scope);
  return { category, from, to, productId: query.productId ?? null, ...result };
}

function dayBefore(date: string): string {
  const previous = new Date(`${date}T00:00:00.000Z`);
  previous.setUTCDate(previous.getUTCDate() - 1);
  return previous.toISOString().slice(0, 10);
}
