import type { Executor } from '../../platform/db/database.ts';
import { forUpdate } from '../../platform/db/dialect.ts';

/** An organization's TANs, licenses and named-user seats: the only SQL of them. */

function tanWithPolicy(db: Executor) {
  return db
    .selectFrom('tans')
    .innerJoin('products', 'products.id', 'tans.product_id')
    .leftJoin('license_policies as own', 'own.id', 'tans.license_policy_id')
    .leftJoin('license_policies as fallback', 'fallback.id', 'products.default_license_policy_id')
    .select((eb) => [
      'tans.id',
      'tans.code',
      'tans.product_id',
      'tans.license_count',
      'tans.activated_count',
      'tans.revoked',
      'tans.suspended',
      'tans.organization_id',
      'products.name as product_name',
      eb.fn.coalesce('own.seat_mode', 'fallback.seat_mode', eb.val('MACHINE')).as('seat_mode'),
      eb.fn.coalesce('own.seat_reassign_hours', 'fallback.seat_reassign_hours', eb.val(0)).as('seat_reassign_hours'),
    ]);
}

export interface OrgTanRow {
  id: number;
  code: string;
  product_id: number;
  license_count: number;
  activated_count: number;
  revoked: boolean | number;
  suspended: boolean | number;
  organization_id: number | null;
  product_name: string;
  seat_mode: string;
  seat_reassign_hours: number;
}

/** The organization's TAN; with `lock`, its row is locked until the transaction ends (seat decisions of one TAN run one after another). */
export async function findOrganizationTan(db: Executor, organizationId: number, tanId: number, options: { lock?: boolean } = {}): Promise<OrgTanRow | undefined> {
  if (options.lock) await forUpdate(db, db.selectFrom('tans').select('id').where('id', '=', tanId)).execute();
  const row = await tanWithPolicy(db).where('tans.id', '=', tanId).where('tans.organization_id', '=', organizationId).executeTakeFirst();
  return row && { ...row, seat_reassign_hours: Number(row.seat_reassign_hours) };
}

export async function listOrganizationTans(db: Executor, organizationId: number): Promise<(OrgTanRow & { seats: number })[]> {
  const rows = await tanWithPolicy(db)
    .select((eb) =>
      eb
        .selectFrom('organization_seats as s')
        .select((inner) => inner.fn.countAll<number>().as('c'))
        .whereRef('s.tan_id', '=', 'tans.id')
        .where('s.unassigned_at', 'is', null)
        .as('seats'),
    )
    .where('tans.organization_id', '=', organizationId)
    .orderBy('tans.id')
    .limit(1000)
    .execute();
  return rows.map((row) => ({ ...row, seat_reassign_hours: Number(row.seat_reassign_hours), seats: Number(row.seats ?? 0) }));
}

/** Claims a TAN by its code for the organization, when no organization has it yet; answers its id. */
export async function claimTanForOrganization(db: Executor, organizationId: number, code: string, now: string): Promise<number | undefined> {
  const row = await db
    .updateTable('tans')
    .set({ organization_id: organizationId, updated_at: now })
    .where('code', '=', code)
    .where('organization_id', 'is', null)
    .where('revoked', '=', false)
    .returning('id')
    .executeTakeFirst();
  if (!row) return undefined;
  await db.updateTable('licenses').set({ organization_id: organizationId }).where('tan_id', '=', row.id).execute();
  return row.id;
}

export async function setLicenseOrganization(db: Executor, licenseId: number, organizationId: number, now: string): Promise<void> {
  await db.updateTable('licenses').set({ organization_id: organizationId, updated_at: now }).where('id', '=', licenseId).execute();
}

export function findLicenseForMove(db: Executor, licenseId: number) {
  return forUpdate(db, db.selectFrom('licenses').select(['id', 'owner_id', 'organization_id', 'revoked']).where('id', '=', licenseId)).executeTakeFirst();
}

/** Suspends or reinstates every TAN of the organization, and their licenses' copies; answers the TAN ids changed. */
export async function setOrganizationTansSuspended(db: Executor, organizationId: number, suspended: boolean, now: string): Promise<number[]> {
  const rows = await db
    .updateTable('tans')
    .set({ suspended, updated_at: now })
    .where('organization_id', '=', organizationId)
    .where('suspended', '=', !suspended)
    .returning('id')
    .execute();
  const ids = rows.map((row) => row.id);
  if (ids.length) await db.updateTable('licenses').set({ suspended, updated_at: now }).where('tan_id', 'in', ids).execute();
  return ids;
}

export async function listOrganizationLicenses(db: Executor, organizationId: number, options: { userId?: number; offset: number; limit: number }) {
  let query = db
    .selectFrom('licenses')
    .innerJoin('products', 'products.id', 'licenses.product_id')
    .innerJoin('users', 'users.id', 'licenses.owner_id')
    .where('licenses.organization_id', '=', organizationId);
  if (options.userId !== undefined) query = query.where('licenses.owner_id', '=', options.userId);
  const count = await query.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  const rows = await query
    .select([
      'licenses.id',
      'products.name as product_name',
      'licenses.machine_id',
      'licenses.owner_id',
      'users.first_name',
      'users.last_name',
      'users.email',
      'licenses.tan_id',
      'licenses.revoked',
      'licenses.created_at',
    ])
    .orderBy('licenses.id', 'desc')
    .offset(options.offset)
    .limit(options.limit)
    .execute();
  return { rows, totalCount: Number(count.count) };
}

