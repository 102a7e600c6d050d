import type { Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.ts';
import type { UserTokenPurpose, UserTokensTable } from '../../platform/db/schema.ts';

export type UserTokenRow = Selectable<UserTokensTable>;

export async function insertToken(
  db: Executor,
  token: { userId: number; purpose: UserTokenPurpose; tokenHash: string; newEmail?: string | null; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('user_tokens')
    .values({
      user_id: token.userId,
      purpose: token.purpose,
      token_hash: token.tokenHash,
      new_email: token.newEmail ?? null,
      created_at: token.createdAt.toISOString(),
      expires_at: token.expiresAt.toISOString(),
    })
    .execute();
}

export function findToken(db: Executor, purpose: UserTokenPurpose, tokenHash: string): Promise<UserTokenRow | undefined> {
  return db.selectFrom('user_tokens').selectAll().where('token_hash', '=', tokenHash).where('purpose', '=', purpose).executeTakeFirst();
}

/** Deletes one token; answers whether it was still there (a token is used once, even by concurrent requests). */
export async function deleteToken(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom('user_tokens').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Deletes a user's tokens of one purpose, or all of them. */
export async function deleteTokensOfUser(db: Executor, userId: number, purpose?: UserTokenPurpose): Promise<void> {
  let query = db.deleteFrom('user_tokens').where('user_id', '=', userId);
  if (purpose) query = query.where('purpose', '=', purpose);
  await query.execute();
}

export async function deleteExpiredTokens(db: Executor, now: Date): Promise<void> {
  await db.deleteFrom('user_tokens').where('expires_at', '<=', now.toISOString()).execute();
}

/** The user's newest e-mail change still waiting for its link (unexpired), if any. */
export async function findPendingEmailChange(db: Executor, userId: number, now: Date): Promise<{ email: string; expiresAt: string } | undefined> {
  const row = await db
    .selectFrom('user_tokens')
    .select(['new_email', 'expires_at'])
    .where('user_id', '=', userId)
    .where('purpose', '=', 'change-email')
    .where('expires_at', '>', now.toISOString())
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
  return row?.new_email ? { email: row.new_email, expiresAt: new Date(row.expires_at).toISOString() } : undefined;
}

/** The addresses of the user's unconfirmed e-mail changes. */
export async function pendingNewEmails(db: Executor, userId: number): Promise<string[]> {
  const rows = await db.selectFrom('user_tokens').select('new_email').where('user_id', '=', userId).where('purpose', '=', 'change-email').execute();
  return rows.flatMap((row) => (row.new_email ? [row.new_email] : []));
}
