import type { Executor } from '../../platform/db/database.ts';
import type { ShopAction } from './connectors/types.ts';
import { addPendingRefs, deletePendingRefs, finishEvent, pendingEvents, type ConnectionRow } from './repo.ts';
import type { Outcome } from './subscriptions.ts';

/** When an action happened at the shop; an ignored one has no time and sorts first. */
const happenedAt = (action: ShopAction) => ('at' in action ? action.at : '');

/** Stores what became of an event; a pending one waits by the references it names. */
export async function finishWithOutcome(trx: Executor, connection: ConnectionRow, eventRowId: number, outcome: Outcome, now: Date): Promise<void> {
  await finishEvent(trx, eventRowId, { ...outcome, now: now.toISOString() });
  if (outcome.outcome === 'pending') await addPendingRefs(trx, connection.id, eventRowId, outcome.pendingRefs ?? []);
  else await deletePendingRefs(trx, eventRowId);
}

/**
 * The events that waited for a purchase (a failed payment, a cancellation, a renewal or a refund
 * delivered before it), applied once the purchase made its TANs, in the transaction that made them
 * and in the order they happened at the shop: the end state is the one of the events arriving in
 * order (each rule keeps an older event from undoing a newer one).
 */
export async function applyPending(trx: Executor, connection: ConnectionRow, refs: readonly string[], now: Date, run: (action: ShopAction) => Promise<Outcome>): Promise<boolean> {
  const waiting = (await pendingEvents(trx, connection.id, refs.filter(Boolean)))
    .map((row) => ({ row, action: JSON.parse(row.action) as ShopAction }))
    .sort((a, b) => (happenedAt(a.action) < happenedAt(b.action) ? -1 : happenedAt(a.action) > happenedAt(b.action) ? 1 : a.row.id - b.row.id));
  let mail = false;
  for (const { row, action } of waiting) {
    const outcome = await run(action);
    mail ||= Boolean(outcome.mail);
    await finishWithOutcome(trx, connection, row.id, outcome, now);
  }
  return mail;
}
