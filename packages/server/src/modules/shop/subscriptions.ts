import { todayOf } from '@lm/contract/license';
import { recordChange } from '../../platform/changelog.ts';
import { SYSTEM } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { propagateTanState, revokeLicensesOfTan } from '../licenses/service.ts';
import { findTanById } from '../licenses/tan-repo.ts';
import { updateTan } from '../tans/repo.ts';
import type { ShopEventLine, ShopLineEffect } from '@lm/contract/shop';
import type { RefundedLine, ShopAction } from './connectors/types.ts';
import { refundedAddOns, removeAddOns } from './add-ons.ts';
import { addOnsOfOrders, ordersOfPayments, orderLines, subscriptionLines, updateOrderLine, type ConnectionRow, type OrderLineRow } from './repo.ts';

/**
 * What became of an event; `mail` when mail was queued (the worker is woken after the commit);
 * `pendingRefs` for a pending event: the references whose purchase it waits for.
 */
export interface Outcome {
  outcome: 'processed' | 'partial' | 'ignored' | 'failed' | 'pending';
  reason: string | null;
  tanIds: number[];
  mail?: boolean;
  pendingRefs?: string[];
  /** The order a refund turned out to be about (it names a payment): the Orders page lists it by that order. */
  orderRef?: string;
  /** What it did to each line and TAN (the Orders page shows it). */
  lines?: ShopEventLine[];
}

/** One effect per TAN changed, in the order of the lines. */
const effects = (changed: { line: OrderLineRow; effect: ShopLineEffect }[]): ShopEventLine[] => changed.map(({ line, effect }) => ({ externalId: line.external_id, tanId: line.tan_id, effect }));

/** An event about a subscription or payment that made no TAN here yet: it waits for that purchase. */
const pending = (refs: string[]): Outcome => ({ outcome: 'pending', reason: 'unknown-order', tanIds: [], pendingRefs: refs });

const later = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);

/**
 * Changes a TAN's suspension, validity or revocation (only what differs), logs it (a `tan.updated`
 * event for webhook receivers) and passes it to the TAN's licenses in the same transaction, as an
 * administrator's edit of the TAN would (tans/service.ts).
 */
async function changeTan(trx: Executor, tanId: number, change: { suspended?: boolean; validUntil?: string | null; revoked?: boolean }, now: Date): Promise<boolean> {
  const old = await findTanById(trx, tanId, { lock: true });
  if (!old) return false;
  const next = {
    suspended: change.suspended ?? Boolean(old.suspended),
    validUntil: change.validUntil === undefined ? old.valid_until : change.validUntil,
    revoked: change.revoked ?? Boolean(old.revoked),
  };
  if (next.suspended === Boolean(old.suspended) && next.validUntil === old.valid_until && next.revoked === Boolean(old.revoked)) return false;
  const nowText = now.toISOString();
  await updateTan(
    trx,
    tanId,
    {
      product_id: old.product_id,
      license_policy_id: old.license_policy_id,
      license_count: old.license_count,
      distributor_id: old.distributor_id,
      free_updates_until: old.free_updates_until,
      notes: old.notes,
      revoked: next.revoked,
      suspended: next.suspended,
      valid_until: next.validUntil,
    },
    nowText,
  );
  await recordChange(trx, SYSTEM, {
    model: 'Tan',
    recordId: tanId,
    operation: 'update',
    oldValues: { suspended: Boolean(old.suspended), validUntil: old.valid_until, revoked: Boolean(old.revoked) },
    newValues: next,
  });
  await propagateTanState(trx, SYSTEM, tanId, { suspended: next.suspended, validUntil: next.validUntil }, now);
  if (next.revoked && !old.revoked) await revokeLicensesOfTan(trx, SYSTEM, tanId, now);
  return true;
}

/** The last valid day for a period end plus grace days. */
function lastDay(periodEnd: string, graceDays: number): string {
  return todayOf(new Date(new Date(periodEnd).getTime() + graceDays * 86_400_000));
}

