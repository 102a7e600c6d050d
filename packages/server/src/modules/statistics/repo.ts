/**
 * The statistics SQL. The counters are kept by the database triggers of migration 0006 (day, product,
 * distributor); a read first folds the pending deltas into statistics_daily, then sums days into
 * months (`substr(day, 1, 7)`). Users of one product are counters too, of the holders that migration
 * 0039 keeps.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../platform/db/database.ts';
import { isPostgres } from '../../platform/db/dialect.ts';
import type { DateRange } from '@lm/contract/statistics';

/** The metric names of the counters, as the triggers write them. */
export type CounterMetric =
  | 'tan_activations'
  | 'tan_activations_distributor'
  | 'trial_licenses'
  | 'tan_free_updates'
  | 'tan_free_updates_licenses'
  | 'new_users'
  | 'active_users'
  | 'new_user_products'
  | 'active_user_products'
  | 'trial_machines'
  | 'trial_converted'
  | 'active_machines'
  | 'active_machine_products';

export interface CounterFilter {
  productId?: number;
  distributorId?: number;
}

/** month → metric → count */
export type MonthCounts = Map<string, Record<string, number>>;

/**
 * Folds the deltas the triggers appended into the day counters. On PostgreSQL one statement deletes
 * and sums the same rows (a delta committed meanwhile stays for the next read); SQLite runs one
 * writer at a time, so two statements in a transaction do the same.
 */
export async function foldCounterDeltas(db: Executor): Promise<void> {
  if (isPostgres(db)) {
    await sql`
      with moved as (delete from statistics_deltas returning metric, day, product_id, distributor_id, delta)
      insert into statistics_daily (metric, day, product_id, distributor_id, count)
      select metric, day, product_id, distributor_id, sum(delta) from moved group by metric, day, product_id, distributor_id
      on conflict (metric, day, product_id, distributor_id) do update set count = statistics_daily.count + excluded.count`.execute(db);
    return;
  }
  await db.transaction().execute(async (trx) => {
    const last = await trx.selectFrom('statistics_deltas').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
    if (last?.id === null || last?.id === undefined) return;
    await sql`
      insert into statistics_daily (metric, day, product_id, distributor_id, count)
      select metric, day, product_id, distributor_id, sum(delta) from statistics_deltas where id <= ${last.id} group by metric, day, product_id, distributor_id
      on conflict (metric, day, product_id, distributor_id) do update set count = statistics_daily.count + excluded.count`.execute(trx);
    await trx.deleteFrom('statistics_deltas').where('id', '<=', last.id).execute();
  });
}

const monthOf = (column: string): RawBuilder<string> => sql<string>`substr(${sql.ref(column)}, 1, 7)`;

function byMonth(rows: { month: string; metric: string; count: number | string | null }[], names: Record<string, string>): MonthCounts {
  const months: MonthCounts = new Map();
  for (const row of rows) {
    const values = months.get(row.month) ?? {};
    values[names[row.metric] ?? row.metric] = Number(row.count ?? 0);
    months.set(row.month, values);
  }
  return months;
}

/** Counters per month within the range, renamed to the answer's metric names (`names`: counter → metric). */
export async function countersByMonth(db: Executor, names: Partial<Record<CounterMetric, string>>, range: DateRange, filter: CounterFilter = {}): Promise<MonthCounts> {
  let query = db
    .selectFrom('statistics_daily')
    .select([monthOf('day').as('month'), 'metric', (eb) => eb.fn.sum<number>('count').as('count')])
    .where('metric', 'in', Object.keys(names))
    .where('day', '>=', range.from)
    .where('day', '<=', range.to);
  if (filter.productId) query = query.where('product_id', '=', filter.productId);
  if (filter.distributorId !== undefined) query = query.where('distributor_id', '=', filter.distributorId);
  const rows = await query.groupBy([monthOf('day'), 'metric']).execute();
  return byMonth(rows, names as Record<string, string>);
}

/** One counter summed over the days before a day: where a running total starts. */
export async function counterBefore(db: Executor, metric: CounterMetric, day: string, filter: CounterFilter = {}): Promise<number> {
  let query = db
    .selectFrom('statistics_daily')
    .select((eb) => eb.fn.sum<number>('count').as('count'))
    .where('metric', '=', metric)
    .where('day', '<', day);
  if (filter.productId) query = query.where('product_id', '=', filter.productId);
  if (filter.distributorId !== undefined) query = query.where('distributor_id', '=', filter.distributorId);
  return Number((await query.executeTakeFirst())?.count ?? 0);
}
