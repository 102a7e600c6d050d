import { sql, type Kysely } from 'kysely';
import type { Executor } from '../../platform/db/database.ts';
import type { DB } from '../../platform/db/schema.ts';
import { PreparedQuery } from '../license-files/prepared-query.ts';

/** The SQL of instance leases (DESIGN.md section 6h): a row per TAN and instance, live while leased_until lies ahead. */

/** A TAN used as an instance-lease key, with the lease the instance holds (if any), in one statement. */
export interface LeaseKey {
  tanId: number;
  productId: number;
  policyId: number | null;
  revoked: boolean;
  suspended: boolean;
  validUntil: string | null;
  freeUpdatesUntil: string | null;
  /** The end of the instance's lease when it lies ahead, else null. */
  heldUntil: string | null;
}

const leaseKeyQuery = new PreparedQuery<
  {
    id: number;
    product_id: number;
    policy_id: number | null;
    revoked: boolean | number;
    suspended: boolean | number;
    valid_until: string | null;
    free_updates_until: string | null;
    held_until: string | null;
  },
  { code: string; instanceId: string; now: string }
>(['code', 'instanceId', 'now'], (db, { code, instanceId, now }) =>
  db
    .selectFrom('tans as t')
    .innerJoin('products as p', 'p.id', 't.product_id')
    .leftJoin('instance_leases as i', (join) => join.onRef('i.tan_id', '=', 't.id').on('i.instance_id', '=', instanceId).on('i.leased_until', '>', now))
    .select(['t.id', 't.product_id', 't.revoked', 't.suspended', 't.valid_until', 't.free_updates_until', 'i.leased_until as held_until'])
    .select((eb) => eb.fn.coalesce('t.license_policy_id', 'p.default_license_policy_id').as('policy_id'))
    .where('t.code', '=', code),
);

/** The TAN of a lease key and the instance's live lease: the only read of a renewal. */
export async function findLeaseKey(db: Executor, values: { code: string; instanceId: string; now: string }): Promise<LeaseKey | undefined> {
  const [row] = await leaseKeyQuery.execute(db, values);
  return (
    row && {
      tanId: row.id,
      productId: row.product_id,
      policyId: row.policy_id,
      revoked: Boolean(row.revoked),
      suspended: Boolean(row.suspended),
      validUntil: row.valid_until,
      freeUpdatesUntil: row.free_updates_until,
      heldUntil: row.held_until,
    }
  );
}

const seatsQuery = new PreparedQuery<{ live: number; seats: number }, { tanId: number; instanceId: string; now: string }>(['tanId', 'instanceId', 'now'], (db, { tanId, instanceId, now }) =>
  db.selectNoFrom((eb) => [
    eb
      .selectFrom('instance_leases')
      .select(eb.fn.countAll<number>().as('n'))
      .where('tan_id', '=', tanId)
      .where('instance_id', '<>', instanceId)
      .where('leased_until', '>', now)
      .as('live'),
    eb.selectFrom('tans').select('license_count').where('id', '=', tanId).as('seats'),
  ]),
);

/** The live leases of other instances and the TAN's seat count, read under the TAN's lock. */
export async function findSeats(db: Executor, values: { tanId: number; instanceId: string; now: string }): Promise<{ live: number; seats: number }> {
  const [row] = await seatsQuery.execute(db, values);
  return { live: Number(row.live), seats: Number(row.seats ?? 0) };
}

const leaseUpsert = new PreparedQuery<never, { tanId: number; instanceId: string; leasedUntil: string; now: string }>(
  ['tanId', 'instanceId', 'leasedUntil', 'now'],
  (db, lease) =>
    db
      .insertInto('instance_leases')
      .values({ tan_id: lease.tanId, instance_id: lease.instanceId, leased_until: lease.leasedUntil, renewed_at: lease.now })
      .onConflict((conflict) => conflict.columns(['tan_id', 'instance_id']).doUpdateSet({ leased_until: lease.leasedUntil, renewed_at: lease.now })),
);

export async function upsertLease(db: Executor, lease: { tanId: number; instanceId: string; leasedUntil: string; now: string }): Promise<void> {
  await leaseUpsert.execute(db, lease);
}

const leaseRenewal = new PreparedQuery<{ tan_id: number }, { tanId: number; instanceId: string; leasedUntil: string; now: string }>(
  ['tanId', 'instanceId', 'leasedUntil', 'now'],
  (db, lease) =>
    db
      .updateTable('instance_leases')
      .set({ leased_until: sql<string>`case when leased_until > ${lease.leasedUntil} then leased_until else ${lease.leasedUntil} end`, renewed_at: lease.now })
      .where('tan_id', '=', lease.tanId)
      .where('instance_id', '=', lease.instanceId)
      .where('leased_until', '>', lease.now)
      .returning('tan_id'),
);

/** Extends a lease that is live now, in one statement; false when it lapsed (the caller takes a seat under the lock). */
export async function renewLiveLease(db: Executor, lease: { tanId: number; instanceId: string; leasedUntil: string; now: string }): Promise<boolean> {
  return (await leaseRenewal.execute(db, lease)).length > 0;
}

/** A renewal decided by a 304 and written behind it: only the very lease the answer saw, never a lapsed or ended one. */
export interface LeaseExtension {
  tanId: number;
  instanceId: string;
  seenLeasedUntil: string;
  leasedUntil: string;
  renewedAt: string;
}

const leaseExtension = new PreparedQuery<never, LeaseExtension>(['tanId', 'instanceId', 'seenLeasedUntil', 'leasedUntil', 'renewedAt'], (db, lease) =>
  db
    .updateTable('instance_leases')
    .set({ leased_until: lease.leasedUntil, renewed_at: lease.renewedAt })
    .where('tan_id', '=', lease.tanId)
    .where('instance_id', '=', lease.instanceId)
    .where('leased_until', '=', lease.seenLeasedUntil),
);

export async function extendLeases(db: Kysely<DB>, extensions: LeaseExtension[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const extension of extensions) await leaseExtension.execute(trx, extension);
  });
}

/** Ends an instance's lease now (a clean exit): its row goes, as do the TAN's lapsed ones. */
export async function endLease(db: Executor, lease: { tanId: number; instanceId: string; now: string }): Promise<void> {
  await db
    .deleteFrom('instance_leases')
    .where('tan_id', '=', lease.tanId)
    .where((eb) => eb.or([eb('instance_id', '=', lease.instanceId), eb('leased_until', '<=', lease.now)]))
    .execute();
}

/** Deletes the TAN's lapsed leases (they hold no seat), when a seat is taken under the TAN's lock; returns them. */
export async function deleteLapsedLeases(db: Executor, tanId: number, now: string): Promise<{ instanceId: string; leasedUntil: string }[]> {
  const rows = await db.deleteFrom('instance_leases').where('tan_id', '=', tanId).where('leased_until', '<=', now).returning(['instance_id', 'leased_until']).execute();
  return rows.map((row) => ({ instanceId: row.instance_id, leasedUntil: row.leased_until }));
}
