import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../src/platform/db/dialect.ts';

/**
 * The staff's list of every license (issue 37: `GET /api/licenses?scope=all`), fast at a million
 * licenses like the other large lists (migration 0011, platform/db/list-page.ts): an index per sort
 * key over all licenses (created_at has its own since 0001, the id its primary key), the same led by
 * the distributor for a distributor's licenses, and the TAN code for a search by a code's first
 * characters. The machine id is found by licenses_machine_product, the owners by licenses_owner_id.
 */
const INDEXES: [name: string, postgres: string, sqlite: string][] = [
  ['licenses_valid_until_id', 'valid_until nulls first, id', 'valid_until, id'],
  ['licenses_free_updates_id', 'free_updates_until nulls first, id', 'free_updates_until, id'],
  ['licenses_machine_id_id', 'machine_id nulls first, id', 'machine_id, id'],
  ['licenses_distributor_id', 'distributor_id, id', 'distributor_id, id'],
  ['licenses_distributor_created_at', 'distributor_id, created_at, id', 'distributor_id, created_at, id'],
  ['licenses_distributor_valid_until', 'distributor_id, valid_until nulls first, id', 'distributor_id, valid_until, id'],
  ['licenses_distributor_free_updates', 'distributor_id, free_updates_until nulls first, id', 'distributor_id, free_updates_until, id'],
  ['licenses_distributor_machine_id', 'distributor_id, machine_id nulls first, id', 'distributor_id, machine_id, id'],
  ['licenses_tan_code', 'tan_code', 'tan_code'],
];

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  for (const [name, postgresColumns, sqliteColumns] of INDEXES) {
    await sql.raw(`create index ${name} on licenses (${postgres ? postgresColumns : sqliteColumns})`).execute(db);
  }
  await sql`analyze licenses`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of INDEXES) await sql.raw(`drop index ${name}`).execute(db);
}
