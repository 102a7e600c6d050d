import type { ShopEvent, ShopEventLine, ShopEventListQuery, ShopWebhookResult } from '@lm/contract/shop';
import type { ListResult } from '@lm/contract';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { email as emailSchema } from '@lm/contract/user';
import type { Executor } from '../../platform/db/database.ts';
import { lockKey } from '../../platform/db/dialect.ts';
import { isUniqueViolation } from '../../platform/db/search.ts';
import { authorize, requireUser } from '../../platform/http/auth.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { openSecret } from '../webhooks/secrets.ts';
import { CONNECTORS } from './connectors/index.ts';
import type { Connector, Delivery, ParsedEvent, ShopAction } from './connectors/types.ts';
import type { PasswordHash } from '../orders/service.ts';
import { applyLifecycleAndNotify, applyPayment, applyPurchase } from './purchase.ts';
import { finishWithOutcome } from './pending.ts';
import { claimEvent, claimStaleEvent, countRedelivery, findConnection, findEvent, findEventById, listEvents, type ConnectionRow, type ShopEventRow } from './repo.ts';
import type { Outcome } from './subscriptions.ts';

const invalidSignature = () => new AppError(401, 'ERR_INVALID_SIGNATURE', 'The signature of the shop event is missing, wrong or too old');

/**
 * `POST /webhooks/shop/{id}`: verifies the delivery as its provider signs it (an unknown connection
 * is refused like a wrong signature: a stranger learns nothing), then handles each of its events once.
 */
export async function handleShopDelivery(ctx: AppContext, connectionId: number, delivery: Delivery): Promise<{ events: ShopWebhookResult[] }> {
  const connection = await findConnection(ctx.db, connectionId);
  if (!connection) throw invalidSignature();
  const connector = CONNECTORS[connection.provider];
  const secret = openSecret(ctx, connection.secret);
  if (!connector.verify(secret, delivery)) {
    // Signed with the secret but stale (a shop retrying the same signed body): refused, and recorded.
    if (connector.signedAtAnyTime?.(secret, delivery)) await recordStale(ctx, connection, connector, delivery);
    throw invalidSignature();
  }
  let events: ParsedEvent[];
  try {
    events = connector.parse(JSON.parse(delivery.rawBody), delivery);
  } catch {
    throw new AppError(400, 'ERR_BAD_REQUEST', `The body is not a ${connection.provider} event`);
  }
  const results: ShopWebhookResult[] = [];
  for (const event of events) results.push(await handleEvent(ctx, connection, event, delivery.now));
  return { events: results };
}

/**
 * A delivery with a valid signature but a stale timestamp: each of its events is kept as failed
 * (`stale-signature`), nothing done, so that the Orders page shows it and an administrator may replay
 * it; a fresh delivery of it later is handled as usual (claimStaleEvent takes the row over).
 */
async function recordStale(ctx: AppContext, connection: ConnectionRow, connector: Connector, delivery: Delivery): Promise<void> {
  let events: ParsedEvent[];
  try {
    events = connector.parse(JSON.parse(delivery.rawBody), delivery);
  } catch {
    return;
  }
  for (const event of events) {
    const { invalidEmail: _invalid, ...action } = normalized(event.action);
    await ctx.db.transaction().execute(async (trx) => {
      const id = await claimEvent(trx, eventValues(connection, event, action, delivery.now));
      if (id !== undefined) await finishWithOutcome(trx, connection, id, { outcome: 'failed', reason: 'stale-signature', tanIds: [] }, delivery.now);
    });
    ctx.log.warn({ connectionId: connection.id, eventId: event.eventId, type: event.type }, 'stale shop delivery recorded');
  }
}

function eventValues(connection: ConnectionRow, event: ParsedEvent, action: ShopAction, now: Date) {
  return {
    connectionId: connection.id,
    eventId: event.eventId,
    type: event.type,
    payload: JSON.stringify(event.payload),
    action: JSON.stringify(action),
    orderRef: refsOf(action)[0] ?? null,
    email: action.kind === 'purchase' && action.buyer ? action.buyer.email : null,
    now: now.toISOString(),
  };
}

