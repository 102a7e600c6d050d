import { randomToken, hashPassword } from '../../platform/auth/secrets.ts';
import { recordChange } from '../../platform/changelog.ts';
import { SYSTEM, type AppContext } from '../../platform/context.ts';
import { lockKey } from '../../platform/db/dialect.ts';
import { countUsersWithRole, findUserByEmail, insertUser, NO_CONTACT_DETAILS, toUser } from './repo.ts';

/**
 * First start (DESIGN.md section 8): with no administrator, create one from ADMIN_EMAIL and
 * ADMIN_PASSWORD, or with a random password printed once. Without a name, like an account that
 * registered itself: the interface shows its e-mail address until the person enters their name (a
 * made-up "System Administrator" read as English in every language and named nobody).
 */
export async function ensureAdministrator(ctx: AppContext): Promise<{ email: string; password?: string } | null> {
  if ((await countUsersWithRole(ctx.db, 'ADMIN')) > 0) return null;
  const email = ctx.config.adminEmail;
  const password = ctx.config.adminPassword ?? randomToken(12);
  const passwordHash = await hashPassword(password);
  // Decided again under a lock: instances started at once on an empty database (compose.scaled.yaml)
  // create one administrator, and only the instance that created it prints its password.
  const created = await ctx.db.transaction().execute(async (trx) => {
    await lockKey(trx, 'first administrator');
    if ((await countUsersWithRole(trx, 'ADMIN')) > 0) return false;
    if (await findUserByEmail(trx, email)) {
      throw new Error(`ADMIN_EMAIL ${email} belongs to an existing account that is not an administrator; choose another address`);
    }
    const row = await insertUser(trx, {
      email,
      passwordHash,
      firstName: '',
      lastName: '',
      ...NO_CONTACT_DETAILS,
      accessRole: 'ADMIN',
      optInEmail: false,
      confirmed: true,
    });
    await recordChange(trx, SYSTEM, { model: 'User', recordId: row.id, operation: 'insert', newValues: toUser(row) });
    return true;
  });
  if (!created) return null;
  return { email, password: ctx.config.adminPassword ? undefined : password };
}
