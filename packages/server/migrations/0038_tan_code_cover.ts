import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../src/platform/db/dialect.ts';

/**
 * The TAN list's code search (DESIGN.md section 9) finds a typed code's first characters as a range
 * of the code's index. At 10,000,000 TANs the first two characters match 10,400 TANs: a page finds
 * them and sorts them (platform/db/list-page.ts, sortFirstFrom), and through the unique index each
 * one cost a look-up of its row, scattered over the table (85–115 ms). This index carries the id and
 * the sort keys of the list, so that the page reads them from the index alone. PostgreSQL only: on
 * SQLite the code's first characters count at most a thousand at the million TANs it is measured at.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`create index tans_code_cover on tans (code) include (id, created_at, license_count, activated_count, free_updates_until)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop index tans_code_cover`.execute(db);
}