export interface SeatRow {
  id: number;
  organization_id: number;
  tan_id: number;
  user_id: number | null;
  assigned_at: string;
  unassigned_at: string | null;
  tan_code: string;
  product_name: string;
  email: string;
  first_name: string;
  last_name: string;
}

function seatView(db: Executor) {
  return db
    .selectFrom('organization_seats')
    .innerJoin('tans', 'tans.id', 'organization_seats.tan_id')
    .innerJoin('products', 'products.id', 'tans.product_id')
    .innerJoin('users', 'users.id', 'organization_seats.user_id')
    .select([
      'organization_seats.id',
      'organization_seats.organization_id',
      'organization_seats.tan_id',
      'organization_seats.user_id',
      'organization_seats.assigned_at',
      'organization_seats.unassigned_at',
      'tans.code as tan_code',
      'products.name as product_name',
      'users.email',
      'users.first_name',
      'users.last_name',
    ]);
}

export async function listSeats(db: Executor, organizationId: number, options: { userId?: number; offset: number; limit: number }): Promise<{ rows: SeatRow[]; totalCount: number }> {
  let query = seatView(db).where('organization_seats.organization_id', '=', organizationId).where('organization_seats.unassigned_at', 'is', null);
  if (options.userId !== undefined) query = query.where('organization_seats.user_id', '=', options.userId);
  const count = await query.clearSelect().select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  const rows = await query.orderBy('organization_seats.id').offset(options.offset).limit(options.limit).execute();
  return { rows, totalCount: Number(count.count) };
}

export function findSeat(db: Executor, organizationId: number, seatId: number): Promise<SeatRow | undefined> {
  return seatView(db).where('organization_seats.id', '=', seatId).where('organization_seats.organization_id', '=', organizationId).executeTakeFirst();
}

/** The seats of a TAN that hold it now: assigned, or freed since `since` by someone other than `userId` (the reassignment wait). */
export async function seatsHeld(db: Executor, tanId: number, userId: number, since: string): Promise<{ assigned: number; waiting: string[]; own: number | null }> {
  const rows = await db
    .selectFrom('organization_seats')
    .select(['id', 'user_id', 'unassigned_at'])
    .where('tan_id', '=', tanId)
    .where((eb) => eb.or([eb('unassigned_at', 'is', null), eb('unassigned_at', '>', since)]))
    .execute();
  const assigned = rows.filter((row) => row.unassigned_at === null);
  // A person's own recently freed seat is theirs again: only someone else waits for it.
  const waiting = rows.filter((row) => row.unassigned_at !== null && row.user_id !== userId).map((row) => row.unassigned_at!);
  return { assigned: assigned.length, waiting: waiting.sort(), own: assigned.find((row) => row.user_id === userId)?.id ?? null };
}

export async function insertSeat(db: Executor, seat: { organizationId: number; tanId: number; userId: number; assignedBy: number }, now: string): Promise<number> {
  const row = await db
    .insertInto('organization_seats')
    .values({ organization_id: seat.organizationId, tan_id: seat.tanId, user_id: seat.userId, assigned_by: seat.assignedBy, assigned_at: now, unassigned_at: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Ends a seat (once) and revokes the licenses of the machines signed in on it; answers those licenses' ids. */
export async function unassignSeatRow(db: Executor, seatId: number, now: string): Promise<{ ended: boolean; licenseIds: number[] }> {
  const result = await db.updateTable('organization_seats').set({ unassigned_at: now }).where('id', '=', seatId).where('unassigned_at', 'is', null).executeTakeFirst();
  const licenses = await db.updateTable('licenses').set({ revoked: true, updated_at: now }).where('seat_id', '=', seatId).where('revoked', '=', false).returning('id').execute();
  return { ended: Number(result.numUpdatedRows) > 0, licenseIds: licenses.map((row) => row.id) };
}

/** The seats a member holds in an organization now. */
export function activeSeatsOf(db: Executor, organizationId: number, userId: number) {
  return db.selectFrom('organization_seats').select(['id', 'user_id', 'tan_id']).where('organization_id', '=', organizationId).where('user_id', '=', userId).where('unassigned_at', 'is', null).execute();
}

/** Signs a person out of every desktop (their account closes). */
export async function deleteSignInsOfUser(db: Executor, userId: number): Promise<void> {
  await db.deleteFrom('desktop_sign_ins').where('user_id', '=', userId).execute();
}

/** Hands the organization's machine licenses a member holds to another member (the member's account closes). */
export async function transferOrganizationLicenses(db: Executor, organizationId: number, fromUserId: number, toUserId: number, now: string): Promise<number[]> {
  const rows = await db
    .updateTable('licenses')
    .set({ owner_id: toUserId, updated_at: now })
    .where('organization_id', '=', organizationId)
    .where('owner_id', '=', fromUserId)
    .where('seat_id', 'is', null)
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/** Whether a TAN's policy (its own, else its product's default) counts named users. */
export async function tanCountsUsers(db: Executor, tanId: number): Promise<boolean> {
  const row = await tanWithPolicy(db).where('tans.id', '=', tanId).executeTakeFirst();
  return row?.seat_mode === 'USER';
}

export async function setTanOrganization(db: Executor, tanId: number, organizationId: number): Promise<void> {
  await db.updateTable('tans').set({ organization_id: organizationId }).where('id', '=', tanId).execute();
}
