import { sql, type Kysely } from 'kysely';
import type { Executor } from '../../platform/db/database.ts';
import { isPostgres } from '../../platform/db/dialect.ts';
import type { DB } from '../../platform/db/schema.ts';
import { PreparedQuery } from './prepared-query.ts';

/** The SQL of floating seats (seats.ts): a seat per pool and machine, leased, renewed, borrowed and ended. */

export interface SeatRow {
  machine_id: string;
  license_id: number;
  leased_until: string;
  renewed_at: string;
  /** Set when the machine borrows the seat for offline use: the lease's end, which no refresh shortens. */
  borrowed_until: string | null;
  /** Granted beyond the count (a soft limit, migration 0033). */
  overage: boolean;
}

/** What decides whether a license may still hold a seat for a machine. */
export interface LicenseBinding {
  machineId: string | null;
  revoked: boolean;
  upgradedToId: number | null;
  suspended: boolean;
  tanValidUntil: string | null;
}

const licenseBinding = new PreparedQuery<
  { machine_id: string | null; revoked: boolean | number; upgraded_to_id: number | null; suspended: boolean | number; tan_valid_until: string | null },
  { id: number }
>(['id'], (db, { id }) => db.selectFrom('licenses').select(['machine_id', 'revoked', 'upgraded_to_id', 'suspended', 'tan_valid_until']).where('id', '=', id));

export async function findLicenseBinding(db: Executor, id: number): Promise<LicenseBinding | undefined> {
  const [row] = await licenseBinding.execute(db, { id });
  return (
    row && { machineId: row.machine_id, revoked: Boolean(row.revoked), upgradedToId: row.upgraded_to_id, suspended: Boolean(row.suspended), tanValidUntil: row.tan_valid_until }
  );
}

export interface SeatState {
  /** The machine's own row, if it ever held a seat of the pool. */
  own: { leasedUntil: string; renewedAt: string; overage: boolean } | null;
  /** Other machines whose lease lies ahead, for a license that is live and still bound to that machine. */
  leasedByOthers: number;
  /** Other machines that held a seat since the start of the different-machines window. */
  recentOthers: number;
}

const seatStateQuery = new PreparedQuery<
  { own_leased_until: string | null; own_renewed_at: string | null; own_overage: number | boolean | null; leased_by_others: number; recent_others: number },
  { pool: string; machineId: string; now: string; since: string }
>(['pool', 'machineId', 'now', 'since'], (db, { pool, machineId, now, since }) => {
  const seats = () => db.selectFrom('floating_seats').where('pool', '=', pool);
  return db.selectNoFrom((eb) => [
    seats().select('leased_until').where('machine_id', '=', machineId).as('own_leased_until'),
    seats().select('renewed_at').where('machine_id', '=', machineId).as('own_renewed_at'),
    seats().select('overage').where('machine_id', '=', machineId).as('own_overage'),
    // A lease counts only while its license is live and bound to that machine: a license revoked,
    // upgraded or moved to another machine holds no seat, however it was changed (even by plain SQL).
    seats()
      .innerJoin('licenses as l', 'l.id', 'floating_seats.license_id')
      .select(eb.fn.countAll<number>().as('n'))
      .where('floating_seats.leased_until', '>', now)
      .where('floating_seats.machine_id', '<>', machineId)
      .where('l.revoked', '=', false)
      .where('l.suspended', '=', false)
      .where('l.upgraded_to_id', 'is', null)
      .whereRef('l.machine_id', '=', 'floating_seats.machine_id')
      .as('leased_by_others'),
    seats().select(eb.fn.countAll<number>().as('n')).where('renewed_at', '>=', since).where('machine_id', '<>', machineId).as('recent_others'),
  ]);
});

/** What a seat decision needs, in one statement. */
export async function findSeatState(db: Executor, values: { pool: string; machineId: string; now: string; since: string }): Promise<SeatState> {
  const [row] = await seatStateQuery.execute(db, values);
  return {
    own:
      row.own_leased_until !== null && row.own_renewed_at !== null ? { leasedUntil: row.own_leased_until, renewedAt: row.own_renewed_at, overage: Boolean(row.own_overage) } : null,
    leasedByOthers: Number(row.leased_by_others),
    recentOthers: Number(row.recent_others),
  };
}

const seatUpsert = new PreparedQuery<never, SeatRow & { pool: string }>(['pool', 'machine_id', 'license_id', 'leased_until', 'renewed_at', 'borrowed_until', 'overage'], (db, seat) =>
  db
    .insertInto('floating_seats')
    .values(seat)
    .onConflict((conflict) =>
      conflict.columns(['pool', 'machine_id']).doUpdateSet({
        license_id: seat.license_id,
        // A borrowed seat stays taken until its end, whatever the machine fetches meanwhile (a
        // refresh without borrowing, a shorter borrow); only a release ends it early.
        leased_until: sql<string>`case when floating_seats.license_id = ${seat.license_id} and floating_seats.borrowed_until > ${seat.leased_until} then floating_seats.borrowed_until else ${seat.leased_until} end`,
        borrowed_until: sql<string | null>`case when floating_seats.license_id = ${seat.license_id} and floating_seats.borrowed_until > coalesce(${seat.borrowed_until}, ${seat.renewed_at}) then floating_seats.borrowed_until else ${seat.borrowed_until} end`,
        renewed_at: seat.renewed_at,
        overage: seat.overage,
      }),
    ),
);

