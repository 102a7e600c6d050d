import * as OTPAuth from 'otpauth';
import { renderSVG } from 'uqr';
import type { Role } from '@lm/contract';
import { formatTanCode, randomCode } from '@lm/contract/tan';
import {
  isTotpCode,
  normalizeSecondFactorCode,
  RECOVERY_CODE_COUNT,
  RECOVERY_CODE_LENGTH,
  TOTP_DIGITS,
  TOTP_PERIOD_SECONDS,
  type TwoFactorSetup,
  type TwoFactorStatus,
} from '@lm/contract/two-factor';
import { hashToken, verifyPassword } from '../../platform/auth/secrets.ts';
import { recordChange } from '../../platform/changelog.ts';
import type { Actor, AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { AppError } from '../../platform/http/errors.ts';
import { FIFTEEN_MINUTES, rateLimited } from '../../platform/limits/limiter.ts';
import { decryptSecret, encryptSecret } from '../../platform/signing/secret-box.ts';
import { settingValue } from '../settings/service.ts';
import { deleteOtherSessions } from '../session-store/repo.ts';
import { findUserById } from '../users/repo.ts';
import { claimStep, confirmSecret, countUnusedRecoveryCodes, deleteTwoFactor, findTwoFactor, replaceRecoveryCodes, savePendingSecret, useRecoveryCode } from './repo.ts';

/** The account whose second factor a call is about: the caller, with the session it uses. */
export interface Account {
  id: number;
  email: string;
  accessRole: Role;
  sessionTokenHash: string | null;
}

/** Wrong passwords where an account proves itself (turning the factor off, new codes, a new password). */
const PASSWORD_CHECKS = { name: 'password-check', max: 10, windowMs: FIFTEEN_MINUTES };

/** Whether the settings require a second factor of this role: administrators and distributors can mint licenses. */
export async function twoFactorRequiredFor(db: Executor, role: Role): Promise<boolean> {
  return role !== 'USER' && (await settingValue<boolean>(db, 'security.requireTwoFactor'));
}

function totp(secretBase32: string, label: string, issuer: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ issuer, label, algorithm: 'SHA1', digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS, secret: OTPAuth.Secret.fromBase32(secretBase32) });
}

/** The time step a code belongs to (the current one, or one before or after for a clock a little off), or null. */
function stepOfCode(secretBase32: string, code: string, now: Date): number | null {
  const delta = totp(secretBase32, '', '').validate({ token: code, timestamp: now.getTime(), window: 1 });
  return delta === null ? null : Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS) + delta;
}

const sealed = (ctx: AppContext, secret: string) => (ctx.config.secretKey ? encryptSecret(secret, ctx.config.secretKey) : secret);

export async function twoFactorStatus(ctx: AppContext, account: Pick<Account, 'id' | 'accessRole'>): Promise<TwoFactorStatus> {
  const row = await findTwoFactor(ctx.db, account.id);
  const enabled = Boolean(row?.confirmed_at);
  return {
    enabled,
    enabledAt: row?.confirmed_at ?? null,
    recoveryCodesLeft: enabled ? await countUnusedRecoveryCodes(ctx.db, account.id) : 0,
    required: await twoFactorRequiredFor(ctx.db, account.accessRole),
  };
}

/** `POST /account/two-factor`: a new secret, pending until a code from the authenticator confirms it. */
export async function startEnrolment(ctx: AppContext, account: Account): Promise<TwoFactorSetup> {
  const existing = await findTwoFactor(ctx.db, account.id);
  if (existing?.confirmed_at) throw new AppError(409, 'ERR_TWO_FACTOR_ENABLED', 'Two-factor sign-in is already on; turn it off first to set up another authenticator');
  const secret = new OTPAuth.Secret({ size: 20 }).base32;
  await savePendingSecret(ctx.db, account.id, sealed(ctx, secret), new Date());
  const otpauthUrl = totp(secret, account.email, await settingValue<string>(ctx.db, 'theme.productName')).toString();
  return { secret, otpauthUrl, qrCodeSvg: renderSVG(otpauthUrl, { border: 2 }) };
}

const invalidCode = () => new AppError(422, 'ERR_TWO_FACTOR_INVALID', 'This code is not right; enter the code your authenticator shows now');

/** Ten new recovery codes: shown once, stored as hashes. */
async function newRecoveryCodes(trx: Executor, userId: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => randomCode(RECOVERY_CODE_LENGTH));
  await replaceRecoveryCodes(trx, userId, codes.map(hashToken));
  return codes.map(formatTanCode);
}

