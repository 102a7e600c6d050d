import type { Kysely } from 'kysely';
import { withId } from './0001_foundation.ts';

/**
 * Add-ons sold after the sale through a shop (issue 51, DESIGN.md section 6g):
 * - `shop_mappings.entitlements` (JSON grants `[{ feature, value }]`): what a unit of the id grants;
 *   `add_on`: the id makes no TAN but adds those grants to the buyer's TANs of the product;
 * - `shop_add_ons`: each TAN an add-on's line added its grants to, with the shop's line ids, so that a
 *   refund of that line takes exactly those grants away again (`removed_at`), and a repeated or
 *   replayed event adds nothing twice.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('shop_mappings').addColumn('entitlements', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('shop_mappings').addColumn('add_on', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  await withId(db, db.schema.createTable('shop_add_ons'))
    .addColumn('connection_id', 'integer', (c) => c.notNull().references('shop_connections.id').onDelete('cascade'))
    .addColumn('order_ref', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('tan_id', 'integer', (c) => c.notNull().references('tans.id').onDelete('cascade'))
    .addColumn('grants', 'text', (c) => c.notNull())
    .addColumn('line_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('removed_at', 'text')
    .addUniqueConstraint('shop_add_ons_line', ['connection_id', 'order_ref', 'external_id', 'tan_id'])
    .execute();
  await db.schema.createIndex('shop_add_ons_tan').on('shop_add_ons').column('tan_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('shop_add_ons').execute();
  await db.schema.alterTable('shop_mappings').dropColumn('add_on').execute();
  await db.schema.alterTable('shop_mappings').dropColumn('entitlements').execute();
}
