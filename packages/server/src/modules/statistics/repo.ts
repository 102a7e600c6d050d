/**
 * The statistics SQL: each function counts per month (`substr(<iso text>, 1, 7)`, the same on SQLite
 * and PostgreSQL) within `[from, before)`, where both bounds are ISO dates compared as text.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../platform/db/database.ts';

export interface Range {
  /** First day, inclusive (`YYYY-MM-DD`). */
  from: string;
  /** The day after the last day: exclusive. */
  before: string;
  productId?: number;
}

export type MonthCounts = Map<string, Record<string, number>>;

const monthOf = (column: string): RawBuilder<string> => sql<string>`substr(${sql.ref(column)}, 1, 7)`;

function byMonth(rows: { month: string }[]): MonthCounts {
  return new Map(rows.map(({ month, ...values }) => [month, Object.fromEntries(Object.entries(values).map(([key, value]) => [key, Number(value ?? 0)]))]));
}

/** TAN licenses activated per month; only those of one distributor's TANs when given. */
export async function tanActivationsByMonth(db: Executor, range: Range, distributorId?: number): Promise<MonthCounts> {
  let query = db
    .selectFrom('licenses')
    .select([monthOf('licenses.created_at').as('month'), (eb) => eb.fn.countAll<number>().as('activations')])
    .where('licenses.kind', '=', 'TAN')
    .where('licenses.created_at', '>=', range.from)
    .where('licenses.created_at', '<', range.before);
  if (range.productId) query = query.where('licenses.product_id', '=', range.productId);
  if (distributorId !== undefined) query = query.innerJoin('tans', 'tans.id', 'licenses.tan_id').where('tans.distributor_id', '=', distributorId);
  return byMonth(await query.groupBy(monthOf('licenses.created_at')).execute());
}

/** TAN licenses activated before a day: where the running total starts. */
export async function tanActivationsBefore(db: Executor, before: string, productId?: number, distributorId?: number): Promise<number> {
  let query = db
    .selectFrom('licenses')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('licenses.kind', '=', 'TAN')
    .where('licenses.created_at', '<', before);
  if (productId) query = query.where('licenses.product_id', '=', productId);
  if (distributorId !== undefined) query = query.innerJoin('tans', 'tans.id', 'licenses.tan_id').where('tans.distributor_id', '=', distributorId);
  return Number((await query.executeTakeFirstOrThrow()).count);
}

/** TANs whose free updates ended per month (free_updates_until is the last day), with their licenses. */
export async function freeUpdatesExpiredByMonth(db: Executor, range: Range): Promise<MonthCounts> {
  let query = db
    .selectFrom('tans')
    .select([
      monthOf('tans.free_updates_until').as('month'),
      (eb) => eb.fn.countAll<number>().as('tans'),
      (eb) => eb.fn.sum<number>('tans.activated_count').as('licenses'),
    ])
    .where('tans.free_updates_until', '>=', range.from)
    .where('tans.free_updates_until', '<', range.before);
  if (range.productId) query = query.where('tans.product_id', '=', range.productId);
  return byMonth(await query.groupBy(monthOf('tans.free_updates_until')).execute());
}

/** Temporary (trial) licenses added per month. */
export async function trialLicensesByMonth(db: Executor, range: Range): Promise<MonthCounts> {
  let query = db
    .selectFrom('licenses')
    .select([monthOf('licenses.created_at').as('month'), (eb) => eb.fn.countAll<number>().as('trials')])
    .where('licenses.kind', '=', 'TEMPORARY')
    .where('licenses.created_at', '>=', range.from)
    .where('licenses.created_at', '<', range.before);
  if (range.productId) query = query.where('licenses.product_id', '=', range.productId);
  return byMonth(await query.groupBy(monthOf('licenses.created_at')).execute());
}

/**
 * The machines that tried a product in the range (machine and product pairs, in the month of their
 * first trial there), and how many of them got a TAN license for that product at or after that trial.
 */