/**
 * A payment of TANs made before: a subscription's renewal extends the paid period (never shortens
 * it: an older invoice arriving late changes nothing), and a payment newer than the last failure
 * lifts a suspension.
 */
export async function renewLines(trx: Executor, connection: ConnectionRow, lines: OrderLineRow[], periodEnd: string | null, at: string, now: Date, lineIds: Map<number, string[]> = new Map()): Promise<Outcome> {
  for (const line of lines) {
    // A one-time line of a subscription's order keeps no period: it is paid once.
    const period = line.subscription_ref ? later(line.period_end, periodEnd) : line.period_end;
    const recovered = line.failed_at === null || at > line.failed_at;
    const known = JSON.parse(line.line_ids) as string[];
    const added = (lineIds.get(line.id) ?? []).filter((id) => !known.includes(id));
    await updateOrderLine(trx, line.id, { period_end: period, paid_at: later(line.paid_at, at), ...(added.length ? { line_ids: JSON.stringify([...known, ...added]) } : {}) });
    const tan = await findTanById(trx, line.tan_id);
    if (!tan || tan.revoked) continue;
    const validUntil = period && line.subscription_ref ? later(tan.valid_until, lastDay(period, connection.grace_days)) : tan.valid_until;
    await changeTan(trx, line.tan_id, { validUntil, ...(recovered ? { suspended: false } : {}) }, now);
  }
  return { outcome: 'processed', reason: null, tanIds: lines.map((line) => line.tan_id), lines: effects(lines.map((line) => ({ line, effect: 'renewed' }))) };
}

/**
 * A failed payment: once the paid period is over, the TANs are suspended (the grace days are for a
 * renewal that is late, not for one that failed); within the paid period nothing changes yet. A
 * failure older than the last payment is history and changes nothing.
 */
async function paymentFailed(trx: Executor, lines: OrderLineRow[], at: string, now: Date): Promise<Outcome> {
  const today = todayOf(now);
  const changed: { line: OrderLineRow; effect: ShopLineEffect }[] = [];
  for (const line of lines) {
    if (line.paid_at !== null && at < line.paid_at) continue;
    await updateOrderLine(trx, line.id, { failed_at: later(line.failed_at, at) });
    if ((line.period_end === null || todayOf(new Date(line.period_end)) <= today) && (await changeTan(trx, line.tan_id, { suspended: true }, now))) changed.push({ line, effect: 'suspended' });
  }
  return { outcome: 'processed', reason: null, tanIds: lines.map((line) => line.tan_id), lines: effects(changed) };
}

/** The shop says the subscription is in good standing again: a suspension newer than this news is kept. */
async function paymentRecovered(trx: Executor, lines: OrderLineRow[], at: string, now: Date): Promise<Outcome> {
  const changed: { line: OrderLineRow; effect: ShopLineEffect }[] = [];
  for (const line of lines) {
    if (line.failed_at !== null && at < line.failed_at) continue;
    if (await changeTan(trx, line.tan_id, { suspended: false }, now)) changed.push({ line, effect: 'reinstated' });
  }
  return { outcome: 'processed', reason: null, tanIds: lines.map((line) => line.tan_id), lines: effects(changed) };
}

/** A cancellation runs to the end of what was paid: no grace days after it. A payment after the cancellation (a resumed subscription) wins. */
async function cancelled(trx: Executor, lines: OrderLineRow[], endsAt: string | null, at: string, now: Date): Promise<Outcome> {
  const changed: { line: OrderLineRow; effect: ShopLineEffect }[] = [];
  for (const line of lines) {
    if (line.paid_at !== null && at < line.paid_at) continue;
    const end = endsAt ?? line.period_end;
    if (end && (await changeTan(trx, line.tan_id, { validUntil: todayOf(new Date(end)) }, now))) changed.push({ line, effect: 'ends' });
  }
  return { outcome: 'processed', reason: null, tanIds: lines.map((line) => line.tan_id), lines: effects(changed) };
}

