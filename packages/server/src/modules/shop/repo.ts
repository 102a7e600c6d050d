import type { Selectable } from 'kysely';
import type { ShopAddOnsTable, ShopConnectionsTable, ShopEventsTable, ShopOrdersTable } from '../../platform/db/schema.ts';
import type { Executor } from '../../platform/db/database.ts';
import { forUpdate } from '../../platform/db/dialect.ts';
import { anyColumnContains } from '../../platform/db/search.ts';

export type ConnectionRow = Selectable<ShopConnectionsTable>;
export type ShopEventRow = Selectable<ShopEventsTable>;
export type OrderLineRow = Selectable<ShopOrdersTable>;
export interface MappingRow {
  connection_id: number;
  external_id: string;
  /** Null: "no license", the id's lines make no TAN. */
  product_id: number | null;
  license_policy_id: number | null;
  seats: number;
  /** JSON grants a unit gives; `add_on`: added to the buyer's TANs of the product, no TAN made. */
  entitlements: string;
  add_on: boolean;
}

export function findConnection(db: Executor, id: number): Promise<ConnectionRow | undefined> {
  return db.selectFrom('shop_connections').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listConnections(db: Executor): Promise<ConnectionRow[]> {
  return db.selectFrom('shop_connections').selectAll().orderBy('id').execute();
}

export function mappingsOf(db: Executor, connectionIds: readonly number[]): Promise<MappingRow[]> {
  if (!connectionIds.length) return Promise.resolve([]);
  return db.selectFrom('shop_mappings').selectAll().where('connection_id', 'in', connectionIds).orderBy('external_id').execute();
}

export async function failedEventCounts(db: Executor, connectionIds: readonly number[]): Promise<Map<number, number>> {
  if (!connectionIds.length) return new Map();
  const rows = await db
    .selectFrom('shop_events')
    .select((eb) => ['connection_id', eb.fn.countAll<number>().as('count')])
    .where('connection_id', 'in', connectionIds)
    .where('outcome', '=', 'failed')
    .groupBy('connection_id')
    .execute();
  return new Map(rows.map((row) => [row.connection_id, Number(row.count)]));
}

export async function insertConnection(trx: Executor, values: Omit<ShopConnectionsTable, 'id'>): Promise<ConnectionRow> {
  return trx.insertInto('shop_connections').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateConnection(trx: Executor, id: number, values: Partial<Pick<ShopConnectionsTable, 'name' | 'secret' | 'grace_days'>> & { updated_at: string }): Promise<void> {
  await trx.updateTable('shop_connections').set(values).where('id', '=', id).execute();
}

export async function deleteConnection(trx: Executor, id: number): Promise<boolean> {
  // The links of its orders go (the TANs stay, they were sold); its events and mappings cascade.
  await trx.deleteFrom('shop_payment_refs').where('connection_id', '=', id).execute();
  await trx.deleteFrom('shop_orders').where('connection_id', '=', id).execute();
  await trx.deleteFrom('shop_events').where('connection_id', '=', id).execute();
  await trx.deleteFrom('shop_mappings').where('connection_id', '=', id).execute();
  const deleted = await trx.deleteFrom('shop_connections').where('id', '=', id).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

export async function replaceMappings(trx: Executor, connectionId: number, mappings: readonly Omit<MappingRow, 'connection_id'>[]): Promise<void> {
  await trx.deleteFrom('shop_mappings').where('connection_id', '=', connectionId).execute();
  if (mappings.length) await trx.insertInto('shop_mappings').values(mappings.map((mapping) => ({ ...mapping, connection_id: connectionId }))).execute();
}

/** Which of the ids are active products, and which exist at all. */
export async function productStates(db: Executor, ids: readonly number[]): Promise<Map<number, boolean>> {
  if (!ids.length) return new Map();
  const rows = await db.selectFrom('products').select(['id', 'active']).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, Boolean(row.active)]));
}

export async function existingPolicies(db: Executor, ids: readonly number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await db.selectFrom('license_policies').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((row) => row.id));
}

