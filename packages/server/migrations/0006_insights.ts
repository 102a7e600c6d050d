import type { Kysely } from 'kysely';

/**
 * Statistics, change log and order automation (issue 7): the indexes that let each statistics
 * category answer from an index at a million licenses, and the orders the webhook has handled (one
 * row per order id, so that a repeated delivery changes nothing).
 */
export async function up(db: Kysely<any>): Promise<void> {
  // tan-activations and trial-licenses: one kind, a time range, then product, machine and TAN.
  await db.schema.createIndex('licenses_kind_created_at').on('licenses').columns(['kind', 'created_at', 'product_id', 'machine_id', 'tan_id']).execute();
  // The conversion of a trial: a TAN license later for the same machine and product.
  await db.schema.createIndex('licenses_machine_product_kind').on('licenses').columns(['machine_id', 'product_id', 'kind', 'created_at']).execute();
  await db.schema.createIndex('tans_free_updates_until').on('tans').columns(['free_updates_until', 'product_id', 'activated_count']).execute();
  await db.schema.createIndex('users_last_login_at').on('users').column('last_login_at').execute();

  // The desktop protocol's last-seen records (issue 6 creates this table in migration 0005; the
  // statistics read it, so it exists here too where 0005 is not yet present).
  await db.schema
    .createTable('license_last_seen')
    .ifNotExists()
    .addColumn('license_id', 'integer', (c) => c.notNull().references('licenses.id').onDelete('cascade'))
    .addColumn('machine_id', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('license_last_seen_pk', ['license_id', 'machine_id'])
    .execute();
  await db.schema.createIndex('license_last_seen_time_machine').on('license_last_seen').columns(['last_seen_at', 'machine_id', 'license_id']).execute();

  await db.schema
    .createTable('webhook_orders')
    .addColumn('order_id', 'text', (c) => c.primaryKey())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('license_id', 'integer', (c) => c.references('licenses.id').onDelete('set null'))
    /** What the automation did, as JSON: the answer repeated deliveries get. */
    .addColumn('result', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_orders').execute();
  await db.schema.dropIndex('license_last_seen_time_machine').execute();
  for (const index of ['users_last_login_at', 'tans_free_updates_until', 'licenses_machine_product_kind', 'licenses_kind_created_at']) {
    await db.schema.dropIndex(index).execute();
  }
}