export async function trialConversionsByMonth(db: Executor, range: Range): Promise<MonthCounts> {
  const firstTrials = db
    .selectFrom('licenses')
    .select(['licenses.machine_id', 'licenses.product_id', (eb) => eb.fn.min('licenses.created_at').as('first_at')])
    .where('licenses.kind', '=', 'TEMPORARY')
    .where('licenses.machine_id', 'is not', null)
    .where('licenses.created_at', '>=', range.from)
    .where('licenses.created_at', '<', range.before)
    .$if(Boolean(range.productId), (query) => query.where('licenses.product_id', '=', range.productId!))
    .groupBy(['licenses.machine_id', 'licenses.product_id']);
  const rows = await db
    .selectFrom(firstTrials.as('trial'))
    .select([
      monthOf('trial.first_at').as('month'),
      (eb) => eb.fn.countAll<number>().as('machines'),
      (eb) =>
        eb.fn
          .sum<number>(
            eb
              .case()
              .when(
                eb.exists(
                  eb
                    .selectFrom('licenses as purchase')
                    .select(sql.lit(1).as('one'))
                    .whereRef('purchase.machine_id', '=', 'trial.machine_id')
                    .whereRef('purchase.product_id', '=', 'trial.product_id')
                    .where('purchase.kind', '=', 'TAN')
                    .whereRef('purchase.created_at', '>=', 'trial.first_at'),
                ),
              )
              .then(1)
              .else(0)
              .end(),
          )
          .as('converted'),
    ])
    .groupBy(monthOf('trial.first_at'))
    .execute();
  return byMonth(rows);
}

/** A condition on a users column: the user holds a license of the product. */
function ownsProduct(productId: number) {
  return sql<boolean>`exists (select 1 from licenses as owned where owned.owner_id = users.id and owned.product_id = ${productId})`;
}

/** Accounts created per month; with a product, those holding a license of it. */
export async function newUsersByMonth(db: Executor, range: Range): Promise<MonthCounts> {
  let query = db
    .selectFrom('users')
    .select([monthOf('users.created_at').as('month'), (eb) => eb.fn.countAll<number>().as('users')])
    .where('users.created_at', '>=', range.from)
    .where('users.created_at', '<', range.before);
  if (range.productId) query = query.where(ownsProduct(range.productId));
  return byMonth(await query.groupBy(monthOf('users.created_at')).execute());
}

/** Accounts by the month of their last login; with a product, those holding a license of it. */
export async function activeUsersByMonth(db: Executor, range: Range): Promise<MonthCounts> {
  let query = db
    .selectFrom('users')
    .select([monthOf('users.last_login_at').as('month'), (eb) => eb.fn.countAll<number>().as('users')])
    .where('users.last_login_at', '>=', range.from)
    .where('users.last_login_at', '<', range.before);
  if (range.productId) query = query.where(ownsProduct(range.productId));
  return byMonth(await query.groupBy(monthOf('users.last_login_at')).execute());
}

function lastSeenInRange(db: Executor, range: Range) {
  let query = db.selectFrom('license_last_seen as seen').where('seen.last_seen_at', '>=', range.from).where('seen.last_seen_at', '<', range.before);
  if (range.productId) query = query.innerJoin('licenses', 'licenses.id', 'seen.license_id').where('licenses.product_id', '=', range.productId);
  return query;
}

/** Machines by the month their desktop software last asked for a license. */
export async function activeMachinesByMonth(db: Executor, range: Range): Promise<MonthCounts> {
  const rows = await lastSeenInRange(db, range)
    .select([monthOf('seen.last_seen_at').as('month'), (eb) => eb.fn.count<number>('seen.machine_id').distinct().as('machines')])
    .groupBy(monthOf('seen.last_seen_at'))
    .execute();
  return byMonth(rows);
}

/** Distinct machines seen in the whole range (one machine may hold licenses seen in different months). */
export async function activeMachinesInRange(db: Executor, range: Range): Promise<number> {
  const row = await lastSeenInRange(db, range)
    .select((eb) => eb.fn.count<number>('seen.machine_id').distinct().as('machines'))
    .executeTakeFirstOrThrow();
  return Number(row.machines);
}
