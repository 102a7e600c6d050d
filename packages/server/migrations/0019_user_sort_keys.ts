import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../src/platform/db/dialect.ts';
import { nameKeys } from '../src/modules/users/sort-keys.ts';

/**
 * The user list sorts names and company regardless of accents (modules/users/sort-keys.ts).
 *
 * Sorted by lower(last_name), "Özdemir" and "Ärzte" came after "Zimmermann" on both databases: both
 * compare code points, and SQLite's lower() does not even fold "Ö" to "ö". The keys are columns the
 * app writes with the names; the list's indexes of 0014 on the lowercase names and company are built
 * anew on them, carrying the role and the search text as before. The expression statistics of 0015
 * go: PostgreSQL keeps statistics of the key columns themselves.
 */
const KEYS: [index: string, column: string, replaced: string][] = [
  ['users_list_first_name', 'first_name_key', 'lower(first_name)'],
  ['users_list_last_name', 'last_name_key', 'lower(last_name)'],
  ['users_list_company', 'company_key', 'lower(company)'],
];
const EXPRESSION_STATISTICS = ['users_lower_first_name', 'users_lower_last_name', 'users_lower_company'];
const BATCH = 1000;

/** PostgreSQL rewrote users: its index-only scans need the visibility map that VACUUM builds (migrate.ts). */
export const vacuumAfter = ['users'];

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema.alterTable('users').addColumn('first_name_key', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('users').addColumn('last_name_key', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('users').addColumn('company_key', 'text').execute();
  await fillSortKeys(db);
  for (const [index] of KEYS) await sql.raw(`drop index ${index}`).execute(db);
  for (const [index, column] of KEYS) await createListIndex(db, index, column, postgres);
  if (postgres) for (const name of EXPRESSION_STATISTICS) await sql.raw(`drop statistics if exists ${name}`).execute(db);
  await sql`analyze users`.execute(db);
}

/**
 * Every account's keys. ASCII text is only lowercased, which both databases' lower() does alike, in
 * one statement; the accounts whose names or company have other letters are computed here.
 */
export async function fillSortKeys(db: Kysely<any>): Promise<void> {
  await sql`update users set first_name_key = lower(first_name), last_name_key = lower(last_name), company_key = lower(company)`.execute(db);
  const beyondAscii = isPostgres(db)
    ? sql<boolean>`first_name || last_name || coalesce(company, '') ~ '[^\\x01-\\x7f]'`
    : sql<boolean>`first_name || last_name || coalesce(company, '') glob ${'*[^\x01-\x7f]*'}`;
  for (let after = 0; ; ) {
    const rows = await db
      .selectFrom('users')
      .select(['id', 'first_name', 'last_name', 'company'])
      .where('id', '>', after)
      .where(beyondAscii)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const row of rows) {
      await db
        .updateTable('users')
        .set(nameKeys({ firstName: row.first_name, lastName: row.last_name, company: row.company }))
        .where('id', '=', row.id)
        .execute();
    }
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1].id;
  }
}

/** As 0014 made them: PostgreSQL's for the open accounts, SQLite's with closed_at (see there). */
async function createListIndex(db: Kysely<any>, index: string, key: string, postgres: boolean): Promise<void> {
  const nullable = key === 'company_key' || key === 'lower(company)';
  await sql
    .raw(
      postgres
        ? `create index ${index} on users (${key}${nullable ? ' nulls first' : ''}, id) include (access_role, search_text${key.startsWith('lower(') ? `, ${key.slice(6, -1)}` : ''}) where closed_at is null`
        : `create index ${index} on users (${key}, id, closed_at, access_role, search_text)`,
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  for (const [index] of KEYS) await sql.raw(`drop index ${index}`).execute(db);
  for (const [index, , replaced] of KEYS) await createListIndex(db, index, replaced, postgres);
  if (postgres) for (const [index, name] of EXPRESSION_STATISTICS.entries()) await sql.raw(`create statistics if not exists ${name} on (${KEYS[index][2]}) from users`).execute(db);
  for (const column of ['company_key', 'last_name_key', 'first_name_key']) await db.schema.alterTable('users').dropColumn(column).execute();
}
