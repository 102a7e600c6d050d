import { sql, type Kysely } from 'kysely';
import { withId } from './0001_foundation.ts';

/**
 * Licensing (issue 5): the trial history that outlives deleted temporary licenses (the repeat-trial
 * rule needs it), a license's TAN code for searching, and the indexes the TAN and license lists use
 * at a million rows.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('license_trials'))
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('machine_id', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('license_id', 'integer')
    .addColumn('started_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('license_trials_product_machine').on('license_trials').columns(['product_id', 'machine_id', 'started_at']).execute();
  await db.schema.createIndex('license_trials_started_at').on('license_trials').column('started_at').execute();

  // A license's TAN code, copied (codes never change), so that searching an account's licenses by
  // TAN reads the licenses alone instead of joining every TAN.
  await db.schema.alterTable('licenses').addColumn('tan_code', 'text').execute();
  await sql`update licenses set tan_code = (select tans.code from tans where tans.id = licenses.tan_id) where tan_id is not null`.execute(db);

  // The licenses of one account sorted by machine, the TAN list's revoked filter, and a distributor's
  // TANs by code prefix (counted in the index alone).
  await db.schema.createIndex('licenses_owner_machine').on('licenses').columns(['owner_id', 'machine_id']).execute();
  await db.schema.createIndex('tans_revoked_created_at').on('tans').columns(['revoked', 'created_at', 'id']).execute();
  await db.schema.createIndex('tans_distributor_code').on('tans').columns(['distributor_id', 'code']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tans_distributor_code').execute();
  await db.schema.dropIndex('tans_revoked_created_at').execute();
  await db.schema.dropIndex('licenses_owner_machine').execute();
  await db.schema.alterTable('licenses').dropColumn('tan_code').execute();
  await db.schema.dropTable('license_trials').execute();
}
