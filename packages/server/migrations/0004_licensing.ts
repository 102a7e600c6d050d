import type { Kysely } from 'kysely';
import { withId } from './0001_foundation.ts';

/**
 * Licensing (issue 5): the trial history that outlives deleted temporary licenses (the repeat-trial
 * rule needs it), and the indexes the TAN and license lists use at a million rows.
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

  // The licenses of one account sorted by machine or validity, and the TAN list's revoked filter.
  await db.schema.createIndex('licenses_owner_machine').on('licenses').columns(['owner_id', 'machine_id']).execute();
  await db.schema.createIndex('tans_revoked_created_at').on('tans').columns(['revoked', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tans_revoked_created_at').execute();
  await db.schema.dropIndex('licenses_owner_machine').execute();
  await db.schema.dropTable('license_trials').execute();
}
