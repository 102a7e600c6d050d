import type { EmailChangeResult, Locale, PendingEmailChange } from '@lm/contract';
import { recordChange } from '../../platform/changelog.ts';
import type { AppContext } from '../../platform/context.ts';
import { isUniqueViolation } from '../../platform/db/search.ts';
import { notFound, validationError } from '../../platform/http/errors.ts';
import { accountLink, mailLocaleOf, queueAccountMail } from './mails.ts';
import { duplicateEmail } from './registration.ts';
import { findOpenUserById, findUserByEmail, updateUser } from './repo.ts';
import { deleteTokensOfUser, findPendingEmailChange } from './token-repo.ts';
import { consumeToken, issueToken } from './tokens.ts';

/** The own change of address still waiting for its link: the page shows it again when revisited. */
export async function pendingEmailChangeOf(ctx: AppContext, userId: number, now = new Date()): Promise<PendingEmailChange> {
  return { pending: (await findPendingEmailChange(ctx.db, userId, now)) ?? null };
}

/**
 * Starts an e-mail change: a confirmation mail goes to the new address, and the account keeps its
 * address until the token from that mail comes back. Only the latest request counts.
 */
export async function requestEmailChange(ctx: AppContext, userId: number, newEmail: string, locale: Locale): Promise<EmailChangeResult> {
  const user = await findOpenUserById(ctx.db, userId);
  if (!user) throw notFound('User');
  if (newEmail === user.email) throw validationError('email', 'sameEmail');
  if (await findUserByEmail(ctx.db, newEmail)) throw duplicateEmail();
  await ctx.db.transaction().execute(async (trx) => {
    await deleteTokensOfUser(trx, userId, 'change-email');
    const token = await issueToken(trx, userId, 'change-email', newEmail);
    const link = accountLink(ctx, 'changeEmail', { email: newEmail, token });
    await queueAccountMail(ctx, trx, { kind: 'changeEmail', to: newEmail, locale, link, email: newEmail });
  });
  ctx.mail.wake();
  return { status: 'pending', email: user.email };
}

/**
 * Completes an e-mail change with the token from the mail to the new address; it must be the
 * caller's own. The old address is told, so that a person whose session was taken over learns it.
 */
export async function confirmEmailChange(ctx: AppContext, userId: number, newEmail: string, token: string, locale: Locale): Promise<EmailChangeResult> {
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await consumeToken(trx, 'change-email', token, (row) => row.user_id === userId && row.new_email === newEmail);
      const user = await findOpenUserById(trx, userId);
      if (!user) throw notFound('User');
      // Someone may have registered the address since the request.
      if (await findUserByEmail(trx, newEmail)) throw duplicateEmail();
      await updateUser(trx, userId, { email: newEmail });
      await deleteTokensOfUser(trx, userId, 'change-email');
      await recordChange(trx, { userId }, { model: 'User', recordId: userId, operation: 'update', oldValues: { email: user.email }, newValues: { email: newEmail } });
      const link = accountLink(ctx, 'emailChanged', { email: newEmail });
      await queueAccountMail(ctx, trx, { kind: 'emailChanged', to: user.email, locale: mailLocaleOf(user, locale), link, email: user.email, newEmail });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateEmail();
    throw error;
  }
  ctx.mail.wake();
  return { status: 'complete', email: newEmail };
}