/**
 * `POST /account/two-factor/confirm`: a current code proves the authenticator holds the secret; the
 * factor is on from now, the account's other sessions end, and the recovery codes are shown once.
 */
export async function confirmEnrolment(ctx: AppContext, account: Account, code: string): Promise<string[]> {
  const row = await findTwoFactor(ctx.db, account.id);
  if (row?.confirmed_at) throw new AppError(409, 'ERR_TWO_FACTOR_ENABLED', 'Two-factor sign-in is already on');
  if (!row) throw new AppError(409, 'ERR_TWO_FACTOR_NOT_STARTED', 'There is no set-up of two-factor sign-in to confirm: it was not started or has been cancelled. Start the set-up again.');
  const now = new Date();
  const normalized = normalizeSecondFactorCode(code);
  const step = isTotpCode(normalized) ? stepOfCode(decryptSecret(row.secret, ctx.config.secretKey), normalized, now) : null;
  if (step === null) throw invalidCode();
  return ctx.db.transaction().execute(async (trx) => {
    if (!(await confirmSecret(trx, account.id, step, now))) throw new AppError(409, 'ERR_TWO_FACTOR_ENABLED', 'Two-factor sign-in is already on');
    const codes = await newRecoveryCodes(trx, account.id);
    await deleteOtherSessions(trx, account.id, account.sessionTokenHash);
    await recordChange(trx, { userId: account.id }, { model: 'User', recordId: account.id, operation: 'update', oldValues: { twoFactor: false }, newValues: { twoFactor: true } });
    return codes;
  });
}

/** The account's password, checked with a limit on wrong ones (422 ERR_WRONG_PASSWORD, then 429). */
export async function checkPassword(ctx: AppContext, userId: number, password: string): Promise<void> {
  const attempt = await ctx.limits.attempt(PASSWORD_CHECKS, String(userId));
  if (!attempt.allowed) throw rateLimited('Too many wrong passwords, please try again later', attempt.retryAfter);
  const user = await findUserById(ctx.db, userId);
  if (!(await verifyPassword(user?.password_hash ?? null, password))) throw new AppError(422, 'ERR_WRONG_PASSWORD', 'The password is not right');
  await ctx.limits.forget(attempt);
}

/** `DELETE /account/two-factor`: the password proves the person; the factor and its recovery codes go. */
export async function disableTwoFactor(ctx: AppContext, account: Account, password: string): Promise<void> {
  await checkPassword(ctx, account.id, password);
  await removeTwoFactor(ctx, { userId: account.id }, account.id);
}

/** `POST /account/two-factor/recovery-codes`: ten new codes; the old ones stop working. */
export async function regenerateRecoveryCodes(ctx: AppContext, account: Account, password: string): Promise<string[]> {
  await checkPassword(ctx, account.id, password);
  const row = await findTwoFactor(ctx.db, account.id);
  if (!row?.confirmed_at) throw new AppError(409, 'ERR_TWO_FACTOR_DISABLED', 'Two-factor sign-in is off, so there are no recovery codes to renew. Set up two-factor sign-in first.');
  return ctx.db.transaction().execute((trx) => newRecoveryCodes(trx, account.id));
}

/** Removes an account's second factor and records it; answers whether there was one. */
export async function removeTwoFactor(ctx: AppContext, actor: Actor, userId: number): Promise<boolean> {
  return ctx.db.transaction().execute(async (trx) => {
    const row = await findTwoFactor(trx, userId);
    if (!row) return false;
    await deleteTwoFactor(trx, userId);
    if (row.confirmed_at) await recordChange(trx, actor, { model: 'User', recordId: userId, operation: 'update', oldValues: { twoFactor: true }, newValues: { twoFactor: false } });
    return Boolean(row.confirmed_at);
  });
}

/**
 * The second factor of a login: a current authenticator code not used before (a code works once,
 * also within its 30 seconds), or an unused recovery code, which is then used up.
 */
export async function acceptSecondFactor(ctx: AppContext, userId: number, code: string, now = new Date()): Promise<boolean> {
  const row = await findTwoFactor(ctx.db, userId);
  if (!row?.confirmed_at) return false;
  const normalized = normalizeSecondFactorCode(code);
  if (isTotpCode(normalized)) {
    const step = stepOfCode(decryptSecret(row.secret, ctx.config.secretKey), normalized, now);
    return step !== null && (await claimStep(ctx.db, userId, step));
  }
  return useRecoveryCode(ctx.db, userId, hashToken(normalized), now);
}

/** Whether the account signs in with a second factor. */
export async function hasSecondFactor(db: Executor, userId: number): Promise<boolean> {
  return Boolean((await findTwoFactor(db, userId))?.confirmed_at);
}
