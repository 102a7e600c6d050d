import { sql } from 'kysely';
import type { FeatureValueType } from '@lm/contract/feature';
import { wholeMonthsOf, type DateRange } from '@lm/contract/statistics';
import type { Executor } from '../../platform/db/database.ts';

/** The value types of the features named, by name (unknown names are missing). */
export async function featureValueTypes(db: Executor, names: readonly string[]): Promise<Map<string, FeatureValueType>> {
  const result = new Map<string, FeatureValueType>();
  const unique = [...new Set(names)];
  for (let start = 0; start < unique.length; start += 500) {
    const rows = await db
      .selectFrom('features')
      .select(['name', 'value_type'])
      .where('name', 'in', unique.slice(start, start + 500))
      .execute();
    for (const row of rows) result.set(row.name, row.value_type);
  }
  return result;
}

/** A license's grants and metadata, its own and its TAN's (copies). */
export function findLicenseGrants(db: Executor, id: number) {
  return db
    .selectFrom('licenses')
    .select(['id', 'product_id', 'license_policy_id', 'tan_id', 'owner_id', 'entitlements', 'metadata', 'tan_entitlements', 'tan_metadata'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function setLicenseGrants(trx: Executor, id: number, values: { entitlements: string; metadata: string }, now: string): Promise<void> {
  await trx.updateTable('licenses').set({ ...values, updated_at: now }).where('id', '=', id).execute();
}

export async function setTanGrants(trx: Executor, tanId: number, entitlements: string, now: string): Promise<void> {
  await trx.updateTable('tans').set({ entitlements, updated_at: now }).where('id', '=', tanId).execute();
}

/** Gives a TAN's licenses its grants and metadata (copies, migration 0033); those that changed. */
export async function setTanGrantsOnLicenses(trx: Executor, tanId: number, values: { tan_entitlements: string; tan_metadata: string }, now: string): Promise<number[]> {
  const rows = await trx
    .updateTable('licenses')
    .set({ ...values, updated_at: now })
    .where('tan_id', '=', tanId)
    .where((eb) => eb.or([eb('tan_entitlements', '!=', values.tan_entitlements), eb('tan_metadata', '!=', values.tan_metadata)]))
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/** A TAN's grants and metadata (JSON), to copy onto a license activated from it. */
export function findTanGrants(db: Executor, tanId: number) {
  return db.selectFrom('tans').select(['entitlements', 'metadata']).where('id', '=', tanId).executeTakeFirst();
}

/** A policy's grants (JSON). */
export async function findPolicyGrants(db: Executor, policyId: number): Promise<string> {
  const row = await db.selectFrom('license_policies').select('entitlements').where('id', '=', policyId).executeTakeFirst();
  return row?.entitlements ?? '[]';
}

/** A product's default feature values (JSON). */
export async function findProductFeatureValues(db: Executor, productId: number): Promise<string> {
  const row = await db.selectFrom('products').select('feature_values').where('id', '=', productId).executeTakeFirst();
  return row?.feature_values ?? '{}';
}

/** A TAN's over-limit grants in a month (`YYYY-MM`), oldest first, with the license's machine and owner. */
export function overagesOfTan(db: Executor, tanId: number, month: string) {
  return db
    .selectFrom('license_overages as o')
    .innerJoin('licenses as l', 'l.id', 'o.license_id')
    .innerJoin('users as u', 'u.id', 'l.owner_id')
    .select(['o.day', 'o.license_id', 'o.machine_id', 'u.email'])
    .where('o.tan_id', '=', tanId)
    .where('o.day', '>=', `${month}-01`)
    .where('o.day', '<=', `${month}-31`)
    .orderBy('o.day')
    .orderBy('o.license_id')
    .execute();
}


/** Whose over-limit grants the statistics count: one product's TANs, one distributor's, or all. */
export interface OverageFilter {
  productId?: number;
  distributorId?: number;
}

/** The TANs whose over-limit grants the filter counts, as a subquery; undefined for every TAN. */
function tansOf(db: Executor, filter: OverageFilter) {
  if (filter.productId === undefined && filter.distributorId === undefined) return undefined;
  let tans = db.selectFrom('tans').select('tans.id');
  if (filter.productId !== undefined) tans = tans.where('tans.product_id', '=', filter.productId);
  if (filter.distributorId !== undefined) tans = tans.where('tans.distributor_id', '=', filter.distributorId);
  return tans;
}

/** The grants of the TANs the filter names on the days of some inclusive ranges (`YYYY-MM-DD`). */
function grantsOnDays(db: Executor, ranges: DateRange[], filter: OverageFilter) {
  const tans = tansOf(db, filter);
  const query = db.selectFrom('license_overages as o').where((eb) => eb.or(ranges.map((range) => eb.and([eb('o.day', '>=', range.from), eb('o.day', '<=', range.to)]))));
  return tans ? query.where('o.tan_id', 'in', tans) : query;
}

/** The per-month sums of the TANs the filter names, over an inclusive range of months (`YYYY-MM`). */
function grantsInMonths(db: Executor, months: DateRange, filter: OverageFilter) {
  const tans = tansOf(db, filter);
  const query = db.selectFrom('license_overage_months as m').where('m.month', '>=', months.from).where('m.month', '<=', months.to);
  return tans ? query.where('m.tan_id', 'in', tans) : query;
}

const monthOfDay = sql<string>`substr(o.day, 1, 7)`;
const toNumber = (value: number | string | bigint | null) => Number(value ?? 0);

/**
 * Per month (`YYYY-MM`): the over-limit grants and the TANs they were granted for; in total, each
 * TAN once over the whole range. Whole months are read from the monthly sums the triggers of
 * migration 0039 keep, the partial months at the ends of the range from the grants themselves.
 */
export async function overageCounts(db: Executor, range: DateRange, filter: OverageFilter): Promise<{ months: { month: string; grants: number; tans: number }[]; tans: number }> {
  const { months, days } = wholeMonthsOf(range);
  const monthly = months
    ? grantsInMonths(db, months, filter)
        .select(['m.month', (eb) => eb.fn.sum<number | string>('m.grants').as('grants'), (eb) => eb.fn.countAll<number | string>().as('tans')])
        .groupBy('m.month')
        .execute()
    : Promise.resolve([]);
  const daily = days.length
    ? grantsOnDays(db, days, filter)
        .select([monthOfDay.as('month'), (eb) => eb.fn.countAll<number | string>().as('grants'), (eb) => eb.fn.count<number | string>('o.tan_id').distinct().as('tans')])
        .groupBy(monthOfDay)
        .execute()
    : Promise.resolve([]);
  // Each TAN once: the union drops TANs found in both sources, grouping first keeps each side small.
  const byMonth = months && grantsInMonths(db, months, filter).select('m.tan_id').groupBy('m.tan_id');
  const byDay = days.length ? grantsOnDays(db, days, filter).select('o.tan_id as tan_id').groupBy('o.tan_id') : undefined;
  const distinct = byMonth && byDay ? byMonth.union(byDay) : (byMonth ?? byDay!);
  const [monthRows, dayRows, total] = await Promise.all([
    monthly,
    daily,
    db.selectFrom(distinct.as('t')).select((eb) => eb.fn.countAll<number | string>().as('tans')).executeTakeFirst(),
  ]);
  return {
    months: [...monthRows, ...dayRows].map((row) => ({ month: row.month, grants: toNumber(row.grants), tans: toNumber(row.tans) })),
    tans: toNumber(total?.tans ?? 0),
  };
}
