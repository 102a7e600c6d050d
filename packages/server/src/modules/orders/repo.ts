import type { Executor } from '../../platform/db/database.ts';

/** Claims an order id; false when it was claimed before (the order was handled already). */
export async function claimOrder(trx: Executor, order: { orderId: string; email: string; receivedAt: string }): Promise<boolean> {
  const inserted = await trx
    .insertInto('webhook_orders')
    .values({ order_id: order.orderId, email: order.email, received_at: order.receivedAt, result: '{}' })
    .onConflict((conflict) => conflict.column('order_id').doNothing())
    .returning('order_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function storeOrderResult(trx: Executor, orderId: string, result: { userId: number | null; licenseId: number | null; json: string }): Promise<void> {
  await trx.updateTable('webhook_orders').set({ user_id: result.userId, license_id: result.licenseId, result: result.json }).where('order_id', '=', orderId).execute();
}

export async function findOrderResult(db: Executor, orderId: string): Promise<string | undefined> {
  const row = await db.selectFrom('webhook_orders').select('result').where('order_id', '=', orderId).executeTakeFirst();
  return row?.result;
}