/** Whether a line of an order is one of the refunded lines: by the shop's line id, or by the id it was mapped by. */
function isRefunded(line: OrderLineRow, refundedLines: readonly RefundedLine[]): boolean {
  const lineIds = JSON.parse(line.line_ids) as string[];
  return refundedLines.some((refunded) => (refunded.lineId !== null && lineIds.includes(refunded.lineId)) || refunded.externalIds.includes(line.external_id));
}

/**
 * A refund or chargeback revokes the TANs the payment bought, and their licenses: a refund that names
 * its lines (Shopify, FastSpring, a Paddle adjustment of some items) only the TANs of those lines; a
 * refund of a renewal's payment only the subscription's lines (the order's one-time lines were paid
 * by its first payment). Before its purchase is known, it waits for it.
 */
async function refunded(trx: Executor, connection: ConnectionRow, action: Extract<ShopAction, { kind: 'refund' }>, now: Date): Promise<Outcome> {
  const all: OrderLineRow[] = [];
  const paid = await ordersOfPayments(trx, connection.id, action.refs);
  for (const { orderRef, renewal } of paid) all.push(...(await orderLines(trx, connection.id, orderRef)).filter((line) => !renewal || line.subscription_ref !== null));
  // An add-on was paid once, by the order's first payment: a renewal's refund leaves it.
  const addOnOrders = paid.flatMap(({ orderRef, renewal }) => (renewal ? [] : [orderRef]));
  const addOns = await refundedAddOns(trx, connection.id, addOnOrders, action.lines);
  if (!all.length && !addOns.length) {
    const known = await addOnsOfOrders(trx, connection.id, addOnOrders);
    return known.length ? { outcome: 'ignored', reason: 'no-refunded-items', tanIds: [], orderRef: known[0].order_ref } : pending(action.refs);
  }
  const lines = action.lines ? all.filter((line) => isRefunded(line, action.lines!)) : all;
  if (!lines.length && !addOns.length) return { outcome: 'ignored', reason: 'no-refunded-items', tanIds: [], orderRef: all[0].order_ref };
  const changed: { line: OrderLineRow; effect: ShopLineEffect }[] = [];
  for (const line of lines) if (await changeTan(trx, line.tan_id, { revoked: true }, now)) changed.push({ line, effect: 'revoked' });
  const removed = await removeAddOns(trx, addOns, now);
  const tanIds = [...new Set([...lines.map((line) => line.tan_id), ...addOns.map((row) => row.tan_id)])];
  return { outcome: 'processed', reason: null, tanIds, orderRef: lines[0]?.order_ref ?? addOns[0].order_ref, lines: [...effects(changed), ...removed] };
}

/** Every action but a purchase: on the TANs of a subscription or payment made here before. */
export async function applyLifecycle(trx: Executor, connection: ConnectionRow, action: Exclude<ShopAction, { kind: 'purchase' | 'ignore' | 'payment' }>, now: Date): Promise<Outcome> {
  if (action.kind === 'refund') return refunded(trx, connection, action, now);
  const lines = await subscriptionLines(trx, connection.id, action.subscriptionRef);
  // A subscription whose TAN is not made yet (a failed renewal or a cancellation delivered before the
  // purchase, or Stripe announcing an active subscription before its first invoice.paid): the event
  // waits and is applied, in the order the events happened, with the purchase.
  if (!lines.length) return pending([action.subscriptionRef]);
  switch (action.kind) {
    case 'payment-failed':
      return paymentFailed(trx, lines, action.at, now);
    case 'payment-recovered':
      return paymentRecovered(trx, lines, action.at, now);
    case 'cancel':
      return cancelled(trx, lines, action.endsAt, action.at, now);
  }
}
