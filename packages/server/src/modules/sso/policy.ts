import type { Role } from '@lm/contract';
import type { Executor } from '../../platform/db/database.ts';
import { AppError } from '../../platform/http/errors.ts';
import { readSetting, writeSetting } from '../settings/repo.ts';
import { settingValue } from '../settings/service.ts';

/**
 * The administrator who may still sign in with a password while staff must use single sign-on (the
 * way back in when the provider is down or misconfigured). Named by the CLI only
 * (`npm run cli -- sso:break-glass`): a setting outside SETTING_KEYS, which no API call writes.
 */
export const BREAK_GLASS_KEY = 'sso.breakGlassUserId';

export async function breakGlassUserId(db: Executor): Promise<number | null> {
  const value = await readSetting(db, BREAK_GLASS_KEY);
  return typeof value === 'number' ? value : null;
}

export async function setBreakGlassUser(db: Executor, userId: number): Promise<void> {
  await writeSetting(db, BREAK_GLASS_KEY, userId);
}

/**
 * With `sso.requiredForStaff`, administrators and distributors sign in through the provider only (so
 * that leaving the company ends their access): a right password is refused, except for the
 * break-glass administrator. Called once the password (and code) proved the person, so that the
 * answer tells a guesser nothing about the account's role.
 */
export async function refuseStaffPasswordLogin(db: Executor, user: { id: number; access_role: Role }): Promise<void> {
  if (user.access_role === 'USER') return;
  if (!(await settingValue<boolean>(db, 'sso.requiredForStaff'))) return;
  if ((await breakGlassUserId(db)) === user.id) return;
  throw new AppError(403, 'ERR_SSO_REQUIRED', 'Staff sign in with their company account (single sign-on)');
}

/** `npm run cli -- sso:break-glass --email <address>`: names the administrator who keeps password sign-in; an error text, or null when done. */
export async function nameBreakGlassAdministrator(db: Executor, email: string): Promise<string | null> {
  const user = await db.selectFrom('users').select(['id', 'access_role']).where('email', '=', email.trim().toLowerCase()).where('closed_at', 'is', null).executeTakeFirst();
  if (!user) return `No account has the address ${email}.`;
  if (user.access_role !== 'ADMIN') return `${email} is not an administrator.`;
  await setBreakGlassUser(db, user.id);
  return null;
}
