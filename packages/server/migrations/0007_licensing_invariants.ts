import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../src/platform/db/dialect.ts';
import { POSTGRES_TRIGGER_NAMES, POSTGRES_TRIGGERS } from './insights-statistics-postgres.ts';
import { SQLITE_TRIGGERS } from './insights-statistics-sqlite.ts';

/**
 * Licensing invariants (issue 12).
 *
 * - A license made by a free upgrade names the license it continues (upgraded_from_id), so that the
 *   statistics count it as no new activation or trial; the upgrades made before are found through
 *   upgraded_to_id and taken out of the counters they were added to.
 * - The statistics triggers become history (insights-statistics-statements.ts): deleting a license,
 *   a user or a TAN whose free updates ended no longer lowers the numbers.
 * - A TAN is never activated more often than its license count, as a constraint of the database
 *   itself. PostgreSQL checks it NOT VALID: rows an older version let past it are not refused at
 *   upgrade (they cannot be mended without taking a customer's license away), later writes are.
 */
const SQLITE_TRIGGERS_BEFORE = ['statistics_licenses_delete', 'statistics_users_delete'];
const triggerName = (statement: string) => /CREATE TRIGGER (\w+)/.exec(statement)![1];

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .alterTable('licenses')
    .addColumn('upgraded_from_id', 'integer', (c) => c.references('licenses.id').onDelete('set null'))
    .execute();

  await dropStatisticsTriggers(db, [...SQLITE_TRIGGERS_BEFORE, ...SQLITE_TRIGGERS.map(triggerName)]);
  await sql`update licenses set upgraded_from_id = (select old.id from licenses old where old.upgraded_to_id = licenses.id)
    where id in (select upgraded_to_id from licenses where upgraded_to_id is not null)`.execute(db);
  // Upgrades were counted as activations and trials of their own: take them out again.
  await sql`insert into statistics_deltas (metric, day, product_id, distributor_id, delta)
    select case kind when 'TAN' then 'tan_activations' else 'trial_licenses' end, substr(created_at, 1, 10), product_id, 0, -1
    from licenses where upgraded_from_id is not null`.execute(db);
  await sql`insert into statistics_deltas (metric, day, product_id, distributor_id, delta)
    select 'tan_activations_distributor', substr(l.created_at, 1, 10), l.product_id, t.distributor_id, -1
    from licenses l join tans t on t.id = l.tan_id where l.kind = 'TAN' and l.upgraded_from_id is not null and t.distributor_id is not null`.execute(db);
  for (const statement of postgres ? POSTGRES_TRIGGERS : SQLITE_TRIGGERS) await sql.raw(statement).execute(db);

  if (postgres) {
    await sql`alter table tans add constraint tans_activations_within_count check (activated_count <= license_count) not valid`.execute(db);
  } else {
    for (const event of ['INSERT', 'UPDATE OF activated_count, license_count']) {
      await sql
        .raw(
          `CREATE TRIGGER tans_activations_within_count_${event.startsWith('INSERT') ? 'insert' : 'update'} BEFORE ${event} ON tans
           WHEN new.activated_count > new.license_count BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: tans_activations_within_count'); END`,
        )
        .execute(db);
    }
  }
}

async function dropStatisticsTriggers(db: Kysely<any>, sqliteNames: string[]): Promise<void> {
  if (isPostgres(db)) {
    for (const table of POSTGRES_TRIGGER_NAMES) {
      await sql.raw(`DROP TRIGGER IF EXISTS statistics_${table} ON ${table}`).execute(db);
      await sql.raw(`DROP FUNCTION IF EXISTS statistics_${table}()`).execute(db);
    }
  } else {
    for (const name of sqliteNames) await sql.raw(`DROP TRIGGER IF EXISTS ${name}`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table tans drop constraint tans_activations_within_count`.execute(db);
  } else {
    for (const name of ['tans_activations_within_count_insert', 'tans_activations_within_count_update']) await sql.raw(`DROP TRIGGER IF EXISTS ${name}`).execute(db);
  }
  await dropStatisticsTriggers(db, SQLITE_TRIGGERS.map(triggerName));
  await db.schema.alterTable('licenses').dropColumn('upgraded_from_id').execute();
}
