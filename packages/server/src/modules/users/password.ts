import type { Locale, PasswordReset } from '@lm/contract';
import { hashPassword } from '../../platform/auth/secrets.ts';
import { recordChange } from '../../platform/changelog.ts';
import type { AppContext } from '../../platform/context.ts';
import { deleteSessionsOfUser } from '../session-store/repo.ts';
import { LOGIN_LIMITS } from '../session-store/login-limits.ts';
import { accountLink, queueAccountMail } from './mails.ts';
import { findUserByEmail, updateUser } from './repo.ts';
import { deleteTokensOfUser } from './token-repo.ts';
import { consumeToken, invalidToken, issueToken } from './tokens.ts';

/**
 * Mails a reset link when the address belongs to an open account. The caller answers the same in
 * every case, so that nobody learns from it which addresses have accounts.
 */
export async function forgotPassword(ctx: AppContext, email: string, locale: Locale): Promise<void> {
  const user = await findUserByEmail(ctx.db, email);
  if (!user || user.closed_at) return;
  await ctx.db.transaction().execute(async (trx) => {
    const token = await issueToken(trx, user.id, 'reset-password');
    const link = accountLink(ctx, 'resetPassword', { email: user.email, token });
    await queueAccountMail(ctx, trx, { kind: 'resetPassword', to: user.email, locale, link, email: user.email });
  });
  ctx.mail.wake();
}

/**
 * Sets a new password with the token from the reset mail. Every session of the account ends (whoever
 * knew the old password is logged out), and an unconfirmed registration counts as confirmed: the
 * link proves the address as well as the confirmation link would.
 */
export async function resetPassword(ctx: AppContext, input: PasswordReset): Promise<void> {
  const passwordHash = await hashPassword(input.password);
  await ctx.db.transaction().execute(async (trx) => {
    const user = await findUserByEmail(trx, input.email);
    if (!user || user.closed_at) throw invalidToken();
    await consumeToken(trx, 'reset-password', input.token, (row) => row.user_id === user.id);
    await updateUser(trx, user.id, { passwordHash, confirmed: true });
    await deleteTokensOfUser(trx, user.id, 'reset-password');
    if (!user.confirmed) await deleteTokensOfUser(trx, user.id, 'confirm-registration');
    await deleteSessionsOfUser(trx, user.id);
    await recordChange(trx, { userId: user.id }, {
      model: 'User',
      recordId: user.id,
      operation: 'update',
      oldValues: user.confirmed ? {} : { confirmed: false },
      newValues: { passwordReset: true, ...(user.confirmed ? {} : { confirmed: true }) },
    });
  });
  // The owner proved the mailbox: a stranger's failed logins no longer hold new browsers back.
  await ctx.limits.clear(LOGIN_LIMITS.account, input.email.toLowerCase());
}
