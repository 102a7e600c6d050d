import { sql } from 'kysely';
import type { FeatureValueType } from '@lm/contract/feature';
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

/** The over-limit grants on the days of an inclusive range (`YYYY-MM-DD`), of the TANs the filter names. */
function overagesWithin(db: Executor, range: { from: string; to: string }, filter: OverageFilter) {
  let query = db.selectFrom('license_overages as o').where('o.day', '>=', range.from).where('o.day', '<=', range.to);
  if (filter.productId !== undefined || filter.distributorId !== undefined) {
    query = query.where('o.tan_id', 'in', (eb) => {
      let tans = eb.selectFrom('tans').select('tans.id');
      if (filter.productId !== undefined) tans = tans.where('tans.product_id', '=', filter.productId);
      if (filter.distributorId !== undefined) tans = tans.where('tans.distributor_id', '=', filter.distributorId);
      return tans;
    });
  }
  return query;
}

const monthOfDay = sql<string>`substr(o.day, 1, 7)`;

/** Per month (`YYYY-MM`): the over-limit grants and the TANs they were granted for. */
export async function overagesByMonth(db: Executor, range: { from: string; to: string }, filter: OverageFilter): Promise<{ month: string; grants: number; tans: number }[]> {
  const rows = await overagesWithin(db, range, filter)
    .select([monthOfDay.as('month'), (eb) => eb.fn.countAll<number | string>().as('grants'), (eb) => eb.fn.count<number | string>('o.tan_id').distinct().as('tans')])
    .groupBy(monthOfDay)
    .execute();
  return rows.map((row) => ({ month: row.month, grants: Number(row.grants), tans: Number(row.tans) }));
}

/** The TANs with at least one over-limit grant in the range, each once. */
export async function overageTanCount(db: Executor, range: { from: string; to: string }, filter: OverageFilter): Promise<number> {
  const row = await overagesWithin(db, range, filter)
    .select((eb) => eb.fn.count<number | string>('o.tan_id').distinct().as('tans'))
    .executeTakeFirst();
  return Number(row?.tans ?? 0);
}
