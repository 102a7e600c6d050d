import type { Kysely } from 'kysely';
import { withId } from './0001_foundation.ts';

/**
 * Selling without glue (issue 40, DESIGN.md section 6c):
 * - `shop_connections`: a shop (provider, name, its webhook secret encrypted with SECRET_KEY like the
 *   signing key, grace days) and `shop_mappings` from the shop's product or price id to a product,
 *   an optional policy and the seats per unit sold;
 * - `shop_events`: every delivered event once per (connection, provider's event id), with its outcome
 *   and the payload, so that a failed one can be replayed after its mapping is fixed;
 * - `shop_orders`: the TAN a paid line item made, by the order (or subscription) it belongs to; a
 *   subscription's paid period and the times of its last payment and failure keep events of any
 *   order from undoing newer ones; `shop_payment_refs` the payments (intents, invoices, transactions)
 *   a refund or chargeback names, to the order or subscription they paid.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('shop_connections'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('grace_days', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('shop_mappings')
    .addColumn('connection_id', 'integer', (c) => c.notNull().references('shop_connections.id').onDelete('cascade'))
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id'))
    .addColumn('license_policy_id', 'integer', (c) => c.references('license_policies.id'))
    .addColumn('seats', 'integer', (c) => c.notNull().defaultTo(1))
    .addPrimaryKeyConstraint('shop_mappings_pkey', ['connection_id', 'external_id'])
    .execute();
  await withId(db, db.schema.createTable('shop_events'))
    .addColumn('connection_id', 'integer', (c) => c.notNull().references('shop_connections.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('tan_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('handled_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('shop_events_connection_event', ['connection_id', 'event_id'])
    .execute();
  await db.schema.createIndex('shop_events_outcome').on('shop_events').columns(['outcome', 'id']).execute();
  await withId(db, db.schema.createTable('shop_orders'))
    .addColumn('connection_id', 'integer', (c) => c.notNull().references('shop_connections.id').onDelete('cascade'))
    .addColumn('order_ref', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('subscription_ref', 'text')
    .addColumn('tan_id', 'integer', (c) => c.notNull().references('tans.id'))
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('period_end', 'text')
    .addColumn('paid_at', 'text')
    .addColumn('failed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('shop_orders_line', ['connection_id', 'order_ref', 'external_id'])
    .execute();
  await db.schema.createIndex('shop_orders_subscription').on('shop_orders').columns(['connection_id', 'subscription_ref']).execute();
  await db.schema
    .createTable('shop_payment_refs')
    .addColumn('connection_id', 'integer', (c) => c.notNull().references('shop_connections.id').onDelete('cascade'))
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('order_ref', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('shop_payment_refs_pkey', ['connection_id', 'ref'])
    .execute();
  await db.schema.createIndex('shop_orders_tan').on('shop_orders').column('tan_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('shop_payment_refs').execute();
  await db.schema.dropTable('shop_orders').execute();
  await db.schema.dropTable('shop_events').execute();
  await db.schema.dropTable('shop_mappings').execute();
  await db.schema.dropTable('shop_connections').execute();
}
