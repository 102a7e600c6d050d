import type { Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.ts';
import type { LicensesTable } from '../../platform/db/schema.ts';

export type OrderLicenseRow = Selectable<LicensesTable>;

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

/** The product of the order automation with the policy its licenses get. */
export function findProductWithPolicy(db: Executor, productId: number) {
  return db
    .selectFrom('products')
    .select(['products.id', 'products.active', 'products.default_license_policy_id'])
    .where('products.id', '=', productId)
    .executeTakeFirst();
}

/** The built-in policy for products without a default one. */
export async function fallbackPolicyId(db: Executor): Promise<number> {
  const row = await db.selectFrom('license_policies').select('id').where('name', '=', 'SINGLE_HOST_INDEFINITE').executeTakeFirstOrThrow();
  return row.id;
}

/** Whether a machine holds a license of the product that still counts (not revoked, not run out). */
export async function machineHoldsLicense(db: Executor, machineId: string, productId: number, today: string): Promise<boolean> {
  const row = await db
    .selectFrom('licenses')
    .select('id')
    .where('machine_id', '=', machineId)
    .where('product_id', '=', productId)
    .where('revoked', '=', false)
    .where((eb) => eb.or([eb('valid_until', 'is', null), eb('valid_until', '>=', today)]))
    .executeTakeFirst();
  return row !== undefined;
}

export interface NewTemporaryLicense {
  ownerId: number;
  productId: number;
  policyId: number;
  machineId: string | null;
  validUntil: string;
}

export async function insertTemporaryLicense(trx: Executor, license: NewTemporaryLicense, now: string): Promise<OrderLicenseRow> {
  const row = await trx
    .insertInto('licenses')
    .values({
      kind: 'TEMPORARY',
      owner_id: license.ownerId,
      product_id: license.productId,
      license_policy_id: license.policyId,
      tan_id: null,
      machine_id: license.machineId,
      valid_until: license.validUntil,
      permanent: false,
      revoked: false,
      free_updates_until: null,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (license.machineId) await trx.insertInto('license_machines').values({ license_id: row.id, machine_id: license.machineId, bound_at: now }).execute();
  return row;
}
