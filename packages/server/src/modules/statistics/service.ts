import type { StatisticsCategory } from '@lm/contract';
import {
  defaultStatisticsRange,
  monthsBetween,
  STATISTICS_MAX_MONTHS,
  STATISTICS_METRICS,
  type DateRange,
  type StatisticsMonth,
  type StatisticsQuery,
  type StatisticsResult,
} from '@lm/contract/statistics';
import type { AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { notFound, validationError } from '../../platform/http/errors.ts';
import { runEvery } from '../../platform/jobs/run-every.ts';
import { overageCountsByMonth } from '../entitlements/service.ts';
import { findProduct } from '../license-files/repo.ts';
import { downloadCountsByMonth } from '../releases/service.ts';
import { counterBefore, countersByMonth, foldCounterDeltas, type MonthCounts } from './repo.ts';

/** Whose data a caller may count: a distributor only its own TANs' activations and over-limit grants. */
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
const totalsOf = (months: StatisticsMonth[], metrics: readonly string[]): Row => Object.fromEntries(metrics.map((metric) => [metric, sum(months, metric)]));

async function compute(
  db: Executor,
  category: StatisticsCategory,
  range: DateRange,
  months: string[],
  productId: number | undefined,
  scope: StatisticsScope,
): Promise<{ months: StatisticsMonth[]; totals: Row }> {
  const metrics = STATISTICS_METRICS[category];
  const filter = { productId, distributorId: scope.distributorId };
  switch (category) {
    case 'tan-activations': {
      // A distributor's own activations are a counter of their own, by distributor.
      const counter = scope.distributorId === undefined ? 'tan_activations' : 'tan_activations_distributor';
      const [counts, before] = await Promise.all([
        countersByMonth(db, { [counter]: 'activations' }, range, filter),
        counterBefore(db, counter, range.from, filter),
      ]);
      let running = before;
      const rows = fillMonths(months, metrics, counts).map(({ month, values }) => {
        running += values.activations;
        return { month, values: { ...values, total: running } };
      });
      return { months: rows, totals: { activations: sum(rows, 'activations'), total: running } };
    }
    case 'tan-free-updates-expired': {
      const rows = fillMonths(months, metrics, await countersByMonth(db, { tan_free_updates: 'tans', tan_free_updates_licenses: 'licenses' }, range, filter));
      return { months: rows, totals: totalsOf(rows, metrics) };
    }
    case 'trial-licenses': {
      const counts = await countersByMonth(db, { trial_licenses: 'trials', trial_machines: 'machines', trial_converted: 'converted' }, range, filter);
      const rows = fillMonths(months, metrics, counts).map(({ month, values }) => ({ month, values: { ...values, conversionRate: rate(values.converted, values.machines) } }));
      const totals = totalsOf(rows, ['trials', 'machines', 'converted']);
      return { months: rows, totals: { ...totals, conversionRate: rate(totals.converted, totals.machines) } };
    }
    case 'new-users':
    case 'active-users': {
      // With a product: the accounts holding one of its licenses now (migration 0039), by the same days.
      const counter = `${category === 'new-users' ? 'new' : 'active'}_${productId ? 'user_products' : 'users'}` as const;
      const rows = fillMonths(months, metrics, await countersByMonth(db, { [counter]: 'users' }, range, { productId }));
      return { months: rows, totals: totalsOf(rows, metrics) };
    }
    case 'downloads': {
      const rows = fillMonths(months, metrics, await downloadCountsByMonth(db, range, productId));
      return { months: rows, totals: totalsOf(rows, metrics) };
    }
    case 'overage': {
      // Counted from the grants themselves; a TAN over its count in several months counts once in the totals.
      const counts = await overageCountsByMonth(db, range, filter);
      const rows = fillMonths(months, metrics, counts.months);
      return { months: rows, totals: { grants: sum(rows, 'grants'), tans: counts.tans } };
    }
    case 'active-machines': {
      const counts = productId
        ? await countersByMonth(db, { active_machine_products: 'machines' }, range, { productId })
        : await countersByMonth(db, { active_machines: 'machines' }, range);
      const rows = fillMonths(months, metrics, counts);
      return { months: rows, totals: totalsOf(rows, metrics) };
    }
  }
}

function dayBefore(date: string): string {
  const previous = new Date(`${date}T00:00:00.000Z`);
  previous.setUTCDate(previous.getUTCDate() - 1);
  return previous.toISOString().slice(0, 10);
}

/**
 * One statistics category over a date range (default: the last twelve months), optionally for one
 * product: the numbers per month and in total, from the counters the database keeps.
 */
export async function statistics(ctx: AppContext, category: StatisticsCategory, query: StatisticsQuery, scope: StatisticsScope, today = new Date()): Promise<StatisticsResult> {
  const defaults = defaultStatisticsRange(today);
  const to = query.to ?? (query.from && query.from > defaults.to ? query.from : defaults.to);
  const from = query.from ?? (to < defaults.from ? `${to.slice(0, 7)}-01` : defaults.from);
  // The free updates of a TAN ended once its last day is over: only days before today count.
  const lastDay = category === 'tan-free-updates-expired' && to >= defaults.to ? dayBefore(defaults.to) : to;
  const months = monthsBetween(from, to);
  // The query's own check sees both ends only when both are given: `from=1900-01-01` alone reaches today.
  if (months.length > STATISTICS_MAX_MONTHS) throw validationError('from', 'rangeTooLong', { months: STATISTICS_MAX_MONTHS });
  // A product deleted (or made up) is refused rather than answered with zeros.
  if (query.productId !== undefined && !(await findProduct(ctx.db, query.productId))) throw notFound('Product');
  await foldCounterDeltas(ctx.db);
  const result = await compute(ctx.db, category, { from, to: lastDay }, months, query.productId, scope);
  return { category, from, to, productId: query.productId ?? null, ...result };
}

/** How often the pending deltas are folded while nobody reads the statistics. */
const FOLD_INTERVAL_MS = 60_000;

/**
 * Folds the counter deltas once a minute in the background, so that the first read after a busy
 * while has little to fold; answers the function that stops it.
 */
export function foldCountersPeriodically(ctx: AppContext): () => void {
  return runEvery(FOLD_INTERVAL_MS, () =>
    foldCounterDeltas(ctx.db).catch((error: unknown) => ctx.log.warn({ err: error }, 'folding the statistics counters failed')),
  );
}
