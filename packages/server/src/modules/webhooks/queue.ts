/** The SQL of the delivery worker: the lines of deliveries per endpoint, their claims and their outcomes. */
import { sql } from 'kysely';
import type { Role } from '@lm/contract';
import type { Executor } from '../../platform/db/database.ts';
import { findDelivery, type DeliveryRow } from './repo.ts';

/**
 * Endpoints whose line has a due head: the oldest pending delivery of an enabled endpoint that no
 * worker holds. Later deliveries of an endpoint wait behind its head (in order per endpoint).
 */
export async function endpointsWithDueHead(db: Executor, now: string, options: { limit: number; includeDeferred: boolean }): Promise<number[]> {
  let query = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select('d.endpoint_id')
    .where('d.status', '=', 'pending')
    .where('e.enabled', '=', true)
    .where((eb) => eb.or([eb('e.claimed_until', 'is', null), eb('e.claimed_until', '<', now)]))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries as p')
            .select(sql`1`.as('one'))
            .whereRef('p.endpoint_id', '=', 'd.endpoint_id')
            .where('p.status', '=', 'pending')
            .whereRef('p.id', '<', 'd.id'),
        ),
      ),
    );
  if (!options.includeDeferred) query = query.where('d.next_attempt_at', '<=', now);
  const rows = await query.orderBy('d.id').limit(options.limit).execute();
  return rows.map((row) => row.endpoint_id);
}

/**
 * Takes an endpoint for this worker until `until`, unless another holds it: one worker at a time
 * delivers an endpoint's line, so that no delivery goes out twice at once and the order holds. A
 * worker that dies lets go when its claim runs out.
 */
export async function claimEndpoint(db: Executor, id: number, worker: string, now: string, until: string): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ claimed_by: worker, claimed_until: until })
    .where('id', '=', id)
    .where('enabled', '=', true)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now), eb('claimed_by', '=', worker)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function releaseEndpoint(db: Executor, id: number, worker: string): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ claimed_by: null, claimed_until: null }).where('id', '=', id).where('claimed_by', '=', worker).execute();
}

export interface ClaimedEndpoint {
  id: number;
  url: string;
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  failing_since: string | null;
  claimed_by: string | null;
  owner_id: number;
  owner_role: Role;
  owner_email: string;
  owner_locale: string | null;
  owner_closed: boolean;
}

export async function findEndpointForDelivery(db: Executor, id: number): Promise<ClaimedEndpoint | undefined> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .innerJoin('users', 'users.id', 'webhook_endpoints.user_id')
    .select([
      'webhook_endpoints.id',
      'webhook_endpoints.url',
      'webhook_endpoints.enabled',
      'webhook_endpoints.secret',
      'webhook_endpoints.previous_secret',
      'webhook_endpoints.previous_secret_until',
      'webhook_endpoints.failing_since',
      'webhook_endpoints.claimed_by',
      'users.id as owner_id',
      'users.access_role as owner_role',
      'users.email as owner_email',
      'users.locale as owner_locale',
      'users.closed_at',
    ])
    .where('webhook_endpoints.id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const { closed_at, ...rest } = row;
  return { ...rest, enabled: Boolean(row.enabled), owner_closed: closed_at !== null };
}

/** The head of an endpoint's line, if it has one. */
export async function headOfLine(db: Executor, endpointId: number): Promise<DeliveryRow | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row && findDelivery(db, row.id);
}

export async function markDelivered(db: Executor, id: number, attempts: number, firstAttemptAt: string, now: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'delivered', attempts, first_attempt_at: firstAttemptAt, finished_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

export async function scheduleDeliveryRetry(db: Executor, id: number, attempts: number, firstAttemptAt: string, nextAttemptAt: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ attempts, first_attempt_at: firstAttemptAt, next_attempt_at: nextAttemptAt })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

export async function markDeliveryFailed(db: Executor, id: number, attempts: number, firstAttemptAt: string | null, now: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', attempts, first_attempt_at: firstAttemptAt, finished_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** The endpoint got an answer: it is failing no more. */
export async function clearFailing(db: Executor, id: number): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', id).where('failing_since', 'is not', null).execute();
}

/** The endpoint failed; answers since when it has been failing. */
export async function noteFailing(db: Executor, id: number, now: string): Promise<string> {
  await db.updateTable('webhook_endpoints').set({ failing_since: now }).where('id', '=', id).where('failing_since', 'is', null).execute();
  const row = await db.selectFrom('webhook_endpoints').select('failing_since').where('id', '=', id).executeTakeFirst();
  return row?.failing_since ?? now;
}

/** Switches an endpoint off after days of failures; its waiting deliveries stay for when it is on again. */
export async function disableFailingEndpoint(db: Executor, id: number, reason: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ enabled: false, disabled_reason: reason, claimed_by: null, claimed_until: null, updated_at: now })
    .where('id', '=', id)
    .where('enabled', '=', true)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** What the outbox holds, for /metrics. */
export async function webhookBacklog(db: Executor): Promise<{ pending: number; failed: number; oldestPendingSince: string | null }> {
  const [pending, failed] = await Promise.all([
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('created_at').as('oldest')])
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow(),
    db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('count')).where('status', '=', 'failed').executeTakeFirstOrThrow(),
  ]);
  return { pending: Number(pending.count), failed: Number(failed.count), oldestPendingSince: pending.oldest ?? null };
}

/**
 * Keeps the log to its retention: finished deliveries older than `before` go with their attempts,
 * and events no delivery refers to any more. The data of events about a closed account is erased as
 * soon as nothing waits to deliver it (README, "Closing an account").
 */
export async function pruneWebhookLog(db: Executor, before: string): Promise<void> {
  const old = db.selectFrom('webhook_deliveries').select('id').where('status', '!=', 'pending').where('finished_at', '<', before);
  await db.deleteFrom('webhook_attempts').where('delivery_id', 'in', old).execute();
  await db.deleteFrom('webhook_deliveries').where('status', '!=', 'pending').where('finished_at', '<', before).execute();
  await db
    .deleteFrom('webhook_events')
    .where('created_at', '<', before)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('webhook_deliveries').select(sql`1`.as('one')).whereRef('webhook_deliveries.event_id', '=', 'webhook_events.id'))))
    .execute();
  await db
    .updateTable('webhook_events')
    .set({ body: null })
    .where('body', 'is not', null)
    .where('person_id', 'in', db.selectFrom('users').select('id').where('closed_at', 'is not', null))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries')
            .select(sql`1`.as('one'))
            .whereRef('webhook_deliveries.event_id', '=', 'webhook_events.id')
            .where('webhook_deliveries.status', '=', 'pending'),
        ),
      ),
    )
    .execute();
}
