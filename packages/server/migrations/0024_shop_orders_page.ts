import type { Kysely } from 'kysely';

/**
 * The Orders page and events that come early (issue 40, DESIGN.md section 6c):
 * - `shop_events.order_ref` and `email`: the order (or subscription) an event is about and its
 *   buyer, to search the events of every connection by them; `deliveries` counts how often the shop
 *   sent the event (a repeat changes nothing but is shown);
 * - `shop_pending_refs`: an event about a subscription or payment not known yet (a renewal or a
 *   failed payment before the purchase) waits, by each reference that may make it known, for the
 *   purchase that applies it;
 * - `shop_orders.line_ids`: the shop's own ids of the line items a TAN was made from (JSON), so that
 *   a refund of some lines revokes their TANs only.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('shop_events').addColumn('order_ref', 'text').execute();
  await db.schema.alterTable('shop_events').addColumn('email', 'text').execute();
  await db.schema
    .alterTable('shop_events')
    .addColumn('deliveries', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('shop_orders').addColumn('line_ids', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  // Events stored before: their order and buyer from the action they keep.
  const rows = await db.selectFrom('shop_events').select(['id', 'action']).execute();
  for (const row of rows as { id: number; action: string }[]) {
    const action = JSON.parse(row.action) as { orderRef?: string; subscriptionRef?: string; refs?: string[]; buyer?: { email?: string } | null };
    const orderRef = action.orderRef ?? action.subscriptionRef ?? action.refs?.[0] ?? null;
    await db
      .updateTable('shop_events')
      .set({ order_ref: orderRef, email: action.buyer?.email?.toLowerCase() ?? null })
      .where('id', '=', row.id)
      .execute();
  }
  await db.schema.createIndex('shop_events_order_ref').on('shop_events').columns(['order_ref', 'id']).execute();
  await db.schema.createIndex('shop_events_connection_id').on('shop_events').columns(['connection_id', 'id']).execute();
  await db.schema
    .createTable('shop_pending_refs')
    .addColumn('connection_id', 'integer', (c) => c.notNull().references('shop_connections.id').onDelete('cascade'))
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('event_row_id', 'integer', (c) => c.notNull().references('shop_events.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('shop_pending_refs_pkey', ['connection_id', 'ref', 'event_row_id'])
    .execute();
  await db.schema.createIndex('shop_pending_refs_event').on('shop_pending_refs').column('event_row_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('shop_pending_refs').execute();
  await db.schema.dropIndex('shop_events_connection_id').execute();
  await db.schema.dropIndex('shop_events_order_ref').execute();
  await db.schema.alterTable('shop_orders').dropColumn('line_ids').execute();
  await db.schema.alterTable('shop_events').dropColumn('deliveries').execute();
  await db.schema.alterTable('shop_events').dropColumn('email').execute();
  await db.schema.alterTable('shop_events').dropColumn('order_ref').execute();
}
