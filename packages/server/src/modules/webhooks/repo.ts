import { sql } from 'kysely';
import type { SortField } from '@lm/contract';
import type { Executor } from '../../platform/db/database.ts';
import { anyColumnContains, orderings } from '../../platform/db/search.ts';
import type { WebhookAttemptsTable, WebhookEndpointsTable } from '../../platform/db/schema.ts';
import type { Selectable, Updateable } from 'kysely';

export type EndpointRow = Selectable<WebhookEndpointsTable>;

export interface EndpointViewRow extends EndpointRow {
  first_name: string;
  last_name: string;
  company: string | null;
  email: string;
  pending_count: number;
}

function endpointView(db: Executor) {
  return db
    .selectFrom('webhook_endpoints')
    .innerJoin('users', 'users.id', 'webhook_endpoints.user_id')
    .selectAll('webhook_endpoints')
    .select(['users.first_name', 'users.last_name', 'users.company', 'users.email'])
    .select((eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select((inner) => inner.fn.countAll<number>().as('count'))
        .whereRef('webhook_deliveries.endpoint_id', '=', 'webhook_endpoints.id')
        .where('webhook_deliveries.status', '=', 'pending')
        .as('pending_count'),
    );
}

export async function findEndpointView(db: Executor, id: number): Promise<EndpointViewRow | undefined> {
  const row = await endpointView(db).where('webhook_endpoints.id', '=', id).executeTakeFirst();
  return row && { ...row, pending_count: Number(row.pending_count ?? 0) };
}

export function findEndpoint(db: Executor, id: number): Promise<EndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

const SORT_COLUMNS = { url: 'webhook_endpoints.url', createdAt: 'webhook_endpoints.created_at' };

export async function listEndpoints(
  db: Executor,
  filter: { ownerId?: number; text?: string },
  page: { offset: number; limit: number; sort: SortField[] },
): Promise<{ rows: EndpointViewRow[]; totalCount: number }> {
  let query = endpointView(db);
  let count = db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('count'));
  if (filter.ownerId !== undefined) {
    query = query.where('webhook_endpoints.user_id', '=', filter.ownerId);
    count = count.where('webhook_endpoints.user_id', '=', filter.ownerId);
  }
  const text = filter.text;
  if (text) {
    const columns = ['webhook_endpoints.url', 'webhook_endpoints.description'];
    query = query.where((eb) => anyColumnContains(db, eb, columns, text));
    count = count.where((eb) => anyColumnContains(db, eb, columns, text));
  }
  for (const [column, direction] of orderings(page.sort, SORT_COLUMNS, [{ field: 'createdAt', descending: false }], 'webhook_endpoints.id')) {
    query = query.orderBy(sql.ref(column), direction);
  }
  const [rows, total] = await Promise.all([query.offset(page.offset).limit(page.limit).execute(), count.executeTakeFirstOrThrow()]);
  return { rows: rows.map((row) => ({ ...row, pending_count: Number(row.pending_count ?? 0) })), totalCount: Number(total.count) };
}

