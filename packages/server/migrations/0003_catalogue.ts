import type { Kysely } from 'kysely';
import { isPostgres } from '../src/platform/db/dialect.ts';

/**
 * The catalogue's additions: uploaded theme files (logo, favicon) kept in the database, so that
 * several app instances serve the same bytes, and indexes for the reverse lookups of features.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('setting_files')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('data', isPostgres(db) ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('feature_expansions_target').on('feature_expansions').column('expands_to_id').execute();
  await db.schema.createIndex('product_download_links_product').on('product_download_links').columns(['product_id', 'position']).execute();
  await db.schema.createIndex('products_name').on('products').column('name').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('products_name').execute();
  await db.schema.dropIndex('product_download_links_product').execute();
  await db.schema.dropIndex('feature_expansions_target').execute();
  await db.schema.dropTable('setting_files').execute();
}
