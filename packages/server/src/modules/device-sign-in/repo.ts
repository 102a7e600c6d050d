import type { Executor } from '../../platform/db/database.ts';
import { forUpdate } from '../../platform/db/dialect.ts';

/** Desktop sign-in (RFC 8628): device authorizations, the sign-ins they become, and a signed-in machine's seat. The only SQL of them. */

/** The newest version of a product by name (and version when given), for a sign-in to name. */
export function findProductByName(db: Executor, name: string, version?: string) {
  let query = db.selectFrom('products').select(['id', 'name', 'version']).where('name', '=', name).where('active', '=', true);
  if (version !== undefined) query = query.where('version', '=', version);
  return query.orderBy('id', 'desc').executeTakeFirst();
}

export async function insertAuthorization(
  db: Executor,
  row: { deviceCodeHash: string; userCode: string; productId: number; machineId: string; intervalSeconds: number; expiresAt: string },
  now: string,
): Promise<void> {
  await db
    .insertInto('device_authorizations')
    .values({
      device_code_hash: row.deviceCodeHash,
      user_code: row.userCode,
      product_id: row.productId,
      machine_id: row.machineId,
      interval_seconds: row.intervalSeconds,
      status: 'pending',
      user_id: null,
      created_at: now,
      expires_at: row.expiresAt,
      last_polled_at: null,
    })
    .execute();
}

/** Authorizations that expired a day ago or more are of no use to anyone. */
export async function deleteStaleAuthorizations(db: Executor, before: string): Promise<void> {
  await db.deleteFrom('device_authorizations').where('expires_at', '<', before).execute();
}

function authorizationView(db: Executor) {
  return db
    .selectFrom('device_authorizations as a')
    .innerJoin('products as p', 'p.id', 'a.product_id')
    .select(['a.id', 'a.user_code', 'a.product_id', 'a.machine_id', 'a.interval_seconds', 'a.status', 'a.user_id', 'a.expires_at', 'a.last_polled_at', 'p.name as product_name']);
}

export function findAuthorizationByDeviceCode(db: Executor, deviceCodeHash: string) {
  return forUpdate(db, authorizationView(db).where('a.device_code_hash', '=', deviceCodeHash)).executeTakeFirst();
}

export function findAuthorizationByUserCode(db: Executor, userCode: string, options: { lock?: boolean } = {}) {
  const query = authorizationView(db).where('a.user_code', '=', userCode);
  return (options.lock ? forUpdate(db, query) : query).executeTakeFirst();
}

export async function recordPoll(db: Executor, id: number, now: string, intervalSeconds: number): Promise<void> {
  await db.updateTable('device_authorizations').set({ last_polled_at: now, interval_seconds: intervalSeconds }).where('id', '=', id).execute();
}

/** Approves or denies a pending authorization, once: false when it was decided already. */
export async function decideAuthorization(db: Executor, id: number, status: 'approved' | 'denied', userId: number): Promise<boolean> {
  const result = await db.updateTable('device_authorizations').set({ status, user_id: userId }).where('id', '=', id).where('status', '=', 'pending').executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The approved authorization gives its token once. */
export async function markAuthorizationUsed(db: Executor, id: number): Promise<boolean> {
  const result = await db.updateTable('device_authorizations').set({ status: 'used' }).where('id', '=', id).where('status', '=', 'approved').executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function insertSignIn(db: Executor, row: { tokenHash: string; userId: number; productId: number; machineId: string }, now: string): Promise<number> {
  const { id } = await db
    .insertInto('desktop_sign_ins')
    .values({ token_hash: row.tokenHash, user_id: row.userId, product_id: row.productId, machine_id: row.machineId, created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** The live sign-in of a token, its person's account open; with the product's name. */
export function findSignIn(db: Executor, tokenHash: string) {
  return db
    .selectFrom('desktop_sign_ins as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('products as p', 'p.id', 's.product_id')
    .select(['s.id', 's.user_id', 's.product_id', 's.machine_id', 'p.name as product_name'])
    .where('s.token_hash', '=', tokenHash)
    .where('u.closed_at', 'is', null)
    .executeTakeFirst();
}

export function listSignIns(db: Executor, userId: number) {
  return db
    .selectFrom('desktop_sign_ins as s')
    .innerJoin('products as p', 'p.id', 's.product_id')
    .select(['s.id', 's.machine_id', 's.created_at', 'p.name as product_name'])
    .where('s.user_id', '=', userId)
    .orderBy('s.id', 'desc')
    .limit(1000)
    .execute();
}

export async function deleteSignIn(db: Executor, id: number, userId: number): Promise<boolean> {
  const result = await db.deleteFrom('desktop_sign_ins').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * The person's live seat for a product (by name; version when given): a seat not unassigned, of a
 * TAN not revoked, in an organization the person still belongs to.
 */
export function findActiveSeat(db: Executor, userId: number, productName: string, version?: string) {
  let query = db
    .selectFrom('organization_seats as s')
    .innerJoin('organization_members as m', (join) => join.onRef('m.organization_id', '=', 's.organization_id').onRef('m.user_id', '=', 's.user_id'))
    .innerJoin('tans as t', 't.id', 's.tan_id')
    .innerJoin('products as p', 'p.id', 't.product_id')
    .select(['s.id', 's.tan_id', 's.organization_id', 't.product_id', 't.code', 't.license_policy_id', 't.free_updates_until', 'p.default_license_policy_id'])
    .where('s.user_id', '=', userId)
    .where('s.unassigned_at', 'is', null)
    .where('t.revoked', '=', false)
    .where('p.name', '=', productName);
  if (version !== undefined) query = query.where('p.version', '=', version);
  return query.orderBy('p.id', 'desc').orderBy('s.id').executeTakeFirst();
}

/** The licenses of a seat's machines, revoked ones too: the one of this machine, and how many are live. */
export async function seatLicenses(db: Executor, seatId: number): Promise<{ id: number; machine_id: string | null; revoked: boolean }[]> {
  const rows = await db.selectFrom('licenses').select(['id', 'machine_id', 'revoked']).where('seat_id', '=', seatId).execute();
  return rows.map((row) => ({ ...row, revoked: Boolean(row.revoked) }));
}

/** Locks the seat's row: two machines of one person signing in at once count one after the other. */
export async function lockSeat(db: Executor, seatId: number): Promise<{ unassigned_at: string | null } | undefined> {
  return forUpdate(db, db.selectFrom('organization_seats').select('unassigned_at').where('id', '=', seatId)).executeTakeFirst();
}
