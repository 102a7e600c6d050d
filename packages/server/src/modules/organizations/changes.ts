import { recordChange } from '../../platform/changelog.ts';
import type { Actor } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { enqueueEvents } from '../../platform/webhooks/outbox.ts';
import { unassignSeatRow } from './seats-repo.ts';

type OrganizationEvent = 'organization.member_added' | 'organization.member_removed' | 'seat.assigned' | 'seat.unassigned';

/** A change-log entry of the organization and, for member and seat changes, its webhook event (DESIGN.md 6f). */
export async function recordOrganizationChange(
  trx: Executor,
  actor: Actor,
  change: { organizationId: number; operation: 'insert' | 'update'; oldValues?: Record<string, unknown> | null; newValues: Record<string, unknown> },
  event?: { type: OrganizationEvent; userId: number; data: Record<string, unknown> },
): Promise<void> {
  await recordChange(trx, actor, { model: 'Organization', recordId: change.organizationId, operation: change.operation, oldValues: change.oldValues ?? null, newValues: change.newValues });
  if (event) {
    const data = { organizationId: change.organizationId, userId: event.userId, ...event.data };
    await enqueueEvents(trx, event.type, [{ data, subject: 'User', record: { id: event.userId }, personId: event.userId }]);
  }
}

/**
 * Ends a seat in the caller's transaction: the licenses of the machines signed in on it are revoked
 * (their next refresh is refused: ERR_SEAT_UNASSIGNED with the sign-in, ERR_LICENSE_REVOKED without),
 * and the seat's time starts the reassignment wait.
 */
export async function endSeat(trx: Executor, actor: Actor, organizationId: number, seat: { id: number; user_id: number | null; tan_id: number }, now: Date): Promise<void> {
  const { ended, licenseIds } = await unassignSeatRow(trx, seat.id, now.toISOString());
  if (!ended) return;
  for (const id of licenseIds) await recordChange(trx, actor, { model: 'License', recordId: id, operation: 'update', oldValues: { revoked: false }, newValues: { revoked: true } });
  await recordOrganizationChange(
    trx,
    actor,
    { organizationId, operation: 'update', oldValues: { seat: seat.id, userId: seat.user_id }, newValues: { seat: seat.id, unassigned: true } },
    seat.user_id === null ? undefined : { type: 'seat.unassigned', userId: seat.user_id, data: { seatId: seat.id, tanId: seat.tan_id } },
  );
}
