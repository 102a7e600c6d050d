import type { Kysely } from 'kysely';
import { withId } from './0001_foundation.ts';

/**
 * Releases and their artifacts (issue 53, DESIGN.md section 6i):
 * - `releases`: a build of a product version (semver, channel, release time, notes per language as
 *   JSON, yanked), one per version of a product;
 * - `release_artifacts`: one file per platform and architecture of a release, stored under
 *   `DATA_DIR/artifacts/<storage_key>`, with its size, SHA-256 and the server's signature;
 * - `release_downloads`: downloads started, per release and month (the statistics);
 * - `license_policies.beta_updates`: licenses of the policy may have beta releases.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('releases'))
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('released_at', 'text', (c) => c.notNull())
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('yanked', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('releases_product_version', ['product_id', 'version'])
    .execute();
  await withId(db, db.schema.createTable('release_artifacts'))
    .addColumn('release_id', 'integer', (c) => c.notNull().references('releases.id').onDelete('cascade'))
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('arch', 'text', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('sig', 'text', (c) => c.notNull())
    .addColumn('kid', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('release_artifacts_platform_arch', ['release_id', 'platform', 'arch'])
    .execute();
  await db.schema
    .createTable('release_downloads')
    .addColumn('release_id', 'integer', (c) => c.notNull().references('releases.id').onDelete('cascade'))
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('release_downloads_pkey', ['release_id', 'month'])
    .execute();
  await db.schema
    .alterTable('license_policies')
    .addColumn('beta_updates', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('license_policies').dropColumn('beta_updates').execute();
  await db.schema.dropTable('release_downloads').execute();
  await db.schema.dropTable('release_artifacts').execute();
  await db.schema.dropTable('releases').execute();
}