export async function upsertSeat(db: Executor, pool: string, seat: SeatRow): Promise<void> {
  await seatUpsert.execute(db, { pool, ...seat });
}

/**
 * Moves the end of the lease a machine holds for a license, if the license is still live and bound
 * to that machine; each caller adds which lease it may move.
 */
function leaseExtension(db: Executor, seat: { pool: string; machineId: string; licenseId: number; leasedUntil: string; renewedAt: string }) {
  return db
    .updateTable('floating_seats')
    // Never shorter: a borrowed lease runs further ahead than a refresh's.
    .set({ leased_until: sql<string>`case when leased_until > ${seat.leasedUntil} then leased_until else ${seat.leasedUntil} end`, renewed_at: seat.renewedAt })
    .where('pool', '=', seat.pool)
    .where('machine_id', '=', seat.machineId)
    .where('license_id', '=', seat.licenseId)
    .where(({ exists, selectFrom }) => {
      const live = selectFrom('licenses')
        .select('licenses.id')
        .where('licenses.id', '=', seat.licenseId)
        .where('licenses.machine_id', '=', seat.machineId)
        .where('licenses.revoked', '=', false)
        .where('licenses.suspended', '=', false)
        .where('licenses.upgraded_to_id', 'is', null);
      // PostgreSQL: the license row is share-locked, so a revocation, move or machine change under
      // way is waited for and its result seen (a plain subquery would read the statement's older
      // snapshot and extend a lease the change just ended). SQLite runs one statement at a time.
      return exists(isPostgres(db) ? live.forShare() : live);
    });
}

const seatRenewal = new PreparedQuery<{ license_id: number; overage: number | boolean }, { pool: string; machineId: string; licenseId: number; now: string; leasedUntil: string }>(
  ['pool', 'machineId', 'licenseId', 'now', 'leasedUntil'],
  (db, seat) =>
    leaseExtension(db, { ...seat, renewedAt: seat.now })
      .where('leased_until', '>', seat.now)
      .returning(['license_id', 'overage']),
);

/**
 * Extends the lease a machine holds now for this license, in one statement that also checks that
 * the license is live and still bound to the machine; false when there is no such lease (the caller
 * then takes the seat under the pool's lock).
 */
export async function renewHeldSeat(db: Executor, values: { pool: string; machineId: string; licenseId: number; now: string; leasedUntil: string }): Promise<{ overage: boolean } | undefined> {
  const [row] = await seatRenewal.execute(db, values);
  return row ? { overage: Boolean(row.overage) } : undefined;
}

/** Records an over-limit grant (DESIGN.md section 6g): one row per TAN, day, license and machine. */
export async function recordOverage(db: Executor, values: { tanId: number; licenseId: number; machineId: string; day: string }): Promise<void> {
  await db
    .insertInto('license_overages')
    .values({ tan_id: values.tanId, license_id: values.licenseId, machine_id: values.machineId, day: values.day })
    .onConflict((conflict) => conflict.doNothing())
    .execute();
}

const heldSeat = new PreparedQuery<{ leased_until: string }, { pool: string; machineId: string; licenseId: number; now: string }>(
  ['pool', 'machineId', 'licenseId', 'now'],
  (db, { pool, machineId, licenseId, now }) =>
    db
      .selectFrom('floating_seats')
      .select('leased_until')
      .where('pool', '=', pool)
      .where('machine_id', '=', machineId)
      .where('license_id', '=', licenseId)
      .where('leased_until', '>', now),
  { readsCommitted: true },
);

/** The end of the lease the machine holds now for this license, or undefined. */
export async function findHeldSeat(db: Executor, values: { pool: string; machineId: string; licenseId: number; now: string }): Promise<string | undefined> {
  const [row] = await heldSeat.execute(db, values);
  return row?.leased_until;
}

/** A renewal decided by an answer and written later (seats.ts): the lease as that answer saw it, and its new end. */
export interface SeatExtension {
  pool: string;
  machineId: string;
  licenseId: number;
  seenLeasedUntil: string;
  leasedUntil: string;
  renewedAt: string;
}

const seatExtension = new PreparedQuery<never, SeatExtension>(
  ['pool', 'machineId', 'licenseId', 'seenLeasedUntil', 'leasedUntil', 'renewedAt'],
  // Only the very lease the answer saw: a release, a revocation or a machine change ended it
  // meanwhile, or a renewal already took it further, and then this one has nothing to add.
  (db, extension) => leaseExtension(db, extension).where('leased_until', '=', extension.seenLeasedUntil),
);

/** Writes renewals decided earlier, in one transaction. */
export async function extendSeats(db: Kysely<DB>, extensions: SeatExtension[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const extension of extensions) await seatExtension.execute(trx, extension);
  });
}

/** Ends the lease of a machine now (released, or its license revoked). */
export async function endSeatLeases(db: Executor, where: { pool?: string; machineId?: string; licenseId?: number }, now: string): Promise<void> {
  let query = db.updateTable('floating_seats').set({ leased_until: now, borrowed_until: null }).where('leased_until', '>', now);
  if (where.pool !== undefined) query = query.where('pool', '=', where.pool);
  if (where.machineId !== undefined) query = query.where('machine_id', '=', where.machineId);
  if (where.licenseId !== undefined) query = query.where('license_id', '=', where.licenseId);
  await query.execute();
}

