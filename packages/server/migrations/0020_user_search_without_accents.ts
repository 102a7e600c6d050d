import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../src/platform/db/dialect.ts';

/**
 * The user search finds names and company regardless of accents: "muller" finds Müller, "strasse"
 * finds Straße (modules/users/list-repo.ts).
 *
 * The searched text (0014) was the lowercase e-mail, names and company, which kept the accents. It is
 * now made of the e-mail and the sort keys of 0019, which the app writes without accents; the search
 * folds what was typed the same way (users/sort-keys.ts). The column stays generated, so it can never
 * differ from the keys. PostgreSQL cannot change a generated column's expression before version 17:
 * the column is made anew, and with it the list's indexes that carry it (0014, 0019) and the search's
 * own index (PostgreSQL's trigram index; SQLite's FTS5 table, whose triggers now follow the keys).
 */
const SEARCH_TEXT = "email || ' ' || first_name_key || ' ' || last_name_key || ' ' || coalesce(company_key, '')";
const BEFORE = "lower(email || ' ' || first_name || ' ' || last_name || ' ' || coalesce(company, ''))";

/** The list's indexes that carry the searched text: name, key, and on PostgreSQL the column an expression key needs beside it. */
const LIST_INDEXES: [name: string, key: string, column: string | null][] = [
  ['users_list_id', 'id', null],
  ['users_list_email', 'lower(email), id', 'email'],
  ['users_list_first_name', 'first_name_key, id', null],
  ['users_list_last_name', 'last_name_key, id', null],
  ['users_list_company', 'company_key, id', null],
  ['users_list_access_role', 'access_role, id', null],
  ['users_list_created_at', 'created_at, id', null],
];

/** PostgreSQL rewrote users for the stored column: its index-only scans need the visibility map (migrate.ts). */
export const vacuumAfter = ['users'];

export async function up(db: Kysely<any>): Promise<void> {
  await replaceSearchText(db, SEARCH_TEXT, ['email', 'first_name_key', 'last_name_key', 'company_key']);
}

export async function down(db: Kysely<any>): Promise<void> {
  await replaceSearchText(db, BEFORE, ['email', 'first_name', 'last_name', 'company']);
}

async function replaceSearchText(db: Kysely<any>, expression: string, columns: string[]): Promise<void> {
  const postgres = isPostgres(db);
  const trigrams = postgres ? await trigramSchema(db) : null;
  for (const [name] of LIST_INDEXES) await sql.raw(`drop index ${name}`).execute(db);
  if (trigrams) await sql`drop index users_search`.execute(db);
  if (!postgres) for (const name of ['users_search_insert', 'users_search_update']) await sql.raw(`drop trigger ${name}`).execute(db);

  await sql`alter table users drop column search_text`.execute(db);
  await sql.raw(`alter table users add column search_text text generated always as (${expression}) ${postgres ? 'stored' : 'virtual'}`).execute(db);

  for (const [name, key, column] of LIST_INDEXES) {
    // As 0014 made them: what a page checks besides the key (the role, unless it is the key, and the search).
    const carried = [...(key.startsWith('access_role') ? [] : ['access_role']), 'search_text'];
    const nullsFirst = postgres && key.startsWith('company_key') ? key.replace('company_key', 'company_key nulls first') : key;
    await sql
      .raw(
        postgres
          ? `create index ${name} on users (${nullsFirst}) include (${[...(column ? [column] : []), ...carried].join(', ')}) where closed_at is null`
          : `create index ${name} on users (${key}, closed_at, ${carried.join(', ')})`,
      )
      .execute(db);
  }
  if (trigrams) await sql.raw(`create index users_search on users using gin (search_text "${trigrams}".gin_trgm_ops)`).execute(db);
  if (!postgres) {
    // The FTS table holds the searched text of every account, kept by triggers on the columns it is made of.
    const text = (row: string) => expression.replace(new RegExp(`\\b(${columns.join('|')})\\b`, 'g'), `${row}.$1`);
    await sql`insert into users_search (users_search) values ('delete-all')`.execute(db);
    await sql.raw(`insert into users_search (rowid, text) select id, ${expression} from users`).execute(db);
    await sql.raw(`create trigger users_search_insert after insert on users begin insert into users_search (rowid, text) values (new.id, ${text('new')}); end`).execute(db);
    await sql
      .raw(
        `create trigger users_search_update after update of ${columns.join(', ')} on users begin
        delete from users_search where rowid = old.id;
        insert into users_search (rowid, text) values (new.id, ${text('new')}); end`,
      )
      .execute(db);
  }
  await sql`analyze users`.execute(db);
}

/** The schema of pg_trgm when the trigram index exists (0011 creates it where the extension could be). */
async function trigramSchema(db: Kysely<any>): Promise<string | null> {
  const { rows } = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where e.extname = 'pg_trgm' and to_regclass('users_search') is not null`.execute(db);
  return rows[0]?.schema ?? null;
}
