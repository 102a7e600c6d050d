import type { Kysely } from 'kysely';
import { withId } from './0001_foundation.ts';

/**
 * Signed license files (issue 6): signing keys, ANY-Lic links, floating seats and the last time each
 * machine asked for its license.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('algorithm', 'text', (c) => c.notNull())
    .addColumn('public_key_pem', 'text', (c) => c.notNull())
    // PKCS#8 PEM, or `aes-256-gcm:…` when SECRET_KEY encrypts it (platform/signing/secret-box.ts).
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable('anylic_links'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('valid_until', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  // One row per machine of a seat pool (a floating TAN, or a floating license without TAN): the seat
  // is held while leased_until lies ahead; renewed_at feeds the different-machines window.
  await db.schema
    .createTable('floating_seats')
    .addColumn('pool', 'text', (c) => c.notNull())
    .addColumn('machine_id', 'text', (c) => c.notNull())
    .addColumn('license_id', 'integer', (c) => c.notNull().references('licenses.id').onDelete('cascade'))
    .addColumn('leased_until', 'text', (c) => c.notNull())
    .addColumn('renewed_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('floating_seats_pk', ['pool', 'machine_id'])
    .execute();
  await db.schema.createIndex('floating_seats_pool_lease').on('floating_seats').columns(['pool', 'leased_until']).execute();
  await db.schema.createIndex('floating_seats_license').on('floating_seats').column('license_id').execute();

  await db.schema
    .createTable('license_last_seen')
    .addColumn('license_id', 'integer', (c) => c.notNull().references('licenses.id').onDelete('cascade'))
    .addColumn('machine_id', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('license_last_seen_pk', ['license_id', 'machine_id'])
    .execute();
  // No index on last_seen_at: every desktop call writes this table, and each index makes that dearer.
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['license_last_seen', 'floating_seats', 'anylic_links', 'signing_keys']) {
    await db.schema.dropTable(table).execute();
  }
}
