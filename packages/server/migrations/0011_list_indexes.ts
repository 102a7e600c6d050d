import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../src/platform/db/dialect.ts';

/**
 * The large lists at a million rows (issue 14; platform/db/list-page.ts): an index for every sort
 * key of the TAN, license and user lists, ending with the id (the tiebreaker, and what a next-page
 * cursor continues from), so that a page reads as many index entries as it shows, from the first
 * page to the last. Nullable keys are indexed NULLS FIRST on PostgreSQL, where SQLite puts NULLs.
 *
 * The user search (a contains search over e-mail, names and company, as a person types):
 * PostgreSQL gets a trigram index (pg_trgm) on the searched text, SQLite an FTS5 trigram table kept
 * by triggers. Both answer a contains search of three or more characters from the index.
 */
// The users repo searches this same expression (users/repo.ts, SEARCH_TEXT): the index serves only an equal expression.
const USER_SEARCH_TEXT = "lower(email || ' ' || first_name || ' ' || last_name || ' ' || coalesce(company, ''))";

const INDEXES: [name: string, table: string, postgres: string, sqlite: string][] = [
  // TANs: code (unique), created_at (0001) and the id already have theirs.
  ['tans_license_count_id', 'tans', 'license_count, id', 'license_count, id'],
  ['tans_activated_count_id', 'tans', 'activated_count, id', 'activated_count, id'],
  ['tans_free_updates_id', 'tans', 'free_updates_until nulls first, id', 'free_updates_until, id'],
  // A distributor's own TANs in every order (the scope is the distributor).
  ['tans_distributor_license_count', 'tans', 'distributor_id, license_count, id', 'distributor_id, license_count, id'],
  ['tans_distributor_activated_count', 'tans', 'distributor_id, activated_count, id', 'distributor_id, activated_count, id'],
  ['tans_distributor_free_updates', 'tans', 'distributor_id, free_updates_until nulls first, id', 'distributor_id, free_updates_until, id'],
  ['tans_distributor_id', 'tans', 'distributor_id, id', 'distributor_id, id'],
  // Licenses are listed per account (or per TAN, a few rows): the account first, then each sort key.
  ['licenses_owner_id', 'licenses', 'owner_id, id', 'owner_id, id'],
  ['licenses_owner_valid_until', 'licenses', 'owner_id, valid_until nulls first, id', 'owner_id, valid_until, id'],
  ['licenses_owner_free_updates', 'licenses', 'owner_id, free_updates_until nulls first, id', 'owner_id, free_updates_until, id'],
  ['licenses_owner_machine_id', 'licenses', 'owner_id, machine_id nulls first, id', 'owner_id, machine_id, id'],
  // Users: names and company sorted without regard to case (and their first letters searched);
  // created_at has (created_at, id) since 0006, e-mail its unique index.
  ['users_first_name_id', 'users', 'lower(first_name), id', 'lower(first_name), id'],
  ['users_last_name_id', 'users', 'lower(last_name), id', 'lower(last_name), id'],
  ['users_company_id', 'users', 'lower(company) nulls first, id', 'lower(company), id'],
];

/** Former indexes that others now serve (users_created_at_id of 0006, and the new ones): same leading columns. */
const REPLACED = ['licenses_owner_machine', 'users_created_at', 'tans_product'];

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  for (const [name, table, postgresColumns, sqliteColumns] of INDEXES) {
    await sql.raw(`create index ${name} on ${table} (${postgres ? postgresColumns : sqliteColumns})`).execute(db);
  }
  // The product filter of the TAN list: with few matches (also revoked or not) they are found here and
  // sorted; with many, the sort key's index is read (platform/db/list-page.ts).
  await sql.raw('create index tans_product_revoked on tans (product_id, revoked)').execute(db);
  for (const name of REPLACED) await sql.raw(`drop index ${name}`).execute(db);

  if (postgres) await postgresUserSearch(db);
  else await sqliteUserSearch(db);
  // Statistics of the new indexes (expression indexes included) for the planners; sampled, seconds at a million rows.
  for (const table of ['tans', 'licenses', 'users']) await sql.raw(`analyze ${table}`).execute(db);
}

/**
 * pg_trgm ships with PostgreSQL and is a trusted extension (the database's owner may create it).
 * It goes into the public schema, not the application's, so that dropping one schema of a database
 * (the test suites have one each) cannot take it from the others. Where it cannot be created (a user
 * without the right), the search works all the same, without its index, and the log says why.
 */
async function postgresUserSearch(db: Kysely<any>): Promise<void> {
  await sql`savepoint user_search`.execute(db);
  try {
    await sql`select pg_advisory_xact_lock(hashtext('license-manager: create extension pg_trgm'))`.execute(db);
    await sql`create extension if not exists pg_trgm with schema public`.execute(db);
    const { rows } = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
    await sql.raw(`create index users_search on users using gin ((${USER_SEARCH_TEXT}) "${rows[0].schema}".gin_trgm_ops)`).execute(db);
    await sql`release savepoint user_search`.execute(db);
  } catch (error) {
    await sql`rollback to savepoint user_search`.execute(db);
    console.warn(`The user search has no trigram index (pg_trgm could not be created: ${(error as Error).message}); it works without, more slowly on large user lists.`);
  }
}

async function sqliteUserSearch(db: Kysely<any>): Promise<void> {
  // Contentless: the table holds only the index; contentless_delete lets the triggers remove rows.
  await sql`create virtual table users_search using fts5(text, tokenize = 'trigram', content = '', contentless_delete = 1)`.execute(db);
  await sql.raw(`insert into users_search (rowid, text) select id, ${USER_SEARCH_TEXT} from users`).execute(db);
  await sql.raw(`create trigger users_search_insert after insert on users begin
    insert into users_search (rowid, text) values (new.id, ${USER_SEARCH_TEXT.replace(/\b(email|first_name|last_name|company)\b/g, 'new.$1')}); end`).execute(db);
  await sql.raw(`create trigger users_search_update after update of email, first_name, last_name, company on users begin
    delete from users_search where rowid = old.id;
    insert into users_search (rowid, text) values (new.id, ${USER_SEARCH_TEXT.replace(/\b(email|first_name|last_name|company)\b/g, 'new.$1')}); end`).execute(db);
  await sql`create trigger users_search_delete after delete on users begin delete from users_search where rowid = old.id; end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop index if exists users_search`.execute(db);
  } else {
    for (const name of ['users_search_insert', 'users_search_update', 'users_search_delete']) await sql.raw(`drop trigger ${name}`).execute(db);
    await sql`drop table users_search`.execute(db);
  }
  await sql`drop index tans_product_revoked`.execute(db);
  for (const [name] of INDEXES) await sql.raw(`drop index ${name}`).execute(db);
  await sql`create index licenses_owner_machine on licenses (owner_id, machine_id)`.execute(db);
  await sql`create index users_created_at on users (created_at)`.execute(db);
  await sql`create index tans_product on tans (product_id)`.execute(db);
}
