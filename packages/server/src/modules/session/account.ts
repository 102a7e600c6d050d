import { describeUserAgent, type AccountSession } from '@lm/contract/two-factor';
import { hashPassword } from '../../platform/auth/secrets.ts';
import { recordChange } from '../../platform/changelog.ts';
import type { AppContext } from '../../platform/context.ts';
import { notFound } from '../../platform/http/errors.ts';
import { checkPassword } from '../two-factor/service.ts';
import { updateUser } from '../users/repo.ts';
import { deleteTokensOfUser } from '../users/token-repo.ts';
import { deleteOtherSessions, deleteSessionById, sessionsOfUser } from '../session-store/repo.ts';

/** `GET /account/sessions`: the account's live sessions, the one in use marked, latest use first. */
export async function accountSessions(ctx: AppContext, userId: number, currentTokenHash: string | null): Promise<AccountSession[]> {
  const rows = await sessionsOfUser(ctx.db, userId, new Date());
  return rows.map((row) => ({
    id: row.id,
    current: row.token_hash === currentTokenHash,
    ...describeUserAgent(row.user_agent),
    address: row.address,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  }));
}

/** `DELETE /account/sessions/{id}`: ends one of the account's sessions (the one in use too: that is a logout). */
export async function endAccountSession(ctx: AppContext, userId: number, id: string): Promise<void> {
  if (!(await deleteSessionById(ctx.db, userId, id))) throw notFound('Session');
}

/** `DELETE /account/sessions`: ends every session of the account but the one in use. */
export async function endOtherSessions(ctx: AppContext, userId: number, currentTokenHash: string | null): Promise<void> {
  await deleteOtherSessions(ctx.db, userId, currentTokenHash);
}

/**
 * `PUT /account/password`: the current password proves the person; the new one takes its place and
 * every other session of the account ends (whoever knew the old password is out). Reset links
 * already mailed stop working: whoever reads that mailbox would otherwise set a password of their own.
 */
export async function changePassword(ctx: AppContext, userId: number, currentTokenHash: string | null, input: { currentPassword: string; newPassword: string }): Promise<void> {
  await checkPassword(ctx, userId, input.currentPassword);
  const passwordHash = await hashPassword(input.newPassword);
  await ctx.db.transaction().execute(async (trx) => {
    await updateUser(trx, userId, { passwordHash });
    await deleteOtherSessions(trx, userId, currentTokenHash);
    await deleteTokensOfUser(trx, userId, 'reset-password');
    await recordChange(trx, { userId }, { model: 'User', recordId: userId, operation: 'update', oldValues: {}, newValues: { passwordChanged: true } });
  });
}