/**
 * Event times as one format, so that they compare as text (providers send seconds, milliseconds or
 * microseconds), and the buyer's address as accounts keep it (trimmed, lowercase), for every provider
 * alike; an address that is none (`"NaN"`, a date, 3,000 characters) is flagged: the event fails.
 */
function normalized(action: ShopAction): ShopAction & { invalidEmail?: true } {
  if (!('at' in action)) return action;
  const time = Date.parse(action.at);
  const at = Number.isFinite(time) ? new Date(time).toISOString() : new Date().toISOString();
  if (action.kind !== 'purchase' || !action.buyer) return { ...action, at };
  const address = emailSchema.safeParse(action.buyer.email);
  if (!address.success) return { ...action, at, buyer: { ...action.buyer, email: action.buyer.email.slice(0, 255) }, invalidEmail: true };
  return { ...action, at, buyer: { ...action.buyer, email: address.data } };
}

/**
 * One event, once: its row is claimed in the transaction that does what it says, so a repeat (or a
 * parallel delivery, which waits for the first to commit) finds it and changes nothing. A unique
 * violation on the way (two first orders of one new buyer, two first invoices of one subscription)
 * is retried once: the retry sees what the other transaction made.
 */
async function handleEvent(ctx: AppContext, connection: ConnectionRow, event: ParsedEvent, now: Date): Promise<ShopWebhookResult> {
  const { invalidEmail, ...action } = normalized(event.action);
  // An account a purchase creates has no password until its buyer chooses one through the mail it
  // gets (login refuses it meanwhile): no slow hashing per delivery, which a burst would queue on.
  const passwordHash = null;
  const run = () =>
    ctx.db.transaction().execute(async (trx) => {
      const id = (await claimEvent(trx, eventValues(connection, event, action, now))) ?? (await claimStaleEvent(trx, connection.id, event.eventId));
      if (id === undefined) return undefined;
      const outcome: Outcome = invalidEmail ? { outcome: 'failed', reason: 'invalid-email', tanIds: [] } : await apply(ctx, trx, connection, action, passwordHash, now);
      await finishWithOutcome(trx, connection, id, outcome, now);
      return outcome;
    });
  let outcome: Outcome | undefined;
  try {
    outcome = await run();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    outcome = await run();
  }
  if (outcome === undefined) {
    await countRedelivery(ctx.db, connection.id, event.eventId);
    const stored = (await findEvent(ctx.db, connection.id, event.eventId))!;
    return { eventId: event.eventId, duplicate: true, outcome: stored.outcome, reason: stored.reason, tanIds: JSON.parse(stored.tan_ids) as number[], lines: JSON.parse(stored.lines) as ShopEventLine[] };
  }
  if (outcome.mail) ctx.mail.wake();
  ctx.log.info({ connectionId: connection.id, eventId: event.eventId, type: event.type, outcome: outcome.outcome, reason: outcome.reason }, 'shop event handled');
  return { eventId: event.eventId, duplicate: false, outcome: outcome.outcome, reason: outcome.reason, tanIds: outcome.tanIds, lines: outcome.lines ?? [] };
}

/** The order, subscription and payments an action is about, the order first. */
function refsOf(action: ShopAction): string[] {
  switch (action.kind) {
    case 'purchase':
      return [action.orderRef, ...(action.subscriptionRef ? [action.subscriptionRef] : []), ...action.paymentRefs];
    case 'refund':
      return action.refs;
    case 'payment':
      return [action.invoiceRef, ...action.refs];
    case 'ignore':
      return [];
    default:
      return [action.subscriptionRef];
  }
}

