import type { Role } from '@lm/contract';
import { hashPassword, randomToken } from '../../platform/auth/secrets.ts';
import { recordChange } from '../../platform/changelog.ts';
import { SYSTEM } from '../../platform/context.ts';
import type { Database } from '../../platform/db/database.ts';
import { AppError } from '../../platform/http/errors.ts';
import { findUserByEmail, insertUser, NO_CONTACT_DETAILS, toUser, type NewUser } from './repo.ts';

export interface CliUser {
  email: string;
  role: Role;
  password?: string;
  firstName?: string;
  lastName?: string;
  /** Address, company and the like (seed:demo); none by default. */
  contact?: Partial<Pick<NewUser, keyof typeof NO_CONTACT_DETAILS>>;
  locale?: string;
  optInEmail?: boolean;
}

/** `npm run cli -- user:create`: a confirmed account for operators and tests. */
export async function createUserFromCli(database: Database, input: CliUser): Promise<{ id: number; generatedPassword?: string }> {
  const password = input.password ?? randomToken(12);
  const passwordHash = await hashPassword(password);
  return database.db.transaction().execute(async (trx) => {
    if (await findUserByEmail(trx, input.email)) throw new AppError(409, 'ERR_DUPLICATE_EMAIL', `${input.email} is already registered`);
    const local = input.email.split('@')[0];
    const row = await insertUser(trx, {
      email: input.email,
      passwordHash,
      firstName: input.firstName ?? local,
      lastName: input.lastName ?? (input.role === 'USER' ? 'Customer' : input.role === 'ADMIN' ? 'Administrator' : 'Distributor'),
      ...NO_CONTACT_DETAILS,
      ...input.contact,
      accessRole: input.role,
      optInEmail: input.optInEmail ?? false,
      confirmed: true,
      locale: input.locale,
    });
    await recordChange(trx, SYSTEM, { model: 'User', recordId: row.id, operation: 'insert', newValues: toUser(row) });
    return { id: row.id, generatedPassword: input.password ? undefined : password };
  });
}