export async function countEndpoints(db: Executor): Promise<number> {
  const row = await db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function insertEndpoint(
  db: Executor,
  values: { userId: number; url: string; events: string; description: string | null; enabled: boolean; secret: string },
  now: string,
): Promise<number> {
  const row = await db
    .insertInto('webhook_endpoints')
    .values({
      user_id: values.userId,
      url: values.url,
      events: values.events,
      description: values.description,
      enabled: values.enabled,
      secret: values.secret,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateEndpoint(db: Executor, id: number, values: Updateable<WebhookEndpointsTable>): Promise<void> {
  await db.updateTable('webhook_endpoints').set(values).where('id', '=', id).execute();
}

export async function deleteEndpoint(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('webhook_attempts').where('delivery_id', 'in', db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', id)).execute();
  await db.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
  await db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
}

// ---------------------------------------------------------------------------------------------
// Deliveries and their attempts

export interface DeliveryRow {
  id: number;
  endpoint_id: number;
  event_id: number;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string;
  first_attempt_at: string | null;
  created_at: string;
  message_id: string;
  type: string;
  body: string | null;
}

function deliveryView(db: Executor) {
  return db
    .selectFrom('webhook_deliveries')
    .innerJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
    .select([
      'webhook_deliveries.id',
      'webhook_deliveries.endpoint_id',
      'webhook_deliveries.event_id',
      'webhook_deliveries.status',
      'webhook_deliveries.attempts',
      'webhook_deliveries.next_attempt_at',
      'webhook_deliveries.first_attempt_at',
      'webhook_deliveries.created_at',
      'webhook_events.message_id',
      'webhook_events.type',
      'webhook_events.body',
    ]);
}

export function findDelivery(db: Executor, id: number): Promise<DeliveryRow | undefined> {
  return deliveryView(db).where('webhook_deliveries.id', '=', id).executeTakeFirst();
}

export async function listDeliveries(
  db: Executor,
  endpointId: number,
  filter: { status?: DeliveryRow['status'] },
  page: { offset: number; limit: number; sort: SortField[] },
): Promise<{ rows: DeliveryRow[]; totalCount: number }> {
  let query = deliveryView(db).where('webhook_deliveries.endpoint_id', '=', endpointId);
  let count = db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('count')).where('endpoint_id', '=', endpointId);
  if (filter.status) {
    query = query.where('webhook_deliveries.status', '=', filter.status);
    count = count.where('status', '=', filter.status);
  }
  const ascending = page.sort[0]?.field === 'createdAt' && !page.sort[0].descending;
  query = query.orderBy('webhook_deliveries.id', ascending ? 'asc' : 'desc');
  const [rows, total] = await Promise.all([query.offset(page.offset).limit(page.limit).execute(), count.executeTakeFirstOrThrow()]);
  return { rows, totalCount: Number(total.count) };
}

export type AttemptRow = Omit<Selectable<WebhookAttemptsTable>, 'id'>;

/** The attempts of some deliveries, newest first, at most `perDelivery` each. */
export async function attemptsOf(db: Executor, deliveryIds: readonly number[], perDelivery = 50): Promise<Map<number, AttemptRow[]>> {
  const result = new Map<number, AttemptRow[]>(deliveryIds.map((id) => [id, []]));
  if (!deliveryIds.length) return result;
  const rows = await db
    .selectFrom('webhook_attempts')
    .select(['delivery_id', 'attempted_at', 'status_code', 'duration_ms', 'response', 'reason', 'error'])
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('id', 'desc')
    .execute();
  for (const row of rows) {
    const list = result.get(row.delivery_id);
    if (list && list.length < perDelivery) list.push(row);
  }
  return result;
}

export async function insertAttempt(db: Executor, attempt: AttemptRow): Promise<void> {
  await db.insertInto('webhook_attempts').values(attempt).execute();
}

/**
 * A new delivery of an event to an endpoint, at the end of the endpoint's line; `outOfLine` (a test
 * event, sent by the request itself) is never pending, so that no worker takes it meanwhile.
 */
export async function insertDelivery(db: Executor, endpointId: number, eventId: number, now: string, options: { outOfLine?: boolean } = {}): Promise<number> {
  const row = await db
    .insertInto('webhook_deliveries')
    .values({
      endpoint_id: endpointId,
      event_id: eventId,
      status: options.outOfLine ? 'failed' : 'pending',
      next_attempt_at: now,
      created_at: now,
      ...(options.outOfLine ? { first_attempt_at: now, finished_at: now } : {}),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function finishTestDelivery(db: Executor, id: number, ok: boolean, now: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: ok ? 'delivered' : 'failed', attempts: 1, finished_at: now })
    .where('id', '=', id)
    .execute();
}

/** A pending delivery is tried at once ("Redeliver" while it waits for its next retry). */
export async function retryNow(db: Executor, id: number, now: string): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ next_attempt_at: now }).where('id', '=', id).where('status', '=', 'pending').execute();
}
