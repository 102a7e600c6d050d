import { randomBytes } from 'node:crypto';
import type { Executor } from '../../platform/db/database.ts';

export interface NewSession {
  tokenHash: string;
  userId: number;
  expiresAt: Date;
  userAgent: string | null;
  address: string | null;
}

export async function insertSession(db: Executor, session: NewSession, now = new Date()): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      token_hash: session.tokenHash,
      id: randomBytes(12).toString('hex'),
      user_id: session.userId,
      user_agent: session.userAgent?.slice(0, 500) ?? null,
      address: session.address,
      created_at: now.toISOString(),
      last_used_at: now.toISOString(),
      expires_at: session.expiresAt.toISOString(),
    })
    .execute();
}

/** The user of a live session, with what the request needs to authorize. */
export function findSessionUser(db: Executor, tokenHash: string, now: Date) {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .leftJoin('user_two_factor as tf', (join) => join.onRef('tf.user_id', '=', 'users.id').on('tf.confirmed_at', 'is not', null))
    .select(['users.id', 'users.email', 'users.first_name', 'users.last_name', 'users.company', 'users.access_role', 'users.locale', 'sessions.last_used_at', 'sessions.wrote_at', 'tf.user_id as two_factor_user'])
    .where('sessions.token_hash', '=', tokenHash)
    .where('sessions.expires_at', '>', now.toISOString())
    .executeTakeFirst();
}

/** The session wrote (read-your-writes, platform/http/read-routing.ts). */
export async function markSessionWrote(db: Executor, tokenHash: string, at: string): Promise<void> {
  await db.updateTable('sessions').set({ wrote_at: at }).where('token_hash', '=', tokenHash).execute();
}

export async function touchSession(db: Executor, tokenHash: string, now: Date): Promise<void> {
  await db.updateTable('sessions').set({ last_used_at: now.toISOString() }).where('token_hash', '=', tokenHash).execute();
}

export function sessionsOfUser(db: Executor, userId: number, now: Date) {
  return db
    .selectFrom('sessions')
    .select(['id', 'token_hash', 'user_agent', 'address', 'created_at', 'last_used_at'])
    .where('user_id', '=', userId)
    .where('expires_at', '>', now.toISOString())
    .orderBy('last_used_at', 'desc')
    .execute();
}

/** Ends one session of the user by its id; answers whether there was one. */
export async function deleteSessionById(db: Executor, userId: number, id: string): Promise<boolean> {
  const rows = await db.deleteFrom('sessions').where('user_id', '=', userId).where('id', '=', id).returning('token_hash').execute();
  return rows.length > 0;
}

/** Ends every session of the user but one (the one in use). */
export async function deleteOtherSessions(db: Executor, userId: number, keepTokenHash: string | null): Promise<void> {
  let query = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (keepTokenHash) query = query.where('token_hash', '<>', keepTokenHash);
  await query.execute();
}

export async function deleteSession(db: Executor, tokenHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
}

export async function deleteSessionsOfUser(db: Executor, userId: number): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
}

export async function deleteExpiredSessions(db: Executor, now: Date): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<=', now.toISOString()).execute();
}

// Device cookies: the browsers an account logged in from.

export function findLoginDevice(db: Executor, tokenHash: string) {
  return db.selectFrom('login_devices').select(['token_hash', 'user_id']).where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function rememberLoginDevice(db: Executor, tokenHash: string, userId: number, now: Date): Promise<void> {
  await db
    .insertInto('login_devices')
    .values({ token_hash: tokenHash, user_id: userId, created_at: now.toISOString(), last_used_at: now.toISOString() })
    .onConflict((conflict) => conflict.column('token_hash').doUpdateSet({ last_used_at: now.toISOString() }))
    .execute();
}

export async function deleteLoginDevicesOfUser(db: Executor, userId: number): Promise<void> {
  await db.deleteFrom('login_devices').where('user_id', '=', userId).execute();
}

export async function deleteLoginDevicesUnusedSince(db: Executor, before: Date): Promise<void> {
  await db.deleteFrom('login_devices').where('last_used_at', '<', before.toISOString()).execute();
}
