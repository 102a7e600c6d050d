/**
 * The webhook outbox (DESIGN.md section 6b): an event is written in the transaction of the change
 * that causes it, with one delivery row for every enabled endpoint that subscribed to its type and
 * whose owner may view its subject (a distributor's endpoint thus receives only events of its own
 * TANs and their licenses). The worker (modules/webhooks/worker.ts) delivers them later.
 */
import { randomBytes } from 'node:crypto';
import { abilityFor, asSubject, STAFF_ONLY_FIELDS, withoutUnviewableFields, type Role, type SubjectName } from '@lm/contract';
import { withoutSecretFields } from '@lm/contract/change-log';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@lm/contract/webhook';
import type { Executor } from '../db/database.ts';

type EventSubject = Extract<SubjectName, 'License' | 'Tan' | 'User' | 'Product'>;
type EventData = Record<string, unknown>;

/**
 * How a module reads the objects of its events "as the API returns them", for many records at
 * once; registered at start (platform code cannot import modules).
 */
export type EventLoader = (db: Executor, ids: readonly number[]) => Promise<Map<number, EventData>>;

interface EventSource {
  load: EventLoader;
  /** The account the object is about: its data is erased from the outbox when that account closes. */
  personOf: (data: EventData) => number | null;
}

const sources = new Map<EventSubject, EventSource>();

export function registerEventSource(model: EventSubject, source: EventSource): void {
  sources.set(model, source);
}

const OPERATION_EVENTS = { insert: 'created', update: 'updated', delete: 'deleted' } as const;

/** The event type of a change, or undefined when no event exists for it (products, TAN deletes, …). */
export function eventTypeOf(model: string, operation: keyof typeof OPERATION_EVENTS): WebhookEventType | undefined {
  const type = `${model.toLowerCase()}.${OPERATION_EVENTS[operation]}`;
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type) ? (type as WebhookEventType) : undefined;
}

interface SubscribedEndpoint {
  id: number;
  events: WebhookEventType[];
  ownerId: number;
  ownerRole: Role;
}

async function subscribedEndpoints(db: Executor, type: WebhookEventType): Promise<SubscribedEndpoint[]> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .innerJoin('users', 'users.id', 'webhook_endpoints.user_id')
    .select(['webhook_endpoints.id', 'webhook_endpoints.events', 'users.id as owner_id', 'users.access_role'])
    .where('webhook_endpoints.enabled', '=', true)
    .where('users.closed_at', 'is', null)
    .execute();
  return rows
    .map((row) => ({ id: row.id, events: parseEvents(row.events), ownerId: row.owner_id, ownerRole: row.access_role }))
    .filter((endpoint) => endpoint.events.includes(type));
}

export function parseEvents(json: string): WebhookEventType[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? WEBHOOK_EVENT_TYPES.filter((type) => parsed.includes(type)) : [];
  } catch {
    return [];
  }
}

/**
 * What the endpoint's owner receives of an event about the record, or null: the owner may still
 * have endpoints (a demoted distributor's stop) and may view the record by its rules, and gets the
 * data without the fields it may not view (a distributor's own account without its notes).
 */
function dataFor(endpoint: SubscribedEndpoint, event: Omit<OutgoingEvent, 'type'>): EventData | null {
  const ability = abilityFor({ id: endpoint.ownerId, accessRole: endpoint.ownerRole });
  const mayReceive =
    ability.can('view', asSubject<Record<string, unknown>>('WebhookEndpoint', { ownerId: endpoint.ownerId })) && ability.can('view', asSubject(event.subject, event.record));
  if (!mayReceive) return null;
  return event.subject in STAFF_ONLY_FIELDS ? withoutUnviewableFields(ability, event.subject as keyof typeof STAFF_ONLY_FIELDS, event.data) : event.data;
}

/** The `webhook-id` of an event: unique, and the same for every attempt and redelivery. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

export interface OutgoingEvent {
  type: string;
  data: EventData;
  /** Who may receive it: the rules' subject and record it is checked as (`view`). */
  subject: EventSubject;
  record: EventData;
  personId: number | null;
}

/** Writes one event and its deliveries to the given endpoints (call it in the change's transaction). */
export async function insertEvent(db: Executor, event: Omit<OutgoingEvent, 'subject' | 'record'>, endpointIds: readonly number[], now = new Date()): Promise<number> {
  const createdAt = now.toISOString();
  const messageId = newMessageId();
  const body = JSON.stringify({ id: messageId, type: event.type, createdAt, data: withoutSecretFields(event.data) });
  const row = await db
    .insertInto('webhook_events')
    .values({ message_id: messageId, type: event.type, body, person_id: event.personId, created_at: createdAt })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (endpointIds.length) {
    await db
      .insertInto('webhook_deliveries')
      .values(endpointIds.map((endpointId) => ({ endpoint_id: endpointId, event_id: row.id, status: 'pending' as const, next_attempt_at: createdAt, created_at: createdAt })))
      .execute();
  }
  notifyEventsEnqueued();
  return row.id;
}

/** Queues events for every endpoint that subscribed to the type and may receive them. */
export async function enqueueEvents(db: Executor, type: WebhookEventType, events: readonly Omit<OutgoingEvent, 'type'>[]): Promise<void> {
  if (!events.length) return;
  const endpoints = await subscribedEndpoints(db, type);
  if (!endpoints.length) return;
  for (const event of events) {
    // One event per distinct payload: receivers who see the same fields share it.
    const receiversByFields = new Map<string, { data: EventData; endpointIds: number[] }>();
    for (const endpoint of endpoints) {
      const data = dataFor(endpoint, event);
      if (!data) continue;
      const fields = Object.keys(data).join();
      const group = receiversByFields.get(fields) ?? receiversByFields.set(fields, { data, endpointIds: [] }).get(fields)!;
      group.endpointIds.push(endpoint.id);
    }
    for (const { data, endpointIds } of receiversByFields.values()) await insertEvent(db, { ...event, data, type }, endpointIds);
  }
}

/**
 * The events of changes to records (recordChange): nothing is read unless an endpoint subscribed
 * to the type, so that installations without webhooks pay one small query per change.
 */
export async function enqueueChangeEvents(db: Executor, model: string, operation: keyof typeof OPERATION_EVENTS, ids: readonly number[]): Promise<void> {
  const type = eventTypeOf(model, operation);
  const source = sources.get(model as EventSubject);
  if (!type || !source || !ids.length) return;
  if (!(await subscribedEndpoints(db, type)).length) return;
  const loaded = await source.load(db, ids);
  const events = ids.flatMap((id) => {
    const data = loaded.get(id);
    return data ? [{ data, subject: model as EventSubject, record: data, personId: source.personOf(data) }] : [];
  });
  await enqueueEvents(db, type, events);
}

const listeners = new Set<() => void>();

/** Tells this instance's worker that events were queued (it looks shortly after, once they are committed). */
export function onEventsEnqueued(listener: () => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

export function notifyEventsEnqueued(): void {
  for (const listener of listeners) listener();
}
