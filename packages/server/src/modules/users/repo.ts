import { formatUserName, type Role, type User, type UserFields } from '@lm/contract';
import type { Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.ts';
import type { UsersTable } from '../../platform/db/schema.ts';

export type UserRow = Selectable<UsersTable>;

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    email: row.email,
    username: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    formattedName: formatUserName({ firstName: row.first_name, lastName: row.last_name, company: row.company }),
    company: row.company,
    address: row.address,
    address2: row.address2,
    zip: row.zip,
    city: row.city,
    country: row.country,
    phone: row.phone,
    fax: row.fax,
    notes: row.notes,
    accessRole: row.access_role,
    optInEmail: Boolean(row.opt_in_email),
    confirmed: Boolean(row.confirmed),
    createdAt: row.created_at,
  };
}

export function findUserById(db: Executor, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
}

export async function countUsersWithRole(db: Executor, role: Role): Promise<number> {
  const row = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('count')).where('access_role', '=', role).executeTakeFirstOrThrow();
  return Number(row.count);
}

export interface NewUser extends UserFields {
  passwordHash: string | null;
  confirmed: boolean;
  locale?: string | null;
}

export async function insertUser(db: Executor, user: NewUser): Promise<UserRow> {
  const now = new Date().toISOString();
  return db
    .insertInto('users')
    .values({
      email: user.email,
      password_hash: user.passwordHash,
      first_name: user.firstName,
      last_name: user.lastName,
      company: user.company,
      address: user.address,
      address2: user.address2,
      zip: user.zip,
      city: user.city,
      country: user.country,
      phone: user.phone,
      fax: user.fax,
      notes: user.notes,
      access_role: user.accessRole,
      opt_in_email: user.optInEmail,
      confirmed: user.confirmed,
      locale: user.locale ?? null,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function setLastLogin(db: Executor, id: number): Promise<void> {
  await db.updateTable('users').set({ last_login_at: new Date().toISOString() }).where('id', '=', id).execute();
}
