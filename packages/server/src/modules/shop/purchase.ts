import { todayOf } from '@lm/contract/license';
import { generateTanCode } from '@lm/contract/tan';
import { recordChange } from '../../platform/changelog.ts';
import { SYSTEM, type AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { enqueueEvents } from '../../platform/webhooks/outbox.ts';
import { insertActivatedLicense, machineTaken, resolvePolicy } from '../licenses/activation.ts';
import { findProductForLicensing } from '../licenses/repo.ts';
import { orderAccount } from '../orders/service.ts';
import { claimActivation } from '../licenses/tan-repo.ts';
import { insertTans, type TanRow } from '../tans/repo.ts';
import { tanChangeValues } from '../tans/service.ts';
import type { ShopAction } from './connectors/types.ts';
import { queuePurchaseMail } from './mail.ts';
import { addPaymentRefs, insertOrderLine, mappingsOf, orderLines, type ConnectionRow, type MappingRow } from './repo.ts';
import { applyPending } from './pending.ts';
import { applyLifecycle, renewLines, type Outcome } from './subscriptions.ts';

type Purchase = Extract<ShopAction, { kind: 'purchase' }>;

/** The last day a subscription's TAN is valid: the paid period's end plus the connection's grace days. */
export function validUntilOf(periodEnd: string | null, graceDays: number): string | null {
  if (!periodEnd) return null;
  const end = new Date(periodEnd);
  return todayOf(new Date(end.getTime() + graceDays * 86_400_000));
}

/** Each item's mapping (by its most specific id that has one), or why the order cannot be sold here. */
interface MappedItem {
  mapping: MappingRow;
  quantity: number;
  externalId: string;
  lineIds: string[];
}

async function mappedItems(trx: Executor, connection: ConnectionRow, purchase: Purchase): Promise<{ items: MappedItem[] } | { reason: string }> {
  if (!purchase.items.length) return { reason: 'unknown-mapping' };
  const mappings = new Map((await mappingsOf(trx, [connection.id])).map((mapping) => [mapping.external_id, mapping]));
  // Two lines of one id (a shop may split them) make one TAN of their summed quantity: one per order and id.
  const byId = new Map<string, MappedItem>();
  for (const item of purchase.items) {
    const externalId = item.externalIds.find((id) => mappings.has(id));
    if (!externalId) return { reason: `unknown-mapping:${item.externalIds[0]}` };
    const mapping = mappings.get(externalId)!;
    const product = await findProductForLicensing(trx, mapping.product_id);
    if (!product) return { reason: `unknown-product:${mapping.product_id}` };
    if (!product.active) return { reason: `inactive-product:${product.name}` };
    const lineIds = item.lineId ? [item.lineId] : [];
    const same = byId.get(externalId);
    if (same) {
      same.quantity += item.quantity;
      same.lineIds.push(...lineIds);
    } else byId.set(externalId, { mapping, quantity: item.quantity, externalId, lineIds });
  }
  return { items: [...byId.values()] };
}

/**
 * A paid order (see paidOrder), then the events that waited for it (pending.ts): a failed payment,
 * cancellation, renewal or refund of its subscription or payment delivered before it, in the same
 * transaction. `drain: false` for a pending renewal applied so.
 */
export async function applyPurchase(ctx: AppContext, trx: Executor, connection: ConnectionRow, purchase: Purchase, passwordHash: string, now: Date, options: { drain?: boolean } = {}): Promise<Outcome> {
  const outcome = await paidOrder(ctx, trx, connection, purchase, passwordHash, now);
  if (options.drain === false || outcome.outcome !== 'processed') return outcome;
  const refs = [purchase.orderRef, ...(purchase.subscriptionRef ? [purchase.subscriptionRef] : []), ...purchase.paymentRefs];
  const mail = await applyPending(trx, connection, refs, now, (action) => {
    if (action.kind === 'purchase') return applyPurchase(ctx, trx, connection, action, '', now, { drain: false });
    if (action.kind === 'ignore') return Promise.resolve({ outcome: 'ignored', reason: action.reason, tanIds: [] });
    return applyLifecycle(trx, connection, action, now);
  });
  return mail ? { ...outcome, mail } : outcome;
}

/**
 * The TANs an order made here are found again (a subscription's renewal, or the same order in
 * another event); otherwise a TAN per mapped line item for the buyer's account, mailed in the order's
 * language and activated at once when the order names a machine. All in the event's transaction;
 * `passwordHash` is for an account the order creates (hashed before, outside it). A renewal of a
 * subscription not known yet (it names no buyer) waits for the subscription's purchase.
 */
async function paidOrder(ctx: AppContext, trx: Executor, connection: ConnectionRow, purchase: Purchase, passwordHash: string, now: Date): Promise<Outcome> {
  const existing = await orderLines(trx, connection.id, purchase.orderRef);
  if (existing.length) {
    await addPaymentRefs(trx, connection.id, purchase.paymentRefs, purchase.orderRef);
    return renewLines(trx, connection, existing, purchase.periodEnd, purchase.at, now);
  }
  const mapped = await mappedItems(trx, connection, purchase);
  if ('reason' in mapped) return { outcome: 'failed', reason: mapped.reason, tanIds: [] };
  if (!purchase.buyer && purchase.subscriptionRef) return { outcome: 'pending', reason: 'unknown-order', tanIds: [], pendingRefs: [purchase.subscriptionRef] };
  if (!purchase.buyer) return { outcome: 'failed', reason: 'no-account', tanIds: [] };
  const account = await orderAccount(ctx, trx, purchase.buyer, passwordHash, now, { create: true });
  if (!account.row) return { outcome: 'failed', reason: 'no-account', tanIds: [] };
  const owner = account.row;
  const nowText = now.toISOString();
  const validUntil = validUntilOf(purchase.periodEnd, connection.grace_days);
  const tanIds: number[] = [];
  for (const item of mapped.items) {
    const licenseCount = item.quantity * item.mapping.seats;
    const [tan] = await insertTans(
      trx,
      [
        {
          code: generateTanCode(),
          productId: item.mapping.product_id,
          licensePolicyId: item.mapping.license_policy_id,
          licenseCount,
          distributorId: null,
          freeUpdatesUntil: null,
          validUntil,
          notes: `${connection.name}: ${purchase.orderRef} (${item.externalId})`,
          createdBy: null,
        },
      ],
      nowText,
    );
    await recordChange(trx, SYSTEM, { model: 'Tan', recordId: tan.id, operation: 'insert', newValues: tanChangeValues(tan) });
    await insertOrderLine(trx, {
      connection_id: connection.id,
      order_ref: purchase.orderRef,
      external_id: item.externalId,
      subscription_ref: purchase.subscriptionRef,
      tan_id: tan.id,
      user_id: owner.id,
      period_end: purchase.periodEnd,
      paid_at: purchase.at,
      failed_at: null,
      created_at: nowText,
      line_ids: JSON.stringify(item.lineIds),
    });
    const activated = purchase.machineId ? await activateForBuyer(trx, tan, owner.id, purchase.machineId, now) : false;
    const product = (await findProductForLicensing(trx, item.mapping.product_id))!;
    await queuePurchaseMail(ctx, trx, {
      email: owner.email,
      firstName: owner.first_name,
      locale: purchase.buyer.locale,
      productName: product.name,
      code: tan.code,
      licenseCount,
      machineId: activated ? purchase.machineId : null,
    });
    tanIds.push(tan.id);
  }
  await addPaymentRefs(trx, connection.id, purchase.paymentRefs, purchase.orderRef);
  await enqueueEvents(trx, 'order.processed', [
    {
      data: { orderId: purchase.orderRef, connectionId: connection.id, provider: connection.provider, account: account.created ? 'created' : 'existing', userId: owner.id, email: owner.email, tanIds },
      subject: 'User',
      record: { id: owner.id },
      personId: owner.id,
    },
  ]);
  return { outcome: 'processed', reason: null, tanIds, mail: true };
}

/**
 * Activates a bought TAN for the order's machine, as the buyer would (licenses/activation.ts), unless
 * that machine already holds a license of the product: then the buyer activates the mailed code
 * where they want it. Answers whether it was activated.
 */
async function activateForBuyer(trx: Executor, tan: TanRow, ownerId: number, machineId: string, now: Date): Promise<boolean> {
  const nowText = now.toISOString();
  const today = todayOf(now);
  if (await machineTaken(trx, { machineId, productId: tan.product_id, kind: 'TAN' }, today)) return false;
  const product = (await findProductForLicensing(trx, tan.product_id))!;
  const policy = await resolvePolicy(trx, tan.license_policy_id, product.default_license_policy_id);
  const activatedCount = await claimActivation(trx, tan.id, nowText, { floating: policy.type === 'FLOATING' });
  if (activatedCount === null) return false;
  await insertActivatedLicense(trx, SYSTEM, { tan, code: tan.code, policy, ownerId, machineId, activatedCount }, now);
  return true;
}
