import {
  formatUserName,
  packAbilityRules,
  rulesFor,
  SESSION_LIFETIME_DAYS,
  type LoginRequest,
  type AnonymousSession,
  type SessionUser,
} from '@lm/contract';
import { hashToken, randomToken, verifyPassword } from '../../platform/auth/secrets.ts';
import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import { rateLimited, type Attempt } from '../../platform/limits/limiter.ts';
import { LOGIN_LIMITS } from '../session-store/login-limits.ts';
import { limitedClient } from '../../platform/limits/client-address.ts';
import { enrollmentRequired } from '../two-factor/gate.ts';
import { refuseStaffPasswordLogin } from '../sso/policy.ts';
import { acceptSecondFactor, hasSecondFactor } from '../two-factor/service.ts';
import { findUserByEmail, setLastLogin } from '../users/repo.ts';
import { deleteLoginDevicesUnusedSince, deleteSession, findLoginDevice, insertSession, rememberLoginDevice } from '../session-store/repo.ts';

/** A device cookie unused this long is forgotten. */
const DEVICE_LIFETIME_DAYS = 365;

export interface LoginClient {
  /** The client's address (the nearest untrusted hop, see TRUST_PROXY). */
  address: string;
  /** The device cookie the browser sent, if any. */
  deviceToken?: string;
  /** The browser's User-Agent, shown in the account's list of sessions. */
  userAgent?: string;
}

/** The session's answer; `twoFactorEnrollmentRequired` leads an account that must set up a second factor there first. */
export async function sessionUserOf(
  ctx: AppContext,
  user: { id: number; email: string; formattedName: string; accessRole: SessionUser['accessRole']; twoFactorEnabled: boolean },
): Promise<SessionUser> {
  return {
    id: user.id,
    username: user.email,
    formattedName: user.formattedName,
    accessRole: user.accessRole,
    rules: packAbilityRules(rulesFor(user)) as unknown[][],
    twoFactorEnrollmentRequired: await enrollmentRequired(ctx, user),
  };
}

/** The answer of `GET /session` without a (valid) session: the rules of an anonymous visitor. */
export function anonymousSession(): AnonymousSession {
  return { id: null, username: null, formattedName: null, accessRole: null, rules: packAbilityRules(rulesFor(null)) as unknown[][] };
}

/** The attempts a login counts under: its device's own, or the account's and the address's. */
async function loginAttempts(ctx: AppContext, email: string, client: LoginClient, trustedDevice: string | null): Promise<Attempt[]> {
  const attempts = trustedDevice
    ? [await ctx.limits.attempt(LOGIN_LIMITS.device, trustedDevice)]
    : [await ctx.limits.attempt(LOGIN_LIMITS.address, limitedClient(client.address)), await ctx.limits.attempt(LOGIN_LIMITS.account, email)];
  const refused = attempts.find((attempt) => !attempt.allowed);
  if (!refused || refused.allowed) return attempts;
  for (const attempt of attempts) await ctx.limits.forget(attempt);
  throw rateLimited('Too many failed logins, please try again later', refused.retryAfter);
}

/**
 * `POST /session`: a new session, and the device cookie of this browser for the account (a new one,
 * or the one it sent, renewed). An account with a second factor needs its code too: without one the
 * answer is 401 ERR_TWO_FACTOR_REQUIRED (the password was right; the form then asks for the code),
 * and a wrong code counts toward the same limits as a wrong password.
 */
export async function login(ctx: AppContext, credentials: LoginRequest, client: LoginClient): Promise<{ token: string; user: SessionUser; deviceToken: string }> {
  const email = credentials.username.trim().toLowerCase();
  const user = await findUserByEmail(ctx.db, email);
  const device = user && client.deviceToken ? await findLoginDevice(ctx.db, hashToken(client.deviceToken)) : undefined;
  const trustedDevice = device && device.user_id === user?.id ? device.token_hash : null;
  const attempts = await loginAttempts(ctx, email, client, trustedDevice);
  const valid = await verifyPassword(user?.password_hash ?? null, credentials.password);
  if (!user || !valid) throw new AppError(401, 'ERR_LOGIN_FAILED', 'Login failed');
  const twoFactorEnabled = await hasSecondFactor(ctx.db, user.id);
  if (twoFactorEnabled) {
    if (!credentials.code) {
      for (const attempt of attempts) await ctx.limits.forget(attempt);
      throw new AppError(401, 'ERR_TWO_FACTOR_REQUIRED', 'Enter the code of your authenticator app, or a recovery code');
    }
    if (!(await acceptSecondFactor(ctx, user.id, credentials.code))) throw new AppError(401, 'ERR_TWO_FACTOR_INVALID', 'This code is not right, or was used already');
  }
  // Not a guess after all: the right password (and code) does not count toward any limit.
  for (const attempt of attempts) await ctx.limits.forget(attempt);
  if (trustedDevice) await ctx.limits.clear(LOGIN_LIMITS.device, trustedDevice);
  if (!user.confirmed) throw new AppError(409, 'ERR_CONFIRMATION_PENDING', 'The registration is not confirmed yet');

  await refuseStaffPasswordLogin(ctx.db, user);

  const now = new Date();
  const token = await openSession(ctx, user.id, client, now);
  const deviceToken = trustedDevice && client.deviceToken ? client.deviceToken : randomToken();
  await rememberLoginDevice(ctx.db, hashToken(deviceToken), user.id, now);
  await deleteLoginDevicesUnusedSince(ctx.db, new Date(now.getTime() - DEVICE_LIFETIME_DAYS * 86400_000));
  await setLastLogin(ctx.db, user.id);
  const formattedName = formatUserName({ firstName: user.first_name, lastName: user.last_name, company: user.company, email: user.email });
  return { token, deviceToken, user: await sessionUserOf(ctx, { id: user.id, email: user.email, accessRole: user.access_role, formattedName, twoFactorEnabled }) };
}

/** A new session of the account (its cookie's token): by password or by single sign-on. */
export async function openSession(ctx: AppContext, userId: number, client: LoginClient, now = new Date()): Promise<string> {
  const token = randomToken();
  await insertSession(ctx.db, {
    tokenHash: hashToken(token),
    userId,
    expiresAt: new Date(now.getTime() + SESSION_LIFETIME_DAYS * 86400_000),
    userAgent: client.userAgent ?? null,
    address: client.address,
  });
  return token;
}

export async function logout(ctx: AppContext, tokenHash: string | null): Promise<void> {
  if (tokenHash) await deleteSession(ctx.db, tokenHash);
}
