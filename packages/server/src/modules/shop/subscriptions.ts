import { todayOf } from '@lm/contract/license';
import { recordChange } from '../../platform/changelog.ts';
import { SYSTEM } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { propagateTanState, revokeLicensesOfTan } from '../licenses/service.ts';
import { findTanById, updateTan } from '../tans/repo.ts';
import type { ShopAction } from './connectors/types.ts';
import { ordersOfPayments, orderLines, subscriptionLines, updateOrderLine, type ConnectionRow, type OrderLineRow } from './repo.ts';

/** What became of an event; `mail` when mail was queued (the worker is woken after the commit). */
export interface Outcome {
  outcome: 'processed' | 'ignored' | 'failed';
  reason: string | null;
  tanIds: number[];
  mail?: boolean;
}

const later = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);

/**
 * Changes a TAN's suspension, validity or revocation (only what differs), logs it (a `tan.updated`
 * event for webhook receivers) and passes it to the TAN's licenses in the same transaction, as an
 * administrator's edit of the TAN would (tans/service.ts).
 */
async function changeTan(trx: Executor, tanId: number, change: { suspended?: boolean; validUntil?: string | null; revoked?: boolean }, now: Date): Promise<void> {
  const old = await findTanById(trx, tanId, { lock: true });
  if (!old) return;
  const next = {
    suspended: change.suspended ?? Boolean(old.suspended),
    validUntil: change.validUntil === undefined ? old.valid_until : change.validUntil,
    revoked: change.revoked ?? Boolean(old.revoked),
  };
  if (next.suspended === Boolean(old.suspended) && next.validUntil === old.valid_until && next.revoked === Boolean(old.revoked)) return;
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
export async function renewLines(trx: Executor, connection: ConnectionRow, lines: OrderLineRow[], periodEnd: string | null, at: string, now: Date): Promise<Outcome> {
  for (const line of lines) {
    const period = later(line.period_end, periodEnd);
    const recovered = line.failed_at === null || at > line.failed_at;
    await updateOrderLine(trx, line.id, { period_end: period, paid_at: later(line.paid_at, at) });
    const tan = await findTanById(trx, line.tan_id);
    if (!tan || tan.revoked) continue;
    const validUntil = period && line.subscription_ref ? later(tan.valid_until, lastDay(period, connection.grace_days)) : tan.valid_until;
    await changeTan(trx, line.tan_id, { validUntil, ...(recovered ? { suspended: false } : {}) }, now);
  }
  return { outcome: 'processed', reason: null, tanIds: lines.map((line) => line.tan_id) };
}

/**
 * A failed payment: once the paid period is over, the TANs are suspended (the grace days are for a
 * renewal that is late, not for one that failed); within the paid period nothing changes yet. A
 * failure older than the last payment is history and changes nothing.
 */
async function paymentFailed(trx: Executor, lines: OrderLineRow[], at: string, now: Date): Promise<Outcome> {
  const today = todayOf(now);
  for (const line of lines) {
    if (line.paid_at !== null && at < line.paid_at) continue;
    await updateOrderLine(trx, line.id, { failed_at: later(line.failed_at, at) });
    if (line.period_end === null || todayOf(new Date(line.period_end)) <= today) await changeTan(trx, line.tan_id, { suspended: true }, now);
  }
  return { outcome: 'processed', reason: null, tanIds: lines.map((line) => line.tan_id) };
}

/** The shop says the subscription is in good standing again: a suspension newer than this news is kept. */
async function paymentRecovered(trx: Executor, lines: OrderLineRow[], at: string, now: Date): Promise<Outcome> {
  for (const line of lines) {
    if (line.failed_at !== null && at < line.failed_at) continue;
    await changeTan(trx, line.tan_id, { suspended: false }, now);
  }
  return { outcome: 'processed', reason: null, tanIds: lines.map((line) => line.tan_id) };
}

/** A cancellation runs to the end of what was paid: no grace days after it. A payment after the cancellation (a resumed subscription) wins. */
async function cancelled(trx: Executor, lines: OrderLineRow[], endsAt: string | null, at: string, now: Date): Promise<Outcome> {
  for (const line of lines) {
    if (line.paid_at !== null && at < line.paid_at) continue;
    const end = endsAt ?? line.period_end;
    if (end) await changeTan(trx, line.tan_id, { validUntil: todayOf(new Date(end)) }, now);
  }
  return { outcome: 'processed', reason: null, tanIds: lines.map((line) => line.tan_id) };
}

/** A refund or chargeback revokes the TANs the payment bought, and their licenses. */
async function refunded(trx: Executor, connection: ConnectionRow, refs: string[], now: Date): Promise<Outcome> {
  const lines: OrderLineRow[] = [];
  for (const orderRef of await ordersOfPayments(trx, connection.id, refs)) lines.push(...(await orderLines(trx, connection.id, orderRef)));
  if (!lines.length) return { outcome: 'failed', reason: 'unknown-order', tanIds: [] };
  for (const line of lines) await changeTan(trx, line.tan_id, { revoked: true }, now);
  return { outcome: 'processed', reason: null, tanIds: [...new Set(lines.map((line) => line.tan_id))] };
}

/** Every action but a purchase: on the TANs of a subscription or payment made here before. */
export async function applyLifecycle(trx: Executor, connection: ConnectionRow, action: Exclude<ShopAction, { kind: 'purchase' | 'ignore' }>, now: Date): Promise<Outcome> {
  if (action.kind === 'refund') return refunded(trx, connection, action.refs, now);
  const lines = await subscriptionLines(trx, connection.id, action.subscriptionRef);
  // Good standing of a subscription whose TAN is not made yet (Stripe announces an active subscription
  // before its first invoice.paid) has nothing to reinstate: not a failure to replay.
  if (!lines.length) return { outcome: action.kind === 'payment-recovered' ? 'ignored' : 'failed', reason: 'unknown-order', tanIds: [] };
  switch (action.kind) {
    case 'payment-failed':
      return paymentFailed(trx, lines, action.at, now);
    case 'payment-recovered':
      return paymentRecovered(trx, lines, action.at, now);
    case 'cancel':
      return cancelled(trx, lines, action.endsAt, action.at, now);
  }
}