/** Stores an event the first time its id arrives; undefined when it arrived before (or arrives at once in another transaction that commits). */
export async function claimEvent(
  trx: Executor,
  event: { connectionId: number; eventId: string; type: string; payload: string; action: string; orderRef: string | null; email: string | null; now: string },
): Promise<number | undefined> {
  const row = await trx
    .insertInto('shop_events')
    .values({
      connection_id: event.connectionId,
      event_id: event.eventId,
      type: event.type,
      outcome: 'failed',
      reason: null,
      payload: event.payload,
      action: event.action,
      tan_ids: '[]',
      order_ref: event.orderRef,
      email: event.email,
      received_at: event.now,
      handled_at: event.now,
    })
    .onConflict((conflict) => conflict.columns(['connection_id', 'event_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** An event recorded from a stale delivery (nothing done), taken over by a fresh delivery of it: its row id, locked; undefined when there is none. */
export async function claimStaleEvent(trx: Executor, connectionId: number, eventId: string): Promise<number | undefined> {
  const query = trx.selectFrom('shop_events').select('id').where('connection_id', '=', connectionId).where('event_id', '=', eventId).where('outcome', '=', 'failed').where('reason', '=', 'stale-signature');
  return (await forUpdate(trx, query).executeTakeFirst())?.id;
}

/** Counts a repeated delivery of an event (it changed nothing else). */
export async function countRedelivery(db: Executor, connectionId: number, eventId: string): Promise<void> {
  await db
    .updateTable('shop_events')
    .set((eb) => ({ deliveries: eb('deliveries', '+', 1) }))
    .where('connection_id', '=', connectionId)
    .where('event_id', '=', eventId)
    .execute();
}

export async function finishEvent(
  trx: Executor,
  id: number,
  result: { outcome: ShopEventRow['outcome']; reason: string | null; tanIds: number[]; lines?: unknown[]; orderRef?: string; now: string },
): Promise<void> {
  await trx
    .updateTable('shop_events')
    .set({
      outcome: result.outcome,
      reason: result.reason,
      tan_ids: JSON.stringify(result.tanIds),
      lines: JSON.stringify(result.lines ?? []),
      handled_at: result.now,
      ...(result.orderRef ? { order_ref: result.orderRef } : {}),
    })
    .where('id', '=', id)
    .execute();
}

export function findEvent(db: Executor, connectionId: number, eventId: string): Promise<ShopEventRow | undefined> {
  return db.selectFrom('shop_events').selectAll().where('connection_id', '=', connectionId).where('event_id', '=', eventId).executeTakeFirst();
}

export function findEventById(db: Executor, id: number, options: { lock?: boolean } = {}): Promise<ShopEventRow | undefined> {
  const query = db.selectFrom('shop_events').selectAll().where('id', '=', id);
  return (options.lock ? forUpdate(db, query) : query).executeTakeFirst();
}

export async function listEvents(db: Executor, filter: { connectionId: number | null; outcome?: ShopEventRow['outcome'] }, page: { offset: number; limit: number }) {
  let query = db.selectFrom('shop_events');
  if (filter.connectionId !== null) query = query.where('connection_id', '=', filter.connectionId);
  if (filter.outcome) query = query.where('outcome', '=', filter.outcome);
  const [rows, total] = await Promise.all([
    query.selectAll().orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { rows, totalCount: Number(total.count) };
}

/** The TANs an order or subscription made here, locked: its events wait for each other. */
export function orderLines(trx: Executor, connectionId: number, orderRef: string): Promise<OrderLineRow[]> {
  return forUpdate(trx, trx.selectFrom('shop_orders').selectAll().where('connection_id', '=', connectionId).where('order_ref', '=', orderRef).orderBy('id')).execute();
}

export function subscriptionLines(trx: Executor, connectionId: number, subscriptionRef: string): Promise<OrderLineRow[]> {
  return forUpdate(trx, trx.selectFrom('shop_orders').selectAll().where('connection_id', '=', connectionId).where('subscription_ref', '=', subscriptionRef).orderBy('id')).execute();
}

export async function insertOrderLine(trx: Executor, values: Omit<ShopOrdersTable, 'id' | 'line_ids'> & { line_ids: string }): Promise<void> {
  await trx.insertInto('shop_orders').values(values).execute();
}

export async function updateOrderLine(trx: Executor, id: number, values: Partial<Pick<ShopOrdersTable, 'period_end' | 'paid_at' | 'failed_at'>> & { line_ids?: string }): Promise<void> {
  await trx.updateTable('shop_orders').set(values).where('id', '=', id).execute();
}

/** Payments of an order; `renewal`: of a subscription's renewal, which paid the subscription's lines only. */
export async function addPaymentRefs(trx: Executor, connectionId: number, refs: readonly string[], orderRef: string, options: { renewal?: boolean } = {}): Promise<void> {
  const unique = [...new Set(refs)];
  if (!unique.length) return;
  await trx
    .insertInto('shop_payment_refs')
    .values(unique.map((ref) => ({ connection_id: connectionId, ref, order_ref: orderRef, renewal: options.renewal ?? false })))
    .onConflict((conflict) => conflict.columns(['connection_id', 'ref']).doNothing())
    .execute();
}

/**
 * The orders (or subscriptions) that payments paid, and the refs that name an order themselves; an
 * order paid only by renewals among `refs` is `renewal` (a refund of it gives back the subscription's lines).
 */
export async function ordersOfPayments(trx: Executor, connectionId: number, refs: readonly string[]): Promise<{ orderRef: string; renewal: boolean }[]> {
  if (!refs.length) return [];
  const rows = await trx.selectFrom('shop_payment_refs').select(['order_ref', 'renewal']).where('connection_id', '=', connectionId).where('ref', 'in', refs).execute();
  const orders = new Map<string, boolean>();
  for (const row of rows) orders.set(row.order_ref, (orders.get(row.order_ref) ?? true) && Boolean(row.renewal));
  for (const ref of refs) if (!orders.has(ref)) orders.set(ref, false);
  return [...orders].map(([orderRef, renewal]) => ({ orderRef, renewal }));
}

/** The buyers of TANs made here, by TAN id. */
export async function ownersOfTans(trx: Executor, connectionId: number, tanIds: readonly number[]): Promise<Map<number, number | null>> {
  if (!tanIds.length) return new Map();
  const rows = await trx.selectFrom('shop_orders').select(['tan_id', 'user_id']).where('connection_id', '=', connectionId).where('tan_id', 'in', [...new Set(tanIds)]).execute();
  return new Map(rows.map((row) => [row.tan_id, row.user_id]));
}

/** The order a payment (a Stripe invoice) paid, when known, and whether it was a renewal's. */
export async function orderOfPayment(trx: Executor, connectionId: number, ref: string): Promise<{ orderRef: string; renewal: boolean } | undefined> {
  const row = await trx.selectFrom('shop_payment_refs').select(['order_ref', 'renewal']).where('connection_id', '=', connectionId).where('ref', '=', ref).executeTakeFirst();
  return row ? { orderRef: row.order_ref, renewal: Boolean(row.renewal) } : undefined;
}

/** A buyer's TANs from shops, not revoked, newest first (at most `limit`). */
export function purchasesOf(db: Executor, userId: number, limit: number) {
  return db
    .selectFrom('shop_orders')
    .innerJoin('tans', 'tans.id', 'shop_orders.tan_id')
    .innerJoin('products', 'products.id', 'tans.product_id')
    .select(['tans.id as tan_id', 'tans.code', 'products.name as product_name', 'tans.license_count', 'tans.activated_count', 'tans.suspended', 'tans.valid_until', 'shop_orders.created_at'])
    .where('shop_orders.user_id', '=', userId)
    .where('tans.revoked', '=', false)
    .orderBy('shop_orders.id', 'desc')
    .limit(limit)
    .execute();
}

/** Keeps an event waiting for the purchase that makes one of `refs` known. */
export async function addPendingRefs(trx: Executor, connectionId: number, eventRowId: number, refs: readonly string[]): Promise<void> {
  const unique = [...new Set(refs)];
  if (!unique.length) return;
  await trx
    .insertInto('shop_pending_refs')
    .values(unique.map((ref) => ({ connection_id: connectionId, ref, event_row_id: eventRowId })))
    .onConflict((conflict) => conflict.columns(['connection_id', 'ref', 'event_row_id']).doNothing())
    .execute();
}

export async function deletePendingRefs(trx: Executor, eventRowId: number): Promise<void> {
  await trx.deleteFrom('shop_pending_refs').where('event_row_id', '=', eventRowId).execute();
}

/** The events waiting for one of `refs`, locked, oldest first (the caller orders them by when they happened). */
export async function pendingEvents(trx: Executor, connectionId: number, refs: readonly string[]): Promise<ShopEventRow[]> {
  if (!refs.length) return [];
  const ids = trx.selectFrom('shop_pending_refs').select('event_row_id').where('connection_id', '=', connectionId).where('ref', 'in', [...new Set(refs)]);
  return forUpdate(trx, trx.selectFrom('shop_events').selectAll().where('id', 'in', ids).where('outcome', '=', 'pending').orderBy('id')).execute();
}

/** The Orders page: events of every connection (or one) with their connection, newest first. */
export async function listOrderEvents(
  db: Executor,
  filter: { connectionId?: number; outcome?: ShopEventRow['outcome'] | 'duplicate'; text?: string },
  page: { offset: number; limit: number },
) {
  let query = db.selectFrom('shop_events').innerJoin('shop_connections', 'shop_connections.id', 'shop_events.connection_id');
  if (filter.connectionId !== undefined) query = query.where('shop_events.connection_id', '=', filter.connectionId);
  if (filter.outcome === 'duplicate') query = query.where('shop_events.deliveries', '>', 1);
  else if (filter.outcome) query = query.where('shop_events.outcome', '=', filter.outcome);
  const text = filter.text;
  if (text) query = query.where((eb) => anyColumnContains(db, eb, ['shop_events.order_ref', 'shop_events.email', 'shop_events.event_id'], text));
  const [rows, total] = await Promise.all([
    query.selectAll('shop_events').select(['shop_connections.name as connection_name', 'shop_connections.provider']).orderBy('shop_events.id', 'desc').offset(page.offset).limit(page.limit).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { rows, totalCount: Number(total.count) };
}

/** TANs by id with their product's name, and the licenses activated from them (at most `maxLicenses`, oldest first). */
export async function tansWithLicenses(db: Executor, tanIds: readonly number[], maxLicenses: number) {
  if (!tanIds.length) return { tans: [], licenses: [] };
  const ids = [...new Set(tanIds)];
  const [tans, licenses] = await Promise.all([
    db
      .selectFrom('tans')
      .innerJoin('products', 'products.id', 'tans.product_id')
      .select(['tans.id', 'tans.code', 'products.name as product_name', 'tans.license_count', 'tans.activated_count', 'tans.valid_until', 'tans.suspended', 'tans.revoked'])
      .where('tans.id', 'in', ids)
      .execute(),
    db.selectFrom('licenses').select(['id', 'tan_id', 'owner_id', 'machine_id', 'revoked']).where('tan_id', 'in', ids).orderBy('id').limit(maxLicenses).execute(),
  ]);
  return { tans, licenses };
}

/** The add-on grants an order (or orders) added here, locked: a refund and a repeat wait for each other. */
export function addOnsOfOrders(trx: Executor, connectionId: number, orderRefs: readonly string[]) {
  if (!orderRefs.length) return Promise.resolve([]);
  return forUpdate(trx, trx.selectFrom('shop_add_ons').selectAll().where('connection_id', '=', connectionId).where('order_ref', 'in', [...new Set(orderRefs)]).orderBy('id')).execute();
}
export type AddOnRow = Awaited<ReturnType<typeof addOnsOfOrders>>[number];

export async function insertAddOn(trx: Executor, values: Omit<ShopAddOnsTable, 'id' | 'line_ids' | 'removed_at'> & { line_ids: string }): Promise<void> {
  await trx.insertInto('shop_add_ons').values(values).execute();
}

export async function markAddOnRemoved(trx: Executor, id: number, now: string): Promise<void> {
  await trx.updateTable('shop_add_ons').set({ removed_at: now }).where('id', '=', id).execute();
}

/**
 * The TANs of a product a buyer holds (an add-on goes to them): bought by them in a shop, or with a
 * license of theirs; not revoked; oldest first.
 */
export async function buyersTansOfProduct(trx: Executor, userId: number, productId: number): Promise<number[]> {
  const rows = await trx
    .selectFrom('tans')
    .select('tans.id')
    .where('tans.product_id', '=', productId)
    .where('tans.revoked', '=', false)
    .where((eb) =>
      eb.or([
        eb.exists(eb.selectFrom('shop_orders').select('shop_orders.id').whereRef('shop_orders.tan_id', '=', 'tans.id').where('shop_orders.user_id', '=', userId)),
        eb.exists(eb.selectFrom('licenses').select('licenses.id').whereRef('licenses.tan_id', '=', 'tans.id').where('licenses.owner_id', '=', userId)),
      ]),
    )
    .orderBy('tans.id')
    .execute();
  return rows.map((row) => row.id);
}
