import { formatUserName, type Role, type User, type UserFields } from '@lm/contract';
import type { Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.ts';
import type { UsersTable } from '../../platform/db/schema.ts';
import { nameKeys } from './sort-keys.ts';

export type UserRow = Selectable<UsersTable>;

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    email: row.email,
    username: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    formattedName: formatUserName({ firstName: row.first_name, lastName: row.last_name, company: row.company, email: row.email }),
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

/** The user, closed accounts included (they are rows without personal data). */
export function findUserById(db: Executor, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** An open account by id: what every route works with. */
export function findOpenUserById(db: Executor, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).where('closed_at', 'is', null).executeTakeFirst();
}

export function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
}

export async function countUsersWithRole(db: Executor, role: Role): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('access_role', '=', role)
    .where('closed_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The contact fields of an account that nobody has filled in yet. */
export const NO_CONTACT_DETAILS = { company: null, address: null, address2: null, zip: null, city: null, country: null, phone: null, fax: null, notes: null } as const;

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
      ...nameKeys(user),
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

const COLUMNS: Record<keyof UserFields, keyof UsersTable> = {
  email: 'email',
  firstName: 'first_name',
  lastName: 'last_name',
  company: 'company',
  address: 'address',
  address2: 'address2',
  zip: 'zip',
  city: 'city',
  country: 'country',
  phone: 'phone',
  fax: 'fax',
  notes: 'notes',
  accessRole: 'access_role',
  optInEmail: 'opt_in_email',
};

export interface UserChanges extends Partial<UserFields> {
  passwordHash?: string;
  confirmed?: boolean;
}

/** Writes the given fields (and updated_at) and answers the row as it is now. */
export async function updateUser(db: Executor, id: number, changes: UserChanges): Promise<UserRow> {
  const values: Record<string, unknown> = { updated_at: new Date().toISOString() };
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (field === 'passwordHash') values.password_hash = value;
    else if (field === 'confirmed') values.confirmed = value;
    else values[COLUMNS[field as keyof UserFields]] = value;
  }
  const { firstName, lastName, company } = changes;
  if (firstName !== undefined || lastName !== undefined || company !== undefined) {
    // The sort keys follow the names (sort-keys.ts); a field left out keeps its stored value.
    const all = firstName !== undefined && lastName !== undefined && company !== undefined;
    const stored = all ? null : await db.selectFrom('users').select(['first_name', 'last_name', 'company']).where('id', '=', id).executeTakeFirst();
    Object.assign(values, nameKeys({ firstName: firstName ?? stored?.first_name ?? '', lastName: lastName ?? stored?.last_name ?? '', company: company !== undefined ? company : (stored?.company ?? null) }));
  }
  return db.updateTable('users').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** A page of the consent export: confirmed open accounts that agreed to e-mails, in id order after `afterId`. */
export function consentingUsersAfter(db: Executor, afterId: number, limit: number) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'first_name', 'last_name', 'company', 'country', 'locale', 'created_at'])
    .where('opt_in_email', '=', true)
    .where('confirmed', '=', true)
    .where('closed_at', 'is', null)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}
