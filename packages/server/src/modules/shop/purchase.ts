import { todayOf } from '@lm/contract/license';
import { resolveLocale } from '@lm/contract/messages';
import { generateTanCode } from '@lm/contract/tan';
import { recordChange } from '../../platform/changelog.ts';
import { SYSTEM, type AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { enqueueEvents } from '../../platform/webhooks/outbox.ts';
import { insertActivatedLicense, machineTaken, resolvePolicy } from '../licenses/activation.ts';
import { findProductForLicensing } from '../licenses/repo.ts';
import { orderAccount, type PasswordHash } from '../orders/service.ts';
import { findUserById } from '../users/repo.ts';
import { claimActivation } from '../licenses/tan-repo.ts';
import { insertTans, type TanRow } from '../tans/repo.ts';
import { tanChangeValues } from '../tans/service.ts';
import type { ShopEventLine } from '@lm/contract/shop';
import type { ShopAction } from './connectors/types.ts';
import { placeBoughtTan } from '../organizations/purchases.ts';
import { queuePurchaseMail } from './mail.ts';
import { queueNoticeMails } from './notice-mail.ts';
import { addPaymentRefs, insertOrderLine, mappingsOf, orderLines, orderOfPayment, ownersOfTans, type ConnectionRow, type MappingRow, type OrderLineRow } from './repo.ts';
import { addOnReason, applyAddOns, type AddOnItem } from './add-ons.ts';
import { applyPending } from './pending.ts';
import { applyLifecycle, renewLines, type Outcome } from './subscriptions.ts';

type Purchase = Extract<ShopAction, { kind: 'purchase' }>;

/** The last day a subscription's TAN is valid: the paid period's end plus the connection's grace days. */
export function validUntilOf(periodEnd: string | null, graceDays: number): string | null {
  if (!periodEnd) return null;
  const end = new Date(periodEnd);
  return todayOf(new Date(end.getTime() + graceDays * 86_400_000));
}

/** A line to make a TAN of: its mapping (by its item's most specific id that has one) and product. */
interface MappedItem {
  mapping: MappingRow & { product_id: number };
  productName: string;
  quantity: number;
  externalId: string;
  lineIds: string[];
  recurring: boolean;
}

/** What becomes of each item of an order: a line made before (renewed), a TAN to make, an add-on, or why it makes none. */
interface LinePlan {
  known: { line: OrderLineRow; lineIds: string[] }[];
  make: MappedItem[];
  addOns: AddOnItem[];
  none: ShopEventLine[];
}

/**
 * Each line on its own: a line the order made before is renewed, a mapped line makes its TAN, a line
 * mapped as "no license" is recorded so, and one without a mapping (or whose product is gone or
 * inactive) is recorded as needing one, for a replay once it is fixed.
 */
async function planLines(trx: Executor, connection: ConnectionRow, purchase: Purchase, existing: OrderLineRow[]): Promise<LinePlan> {
  const mappings = new Map((await mappingsOf(trx, [connection.id])).map((mapping) => [mapping.external_id, mapping]));
  const plan: LinePlan = { known: [], make: [], addOns: [], none: [] };
  // Two lines of one id (a shop may split them) make one TAN of their summed quantity: one per order and id.
  const byId = new Map<string, MappedItem>();
  for (const item of purchase.items) {
    const lineIds = item.lineId ? [item.lineId] : [];
    const line = existing.find((row) => item.externalIds.includes(row.external_id));
    if (line) {
      plan.known.push({ line, lineIds });
      continue;
    }
    const externalId = item.externalIds.find((id) => mappings.has(id));
    const mapping = externalId === undefined ? undefined : mappings.get(externalId)!;
    if (!externalId || !mapping) {
      plan.none.push({ externalId: item.externalIds[0] ?? null, tanId: null, effect: 'needs-mapping' });
      continue;
    }
    if (mapping.product_id === null) {
      plan.none.push({ externalId, tanId: null, effect: 'no-license' });
      continue;
    }
    const product = await findProductForLicensing(trx, mapping.product_id);
    if (!product || !product.active) {
      plan.none.push({ externalId, tanId: null, effect: product ? 'inactive-product' : 'unknown-product' });
      continue;
    }
    if (mapping.add_on) {
      const addOn = plan.addOns.find((other) => other.externalId === externalId);
      if (addOn) addOn.lineIds.push(...lineIds);
      else plan.addOns.push({ mapping: { ...mapping, product_id: mapping.product_id }, productName: product.name, externalId, lineIds });
      continue;
    }
    const same = byId.get(externalId);
    if (same) {
      same.quantity += item.quantity;
      same.lineIds.push(...lineIds);
    } else {
      byId.set(externalId, {
        mapping: { ...mapping, product_id: mapping.product_id },
        productName: product.name,
        quantity: item.quantity,
        externalId,
        lineIds,
        recurring: purchase.subscriptionRef !== null && item.recurring !== false,
      });
    }
  }
  plan.make = [...byId.values()];
  return plan;
}

/** The reason an order's lines that made no TAN give the event: the first that needs the administrator. */
async function reasonOf(trx: Executor, connection: ConnectionRow, none: ShopEventLine[]): Promise<string | null> {
  const problem = none.find((line) => line.effect !== 'no-license');
  if (!problem) return null;
  if (problem.effect === 'needs-mapping') return `unknown-mapping:${problem.externalId ?? ''}`;
  const mapping = (await mappingsOf(trx, [connection.id])).find((row) => row.external_id === problem.externalId);
  if (problem.effect === 'unknown-product') return `unknown-product:${mapping?.product_id ?? ''}`;
  const product = mapping?.product_id ? await findProductForLicensing(trx, mapping.product_id) : undefined;
  return `inactive-product:${product?.name ?? ''}`;
}

/** Runs the events that waited for one of `refs` (pending.ts), now that they are known. */
async function drainPending(ctx: AppContext, trx: Executor, connection: ConnectionRow, refs: readonly string[], now: Date): Promise<boolean> {
  return applyPending(trx, connection, refs, now, (action) => {
    if (action.kind === 'purchase') return applyPurchase(ctx, trx, connection, action, null, now, { drain: false });
    if (action.kind === 'ignore') return Promise.resolve({ outcome: 'ignored', reason: action.reason, tanIds: [] });
    if (action.kind === 'payment') return applyPayment(ctx, trx, connection, action, now);
    return applyLifecycleAndNotify(ctx, trx, connection, action, now);
  });
}

/** A lifecycle event (subscriptions.ts), and a mail to each buyer whose TAN it suspended, revoked or set to end. */
export async function applyLifecycleAndNotify(ctx: AppContext, trx: Executor, connection: ConnectionRow, action: Parameters<typeof applyLifecycle>[2], now: Date): Promise<Outcome> {
  const outcome = await applyLifecycle(trx, connection, action, now);
  const lines = outcome.lines ?? [];
  if (!lines.length) return outcome;
  const owners = await ownersOfTans(trx, connection.id, lines.flatMap((line) => (line.tanId === null ? [] : [line.tanId])));
  return (await queueNoticeMails(ctx, trx, lines, owners)) ? { ...outcome, mail: true } : outcome;
}

/**
 * A paid order (see paidOrder), then the events that waited for it (pending.ts): a failed payment,
 * cancellation, renewal or refund of its subscription or payment delivered before it, in the same
 * transaction. `drain: false` for a pending renewal applied so.
 */
export async function applyPurchase(
  ctx: AppContext,
  trx: Executor,
  connection: ConnectionRow,
  purchase: Purchase,
  passwordHash: PasswordHash,
  now: Date,
  options: { drain?: boolean; replay?: boolean } = {},
): Promise<Outcome> {
  const outcome = await paidOrder(ctx, trx, connection, purchase, passwordHash, now, options.replay ?? false);
  if (options.drain === false || (outcome.outcome !== 'processed' && outcome.outcome !== 'partial') || !outcome.tanIds.length) return outcome;
  const refs = [purchase.orderRef, ...(purchase.subscriptionRef ? [purchase.subscriptionRef] : []), ...purchase.paymentRefs];
  const mail = await drainPending(ctx, trx, connection, refs, now);
  return mail ? { ...outcome, mail } : outcome;
}

/**
 * Stripe's `invoice_payment.paid`: the payment intent or charge that paid an invoice pays the
 * invoice's order, and the refund or dispute that waited for it runs now. Before the invoice's
 * purchase is known, it waits for it.
 */
export async function applyPayment(ctx: AppContext, trx: Executor, connection: ConnectionRow, action: Extract<ShopAction, { kind: 'payment' }>, now: Date): Promise<Outcome> {
  const invoice = await orderOfPayment(trx, connection.id, action.invoiceRef);
  if (!invoice) return { outcome: 'pending', reason: 'unknown-order', tanIds: [], pendingRefs: [action.invoiceRef] };
  const orderRef = invoice.orderRef;
  await addPaymentRefs(trx, connection.id, action.refs, orderRef, { renewal: invoice.renewal });
  const mail = await drainPending(ctx, trx, connection, action.refs, now);
  return { outcome: 'processed', reason: null, tanIds: [], orderRef, ...(mail ? { mail } : {}) };
}

/**
 * The TANs an order made here are found again (a subscription's renewal, or the same order in
 * another event, or a replay once a mapping is fixed); each other line makes its TAN for the buyer's
 * account, mailed in the order's language and activated at once when the order names a machine, or
 * is recorded as making none. All in the event's transaction; `passwordHash` is for an account the
 * order creates. A renewal of a subscription not known yet (it names no buyer) waits for the
 * subscription's purchase.
 */
async function paidOrder(ctx: AppContext, trx: Executor, connection: ConnectionRow, purchase: Purchase, passwordHash: PasswordHash, now: Date, replay: boolean): Promise<Outcome> {
  const existing = await orderLines(trx, connection.id, purchase.orderRef);
  if (!existing.length && !purchase.buyer && purchase.subscriptionRef) return { outcome: 'pending', reason: 'unknown-order', tanIds: [], pendingRefs: [purchase.subscriptionRef] };
  if (!purchase.items.length && !existing.length) return { outcome: 'failed', reason: 'unknown-mapping', tanIds: [] };
  const plan = await planLines(trx, connection, purchase, existing);
  // A later event of a known order (a renewal) names its lines as the shop bills them, maybe by an id
  // the order's lines were not mapped by: its first event recorded what needed a mapping, a replay of
  // that event reports it again.
  if (existing.length && !replay) plan.none = plan.none.filter((line) => line.effect !== 'needs-mapping');
  const lines: ShopEventLine[] = [];
  const tanIds: number[] = [];
  if (existing.length) {
    await addPaymentRefs(trx, connection.id, purchase.paymentRefs, purchase.orderRef, { renewal: purchase.subscriptionRef !== null });
    // A renewal that names none of the lines it made (mapped by another of the item's ids): all of them.
    const known = plan.known.length ? plan.known : plan.make.length || plan.none.length ? [] : existing.map((line) => ({ line, lineIds: [] }));
    const renewed = await renewLines(trx, connection, known.map(({ line }) => line), purchase.periodEnd, purchase.at, now, new Map(known.map(({ line, lineIds }) => [line.id, lineIds])));
    lines.push(...(renewed.lines ?? []));
    tanIds.push(...renewed.tanIds);
  }
  let made: Outcome = { outcome: 'processed', reason: null, tanIds: [] };
  const ownerId = existing.find((line) => line.user_id !== null)?.user_id ?? null;
  if (plan.make.length) {
    made = await makeTans(ctx, trx, connection, purchase, plan.make, { buyer: purchase.buyer, ownerId, passwordHash }, now);
    if (made.outcome === 'failed') return made;
    lines.push(...(made.lines ?? []));
    tanIds.push(...made.tanIds);
  }
  // After the order's own TANs: an add-on in the same cart goes to the license bought with it.
  const addOnLines = await applyAddOns(trx, connection, purchase, plan.addOns, ownerId, now);
  const added = addOnLines.flatMap((line) => (line.effect === 'added' && line.tanId !== null ? [line.tanId] : []));
  lines.push(...addOnLines, ...plan.none);
  tanIds.push(...added);
  const reason = (await reasonOf(trx, connection, plan.none)) ?? addOnReason(addOnLines, plan.addOns);
  if (!existing.length && !plan.make.length && !added.length && reason) return { outcome: 'failed', reason, tanIds: [], lines };
  if (!existing.length) await addPaymentRefs(trx, connection.id, purchase.paymentRefs, purchase.orderRef);
  return { outcome: reason ? 'partial' : 'processed', reason, tanIds, lines, ...(made.mail ? { mail: true } : {}) };
}

/** A TAN per line for the buyer's account (found or created), mailed and activated as paidOrder says. */
async function makeTans(
  ctx: AppContext,
  trx: Executor,
  connection: ConnectionRow,
  purchase: Purchase,
  items: MappedItem[],
  who: { buyer: Purchase['buyer']; ownerId: number | null; passwordHash: PasswordHash },
  now: Date,
): Promise<Outcome> {
  const account = who.buyer ? await orderAccount(ctx, trx, who.buyer, who.passwordHash, now, { create: true }) : { row: who.ownerId === null ? undefined : await findUserById(trx, who.ownerId), created: false };
  if (!account.row || account.row.closed_at) return { outcome: 'failed', reason: 'no-account', tanIds: [] };
  const owner = account.row;
  const nowText = now.toISOString();
  const tanIds: number[] = [];
  for (const item of items) {
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
          // A one-time line of a subscription's order is perpetual: it never follows the subscription's period.
          validUntil: item.recurring ? validUntilOf(purchase.periodEnd, connection.grace_days) : null,
          notes: `${connection.name}: ${purchase.orderRef} (${item.externalId})`,
          entitlements: item.mapping.entitlements,
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
      subscription_ref: item.recurring ? purchase.subscriptionRef : null,
      tan_id: tan.id,
      user_id: owner.id,
      period_end: item.recurring ? purchase.periodEnd : null,
      paid_at: purchase.at,
      failed_at: null,
      created_at: nowText,
      line_ids: JSON.stringify(item.lineIds),
    });
    // Named-user seats go to the buyer's organization, to be assigned there; nothing is activated.
    const organizationId = await placeBoughtTan(trx, tan.id, owner, now);
    const activated = purchase.machineId && organizationId === null ? await activateForBuyer(trx, tan, owner.id, purchase.machineId, now) : false;
    await queuePurchaseMail(ctx, trx, {
      email: owner.email,
      firstName: owner.first_name,
      locale: purchase.buyer?.locale ?? resolveLocale(owner.locale),
      productName: item.productName,
      code: tan.code,
      licenseCount,
      machineId: activated ? purchase.machineId : null,
      organizationId,
    });
    tanIds.push(tan.id);
  }
  await enqueueEvents(trx, 'order.processed', [
    {
      data: { orderId: purchase.orderRef, connectionId: connection.id, provider: connection.provider, account: account.created ? 'created' : 'existing', userId: owner.id, email: owner.email, tanIds },
      subject: 'User',
      record: { id: owner.id },
      personId: owner.id,
    },
  ]);
  return { outcome: 'processed', reason: null, tanIds, mail: true, lines: items.map((item, index) => ({ externalId: item.externalId, tanId: tanIds[index], effect: 'made' })) };
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
