import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../src/platform/db/dialect.ts';

/**
 * The user search read from the sort's index alone (issue 14; modules/users/list-repo.ts).
 *
 * A search with many matches reads the accounts in the sort's order and checks each. When its
 * matches sit together far down that order (every account of one import, one address range), a page
 * checked 90,000 accounts, each a lookup of its row: 70 ms on SQLite, 100 ms on PostgreSQL. Here the
 * searched text becomes a column (`search_text`, generated from e-mail, names and company: stored on
 * PostgreSQL, computed on SQLite, where the index holds it) and every sort key of the list gets an
 * index that carries it, with the role, so that such a page reads index entries
 * only (index-only scans): 20–30 ms for the same 90,000. They replace the sort indexes of 0011 for
 * names and company; the e-mail, role and creation-date indexes stay for the other queries that use them.
 */
const SEARCH_TEXT = "lower(email || ' ' || first_name || ' ' || last_name || ' ' || coalesce(company, ''))";

/**
 * Name, key and the columns a page needs besides it. PostgreSQL can read an expression such as
 * lower(first_name) from an index only when the column itself is there too (INCLUDE); SQLite reads
 * it from the index as it is. PostgreSQL's indexes hold the open accounts only (the list's
 * condition); SQLite's hold every account with closed_at, since SQLite does not use a partial index
 * for one branch of an OR (the short search: the start of e-mail, a name or the company), and
 * without these that search read the whole table (150 ms).
 */
const INDEXES: [name: string, postgresKey: string, sqliteKey: string, column: string | null][] = [
  ['users_list_id', 'id', 'id', null],
  // lower(email) sorts as email does (addresses are stored lowercase), but only this index serves it:
  // SQLite took the narrower unique index on email for the sort and then looked up every account.
  ['users_list_email', 'lower(email), id', 'lower(email), id', 'email'],
  ['users_list_first_name', 'lower(first_name), id', 'lower(first_name), id', 'first_name'],
  ['users_list_last_name', 'lower(last_name), id', 'lower(last_name), id', 'last_name'],
  ['users_list_company', 'lower(company) nulls first, id', 'lower(company), id', 'company'],
  ['users_list_access_role', 'access_role, id', 'access_role, id', null],
  ['users_list_created_at', 'created_at, id', 'created_at, id', null],
];

const REPLACED: [name: string, postgres: string, sqlite: string][] = [
  ['users_first_name_id', 'lower(first_name), id', 'lower(first_name), id'],
  ['users_last_name_id', 'lower(last_name), id', 'lower(last_name), id'],
  ['users_company_id', 'lower(company) nulls first, id', 'lower(company), id'],
];

/** PostgreSQL rewrote users for the stored column: its index-only scans need the visibility map that VACUUM builds (migrate.ts). */
export const vacuumAfter = ['users'];

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await sql.raw(`alter table users add column search_text text generated always as (${SEARCH_TEXT}) ${postgres ? 'stored' : 'virtual'}`).execute(db);
  for (const [name, postgresKey, sqliteKey, column] of INDEXES) {
    // What a page checks besides the key: the role filter (unless the role is the key) and the search.
    const carried = [...(postgresKey.startsWith('access_role') ? [] : ['access_role']), 'search_text'];
    const create = postgres
      ? `create index ${name} on users (${postgresKey}) include (${[...(column ? [column] : []), ...carried].join(', ')}) where closed_at is null`
      : `create index ${name} on users (${sqliteKey}, closed_at, ${carried.join(', ')})`;
    await sql.raw(create).execute(db);
  }
  for (const [name] of REPLACED) await sql.raw(`drop index ${name}`).execute(db);
  // The trigram index of 0011 (where pg_trgm could be created) now indexes the column: the search
  // names the column, and an index serves only the expression it was built on.
  if (postgres) await reindexTrigrams(db, 'search_text');
  await sql`analyze users`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  if (postgres) await reindexTrigrams(db, `(${SEARCH_TEXT})`);
  for (const [name, postgresKey, sqliteKey] of REPLACED) await sql.raw(`create index ${name} on users (${postgres ? postgresKey : sqliteKey})`).execute(db);
  for (const [name] of INDEXES) await sql.raw(`drop index ${name}`).execute(db);
  await sql`alter table users drop column search_text`.execute(db);
}

/** Builds the trigram index users_search anew on `indexed`, if it exists. */
async function reindexTrigrams(db: Kysely<any>, indexed: string): Promise<void> {
  const { rows } = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where e.extname = 'pg_trgm' and to_regclass('users_search') is not null`.execute(db);
  if (!rows.length) return;
  await sql`drop index users_search`.execute(db);
  await sql.raw(`create index users_search on users using gin (${indexed} "${rows[0].schema}".gin_trgm_ops)`).execute(db);
}
