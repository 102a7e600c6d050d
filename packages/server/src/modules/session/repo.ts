import type { Executor } from '../../platform/db/database.ts';

export async function insertSession(db: Executor, tokenHash: string, userId: number, expiresAt: Date): Promise<void> {
  await db
    .insertInto('sessions')
    .values({ token_hash: tokenHash, user_id: userId, created_at: new Date().toISOString(), expires_at: expiresAt.toISOString() })
    .execute();
}

/** The user of a live session, with what the request needs to authorize. */
export function findSessionUser(db: Executor, tokenHash: string, now: Date) {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(['users.id', 'users.email', 'users.first_name', 'users.last_name', 'users.company', 'users.access_role', 'users.locale'])
    .where('sessions.token_hash', '=', tokenHash)
    .where('sessions.expires_at', '>', now.toISOString())
    .executeTakeFirst();
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
