import { hashToken, randomToken } from '../../platform/auth/secrets.ts';
import type { Executor } from '../../platform/db/database.ts';
import type { UserTokenPurpose } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/http/errors.ts';
import { deleteExpiredTokens, deleteToken, findToken, insertToken, type UserTokenRow } from './token-repo.ts';

const HOUR_MS = 3600_000;

/** How long a mailed link works: confirmation and e-mail change 48 hours, password reset 2 hours. */
export const TOKEN_LIFETIME_HOURS: Record<UserTokenPurpose, number> = {
  'confirm-registration': 48,
  'change-email': 48,
  'reset-password': 2,
};

/**
 * A new single-use token for a mail link; only its hash is stored. Answers the token itself. A link
 * nobody asked for (the set-password mail of an account created from a shop order) may live longer.
 */
export async function issueToken(
  db: Executor,
  userId: number,
  purpose: UserTokenPurpose,
  newEmail: string | null = null,
  now = new Date(),
  lifetimeHours = TOKEN_LIFETIME_HOURS[purpose],
): Promise<string> {
  const token = randomToken();
  await insertToken(db, {
    userId,
    purpose,
    tokenHash: hashToken(token),
    newEmail,
    createdAt: now,
    expiresAt: new Date(now.getTime() + lifetimeHours * HOUR_MS),
  });
  return token;
}

export const invalidToken = () => new AppError(422, 'ERR_INVALID_TOKEN', 'The link is invalid, was already used or has expired');

/**
 * A token that exists for the purpose, is unexpired and, when given, belongs to the user; it stays.
 * Unknown, used, expired and foreign tokens are refused alike.
 */
export async function validToken(
  trx: Executor,
  purpose: UserTokenPurpose,
  token: string,
  check: (row: UserTokenRow) => boolean = () => true,
  now = new Date(),
): Promise<UserTokenRow> {
  const row = await findToken(trx, purpose, hashToken(token));
  if (!row || row.expires_at <= now.toISOString() || !check(row)) throw invalidToken();
  return row;
}

/** Uses a token up (see validToken): it is deleted in the caller's transaction, so that it works exactly once. */
export async function consumeToken(
  trx: Executor,
  purpose: UserTokenPurpose,
  token: string,
  check: (row: UserTokenRow) => boolean = () => true,
  now = new Date(),
): Promise<UserTokenRow> {
  const row = await validToken(trx, purpose, token, check, now);
  if (!(await deleteToken(trx, row.id))) throw invalidToken();
  // Expired tokens of everyone go at the same time; no separate cleaner is needed.
  await deleteExpiredTokens(trx, now);
  return row;
}
