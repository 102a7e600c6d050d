import {
  formatUserName,
  packAbilityRules,
  rulesFor,
  SESSION_LIFETIME_DAYS,
  type LoginRequest,
  type SessionUser,
} from '@lm/contract';
import { hashToken, randomToken, verifyPassword } from '../../platform/auth/secrets.ts';
import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import { FailureThrottle } from '../../platform/http/throttle.ts';
import { findUserByEmail, setLastLogin } from '../users/repo.ts';
import { deleteSession, insertSession } from './repo.ts';

/** Ten wrong passwords for one account within 15 minutes pause logins to it. */
export const loginFailures = new FailureThrottle(10, 15 * 60 * 1000);

export function sessionUserOf(user: { id: number; email: string; formattedName: string; accessRole: SessionUser['accessRole'] }): SessionUser {
  return {
    id: user.id,
    username: user.email,
    formattedName: user.formattedName,
    accessRole: user.accessRole,
    rules: packAbilityRules(rulesFor(user)) as unknown[][],
  };
}

export async function login(ctx: AppContext, credentials: LoginRequest): Promise<{ token: string; user: SessionUser }> {
  const key = credentials.username.toLowerCase();
  const wait = loginFailures.retryAfter(key);
  if (wait > 0) {
    throw new AppError(429, 'ERR_RATE_LIMITED', 'Too many failed logins, please try again later', { params: { retryAfter: wait } });
  }
  const user = await findUserByEmail(ctx.db, credentials.username);
  const valid = await verifyPassword(user?.password_hash ?? null, credentials.password);
  if (!user || !valid) {
    loginFailures.fail(key);
    throw new AppError(401, 'ERR_LOGIN_FAILED', 'Login failed');
  }
  loginFailures.reset(key);
  if (!user.confirmed) throw new AppError(409, 'ERR_CONFIRMATION_PENDING', 'The registration is not confirmed yet');
  const token = randomToken();
  await insertSession(ctx.db, hashToken(token), user.id, new Date(Date.now() + SESSION_LIFETIME_DAYS * 86400_000));
  await setLastLogin(ctx.db, user.id);
  const formattedName = formatUserName({ firstName: user.first_name, lastName: user.last_name, company: user.company, email: user.email });
  return { token, user: sessionUserOf({ id: user.id, email: user.email, accessRole: user.access_role, formattedName }) };
}

export async function logout(ctx: AppContext, tokenHash: string | null): Promise<void> {
  if (tokenHash) await deleteSession(ctx.db, tokenHash);
}