/**
 * Runs an action with the orders, subscriptions and payments it names locked (in one order, so two
 * events never wait for each other crosswise): a purchase and an event about it that arrive at once
 * are serialized, so the event either sees the purchase's TANs or waits as pending where the purchase
 * finds it (PostgreSQL; a SQLite write transaction runs alone anyway).
 */
async function apply(ctx: AppContext, trx: Executor, connection: ConnectionRow, action: ShopAction, passwordHash: PasswordHash, now: Date, options: { replay?: boolean } = {}): Promise<Outcome> {
  if (action.kind === 'ignore') return { outcome: 'ignored', reason: action.reason, tanIds: [] };
  for (const ref of [...new Set(refsOf(action))].sort()) await lockKey(trx, `shop:${connection.id}:${ref}`);
  if (action.kind === 'purchase') return applyPurchase(ctx, trx, connection, action, passwordHash, now, options);
  if (action.kind === 'payment') return applyPayment(ctx, trx, connection, action, now);
  return applyLifecycleAndNotify(ctx, trx, connection, action, now);
}

export function toShopEvent(row: ShopEventRow): ShopEvent {
  return {
    id: row.id,
    connectionId: row.connection_id,
    eventId: row.event_id,
    type: row.type,
    outcome: row.outcome,
    reason: row.reason,
    tanIds: JSON.parse(row.tan_ids) as number[],
    lines: JSON.parse(row.lines) as ShopEventLine[],
    orderRef: row.order_ref,
    email: row.email,
    deliveries: row.deliveries,
    receivedAt: row.received_at,
    handledAt: row.handled_at,
  };
}

export function requireAdministrator(request: FastifyRequest): void {
  requireUser(request);
  authorize(request, 'update', 'Setting');
}

/** `GET /shop-connections/{id}/events`: what the shop sent and what became of it, newest first. */
export async function eventsOf(ctx: AppContext, request: FastifyRequest, connectionId: number, query: ShopEventListQuery): Promise<ListResult<ShopEvent>> {
  requireAdministrator(request);
  if (!(await findConnection(ctx.db, connectionId))) throw notFound('ShopConnection');
  const { rows, totalCount } = await listEvents(ctx.db, { connectionId, outcome: query.outcome }, query);
  return { items: rows.map(toShopEvent), totalCount };
}

/**
 * `POST /shop-connections/{id}/events/{eventId}/replay`: a failed or partly handled event runs again
 * (after its mapping or product was fixed), in one transaction with its row locked, so that two
 * replays make one TAN. `eventId` is the provider's event id as docs/selling.md names it (the Orders
 * page's row id is taken too). Lines handled before are found again, not made twice.
 */
export async function replayEvent(ctx: AppContext, request: FastifyRequest, connectionId: number, eventId: string): Promise<ShopEvent> {
  requireAdministrator(request);
  const connection = await findConnection(ctx.db, connectionId);
  const first = (await findEvent(ctx.db, connectionId, eventId)) ?? (/^[1-9][0-9]{0,15}$/.test(eventId) ? await findEventById(ctx.db, Number(eventId)) : undefined);
  if (!connection || !first || first.connection_id !== connectionId) throw notFound('ShopEvent');
  const { invalidEmail, ...action } = normalized(JSON.parse(first.action) as ShopAction);
  const passwordHash = null;
  const now = new Date();
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    const row = await findEventById(trx, first.id, { lock: true });
    if (!row || (row.outcome !== 'failed' && row.outcome !== 'partial')) throw new AppError(409, 'ERR_CONFLICT', 'Only a failed or partly handled event can be replayed');
    const result: Outcome = invalidEmail ? { outcome: 'failed', reason: 'invalid-email', tanIds: [] } : await apply(ctx, trx, connection, action, passwordHash, now, { replay: true });
    await finishWithOutcome(trx, connection, first.id, result, now);
    return result;
  });
  if (outcome.mail) ctx.mail.wake();
  return toShopEvent((await findEventById(ctx.db, first.id))!);
}
