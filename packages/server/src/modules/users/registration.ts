import type { Locale, Registration } from '@lm/contract';
import { hashPassword } from '../../platform/auth/secrets.ts';
import { recordChange } from '../../platform/changelog.ts';
import type { Actor, AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { isUniqueViolation } from '../../platform/db/search.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { accountLink, queueAccountMail } from './mails.ts';
import { findOpenUserById, findUserByEmail, insertUser, NO_CONTACT_DETAILS, toUser, updateUser, type UserRow } from './repo.ts';
import { invalidToken, issueToken, validToken } from './tokens.ts';

export const duplicateEmail = () => new AppError(409, 'ERR_DUPLICATE_EMAIL', 'Email address already registered');
export const alreadyConfirmed = () => new AppError(409, 'ERR_ALREADY_CONFIRMED', 'This registration is already confirmed');
export const confirmationPending = () => new AppError(409, 'ERR_CONFIRMATION_PENDING', 'The registration is not confirmed yet');

type RegistrationInput = Omit<Registration, 'optInEmail'> & { optInEmail?: boolean };

/**
 * A new customer account, unconfirmed until the link of the confirmation mail is followed. The mail
 * is queued in the same transaction, in the language of the request.
 */
export async function register(ctx: AppContext, input: RegistrationInput, locale: Locale): Promise<void> {
  const existing = await findUserByEmail(ctx.db, input.email);
  if (existing) throw existing.confirmed ? duplicateEmail() : confirmationPending();
  const passwordHash = await hashPassword(input.password);
  try {
    await ctx.db.transaction().execute(async (trx) => {
      // Registration asks for the address alone; the person adds name and address under My account.
      const row = await insertUser(trx, {
        email: input.email,
        passwordHash,
        firstName: '',
        lastName: '',
        ...NO_CONTACT_DETAILS,
        accessRole: 'USER',
        optInEmail: input.optInEmail ?? false,
        confirmed: false,
        locale,
      });
      await recordChange(trx, { userId: row.id }, { model: 'User', recordId: row.id, operation: 'insert', newValues: toUser(row) });
      await queueConfirmationMail(ctx, trx, row, locale);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateEmail();
    throw error;
  }
  ctx.mail.wake();
}

async function queueConfirmationMail(ctx: AppContext, trx: Executor, user: UserRow, locale: Locale): Promise<void> {
  const token = await issueToken(trx, user.id, 'confirm-registration');
  const link = accountLink(ctx, 'confirmRegistration', { email: user.email, id: user.id, token });
  await queueAccountMail(ctx, trx, { kind: 'confirmRegistration', to: user.email, locale, link, email: user.email });
}

/** A new confirmation mail for a pending registration; nothing for any other address (the answer is the same). */
export async function resendConfirmation(ctx: AppContext, email: string, locale: Locale): Promise<void> {
  const user = await findUserByEmail(ctx.db, email);
  if (!user || user.closed_at || user.confirmed) return;
  await ctx.db.transaction().execute((trx) => queueConfirmationMail(ctx, trx, user, locale));
  ctx.mail.wake();
}

/**
 * Confirms a registration with the token from the mail. Every link mailed for it (a resent
 * confirmation too) stays usable until it expires, so that whichever one the person opens again
 * says "log in" instead of "failed"; confirming grants nothing more the second time. Only a real
 * link hears that the account is confirmed: with a made-up token, ids would tell which accounts exist.
 */
export async function confirmRegistrationByToken(ctx: AppContext, id: number, token: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await validToken(trx, 'confirm-registration', token, (row) => row.user_id === id);
    const user = await findOpenUserById(trx, id);
    if (!user) throw invalidToken();
    if (user.confirmed) throw alreadyConfirmed();
    await markConfirmed(trx, { userId: id }, user);
  });
}

/** An administrator confirms a registration without the mail (spec section 4). Confirming twice changes nothing. */
export async function confirmRegistrationByAdministrator(ctx: AppContext, actor: Actor, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const user = await findOpenUserById(trx, id);
    if (!user) throw notFound('User');
    await markConfirmed(trx, actor, user);
  });
}

async function markConfirmed(trx: Executor, actor: Actor, user: UserRow): Promise<void> {
  if (user.confirmed) return;
  await updateUser(trx, user.id, { confirmed: true });
  await recordChange(trx, actor, { model: 'User', recordId: user.id, operation: 'update', oldValues: { confirmed: false }, newValues: { confirmed: true } });
}
