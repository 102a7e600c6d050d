import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../src/platform/db/dialect.ts';

/**
 * Two TAN list pages (DESIGN.md section 9) that find their few thousand matches first and sort them
 * (platform/db/list-page.ts) looked up each match's row, scattered over the table: at 10,000,000
 * TANs, a typed code's first two characters (10,400 TANs, 85–115 ms) and one product's revoked TANs
 * (4,000 TANs, 26–30 ms). These indexes carry the id and the list's sort keys, so that such a page
 * reads them from the index alone. The product's index replaces the one of migration 0011 with the
 * same key. PostgreSQL only: SQLite is measured at 1,000,000 TANs, where these match a tenth as many.
 */
const CARRIED = 'id, created_at, license_count, activated_count, free_updates_until';

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql.raw(`create index tans_code_cover on tans (code) include (${CARRIED})`).execute(db);
  await sql`drop index tans_product_revoked`.execute(db);
  await sql.raw(`create index tans_product_revoked on tans (product_id, revoked) include (code, ${CARRIED})`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop index tans_code_cover`.execute(db);
  await sql`drop index tans_product_revoked`.execute(db);
  await sql`create index tans_product_revoked on tans (product_id, revoked)`.execute(db);
}
