import type { TwoFactorStatus } from '@lm/contract/two-factor';
import type { Actor, AppContext } from '../../platform/context.ts';
import { notFound } from '../../platform/http/errors.ts';
import { accountLink, mailLocaleOf, queueAccountMail } from '../users/mails.ts';
import { findUserById } from '../users/repo.ts';
import { removeTwoFactor, twoFactorStatus } from './service.ts';

/** `GET /users/{id}/two-factor`: whether an account signs in with a second factor, for the administrator who might reset it. */
export async function twoFactorStatusOf(ctx: AppContext, userId: number): Promise<TwoFactorStatus> {
  const user = await findUserById(ctx.db, userId);
  if (!user || user.closed_at) throw notFound('User');
  return twoFactorStatus(ctx, { id: user.id, accessRole: user.access_role });
}

/**
 * `DELETE /users/{id}/two-factor`: an administrator turns off another account's second factor (a
 * lost phone, no recovery codes left). The change log records it and the account is mailed, so that
 * a reset the owner did not ask for does not go unnoticed.
 */
export async function resetTwoFactorOf(ctx: AppContext, actor: Actor, userId: number): Promise<void> {
  const user = await findUserById(ctx.db, userId);
  if (!user || user.closed_at) throw notFound('User');
  const removed = await removeTwoFactor(ctx, actor, userId);
  if (!removed) return;
  await ctx.db.transaction().execute((trx) =>
    queueAccountMail(ctx, trx, { kind: 'twoFactorReset', to: user.email, locale: mailLocaleOf(user), link: accountLink(ctx, 'twoFactorReset', {}), email: user.email }),
  );
  ctx.mail.wake();
}
