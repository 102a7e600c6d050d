import type { FastifyRequest } from 'fastify';
import { formatUserName, type ListResult } from '@lm/contract';
import {
  WEBHOOK_ENDPOINTS_MAX,
  WEBHOOK_FAILURE_REASONS,
  WEBHOOK_OLD_SECRET_HOURS,
  WEBHOOK_TEST_EVENT,
  webhookEndpointFields,
  webhookEventsFor,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointFields,
  type WebhookEndpointUpdate,
  type WebhookEndpointWithSecret,
  type WebhookEventType,
} from '@lm/contract/webhook';
import type { z } from 'zod';
import type { AppContext } from '../../platform/context.ts';
import { actorOf, authorize, authorizeRecord, requireUser } from '../../platform/http/auth.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { mergeUpdate } from '../../platform/http/validation.ts';
import type { Executor } from '../../platform/db/database.ts';
import { lockRow } from '../../platform/db/dialect.ts';
import { checkPrecondition, type Precondition } from '../../platform/http/versioned.ts';
import { DEFAULT_WEBHOOK_WORKER_OPTIONS } from '../../platform/webhooks/options.ts';
import { insertEvent, notifyEventsEnqueued, parseEvents } from '../../platform/webhooks/outbox.ts';
import { listScope } from '../../platform/http/list-scope.ts';
import { assertPublicHost, hostOf } from './address.ts';
import {
  attemptsOf,
  countEndpoints,
  deleteEndpoint,
  findDelivery,
  findEndpoint,
  findEndpointView,
  finishTestDelivery,
  insertAttempt,
  insertDelivery,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  retryNow,
  updateEndpoint,
  type AttemptRow,
  type DeliveryRow,
  type EndpointRow,
  type EndpointViewRow,
} from './repo.ts';
import { findEndpointForDelivery } from './queue.ts';
import { endpointSecrets, sealSecret } from './secrets.ts';
import { postWebhook } from './sender.ts';
import { newWebhookSecret, webhookHeaders } from './signature.ts';
import { publicOnlyFor, sendOptionsFor } from './worker.ts';

function toEndpoint(row: EndpointViewRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: parseEvents(row.events),
    enabled: Boolean(row.enabled),
    description: row.description,
    ownerId: row.user_id,
    ownerName: formatUserName({ firstName: row.first_name, lastName: row.last_name, company: row.company, email: row.email }),
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    pendingCount: row.pending_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const endpointSubject = (row: { user_id: number }) => ({ ownerId: row.user_id });

/** An endpoint the caller may see (else 404, revealing nothing) and act on (else 403). */
async function loadEndpoint(ctx: AppContext, request: FastifyRequest, id: number, action: 'view' | 'update' | 'delete'): Promise<EndpointRow> {
  requireUser(request);
  const row = await findEndpoint(ctx.db, id);
  if (!row) throw notFound('Webhook endpoint');
  authorizeRecord(request, 'view', 'WebhookEndpoint', endpointSubject(row), 'Webhook endpoint');
  authorize(request, action, 'WebhookEndpoint', endpointSubject(row));
  return row;
}

async function endpointById(ctx: AppContext, id: number): Promise<WebhookEndpoint> {
  return toEndpoint((await findEndpointView(ctx.db, id))!);
}

/** The endpoint with its row locked, checked against the caller's If-Match (platform/http/versioned.ts). */
async function checkedEndpoint(trx: Executor, id: number, precondition: Precondition | undefined): Promise<void> {
  if (!precondition) return;
  await lockRow(trx, 'webhook_endpoints', id);
  const view = await findEndpointView(trx, id);
  if (!view) throw notFound('Webhook endpoint');
  checkPrecondition(precondition, toEndpoint(view));
}

function invalidUrl(message: string, code: string): AppError {
  return new AppError(400, 'ERR_VALIDATION', `url: ${message}`, { details: [{ path: 'url', message, code }] });
}

/**
 * The server posts wherever an administrator points it, its own network included (DESIGN.md section
 * 6b); a distributor's endpoint must be a public address, checked here and again at every delivery.
 */
async function checkTarget(ctx: AppContext, request: FastifyRequest, url: string): Promise<void> {
  if (!publicOnlyFor(ctx, { owner_role: requireUser(request).accessRole })) return;
  try {
    await assertPublicHost(hostOf(new URL(url)));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw invalidUrl('the host name does not resolve', 'hostNotFound');
    throw invalidUrl('must be a public address: endpoints of distributors cannot reach loopback or private networks', 'notPublic');
  }
}

/** Events the caller's endpoint could never receive are refused, not silently never sent. */
function checkEvents(request: FastifyRequest, events: readonly WebhookEventType[]): void {
  const offered = webhookEventsFor(requireUser(request).accessRole);
  const index = events.findIndex((event) => !offered.includes(event));
  if (index >= 0) {
    throw new AppError(400, 'ERR_VALIDATION', `events: ${events[index]} is not delivered to this account`, { details: [{ path: 'events', message: 'notAnOption', code: 'notAnOption' }] });
  }
}

export async function listVisibleEndpoints(ctx: AppContext, request: FastifyRequest, query: { offset: number; limit: number; filter?: string; sort: never[] | { field: string; descending: boolean }[] }): Promise<ListResult<WebhookEndpoint>> {
  const user = requireUser(request);
  authorize(request, 'view-list', 'WebhookEndpoint');
  const everyone = listScope(request.ability, 'view-list', 'WebhookEndpoint') === 'all';
  const { rows, totalCount } = await listEndpoints(ctx.db, { ownerId: everyone ? undefined : user.id, text: query.filter }, query);
  return { items: rows.map(toEndpoint), totalCount };
}

export async function getEndpoint(ctx: AppContext, request: FastifyRequest, id: number): Promise<WebhookEndpoint> {
  await loadEndpoint(ctx, request, id, 'view');
  return endpointById(ctx, id);
}

/** `POST /webhook-endpoints`: a new endpoint of the caller, with its secret shown in this answer only. */
export async function createEndpoint(ctx: AppContext, request: FastifyRequest, input: WebhookEndpointFields): Promise<WebhookEndpointWithSecret> {
  const user = requireUser(request);
  authorize(request, 'create', 'WebhookEndpoint', { ownerId: user.id });
  checkEvents(request, input.events);
  await checkTarget(ctx, request, input.url);
  if ((await countEndpoints(ctx.db)) >= WEBHOOK_ENDPOINTS_MAX) {
    throw new AppError(422, 'ERR_LIMIT_EXCEEDED', `At most ${WEBHOOK_ENDPOINTS_MAX} webhook endpoints can exist`, { params: { max: WEBHOOK_ENDPOINTS_MAX } });
  }
  const secret = newWebhookSecret();
  const now = new Date().toISOString();
  const id = await insertEndpoint(
    ctx.db,
    { userId: user.id, url: input.url, events: JSON.stringify(input.events), description: input.description || null, enabled: input.enabled, secret: sealSecret(ctx, secret) },
    now,
  );
  ctx.log.info({ endpointId: id, url: input.url, ...actorOf(request) }, 'webhook endpoint created');
  return { ...(await endpointById(ctx, id)), secret };
}

/**
 * `PUT /webhook-endpoints/{id}`: a field left out keeps its value. Switching an endpoint on again
 * forgets its failures: the deliveries that waited go out in their order.
 */
export async function updateEndpointFor(ctx: AppContext, request: FastifyRequest, id: number, input: WebhookEndpointUpdate, precondition?: Precondition): Promise<WebhookEndpoint> {
  const row = await loadEndpoint(ctx, request, id, 'update');
  const stored = { url: row.url, events: parseEvents(row.events), enabled: Boolean(row.enabled), description: row.description };
  const fields = mergeUpdate(webhookEndpointFields as z.ZodType<WebhookEndpointFields>, stored, input);
  if (input.events) checkEvents(request, fields.events);
  if (fields.url !== row.url) await checkTarget(ctx, request, fields.url);
  const switchedOn = fields.enabled && !row.enabled;
  await ctx.db.transaction().execute(async (trx) => {
    await checkedEndpoint(trx, id, precondition);
    await updateEndpoint(trx, id, {
      url: fields.url,
      events: JSON.stringify(fields.events),
      enabled: fields.enabled,
      description: fields.description || null,
      ...(fields.enabled ? { disabled_reason: null } : {}),
      ...(switchedOn ? { failing_since: null } : {}),
      updated_at: new Date().toISOString(),
    });
  });
  if (switchedOn) notifyEventsEnqueued();
  return endpointById(ctx, id);
}

export async function deleteEndpointFor(ctx: AppContext, request: FastifyRequest, id: number, precondition?: Precondition): Promise<void> {
  await loadEndpoint(ctx, request, id, 'delete');
  await ctx.db.transaction().execute(async (trx) => {
    await checkedEndpoint(trx, id, precondition);
    await deleteEndpoint(trx, id);
  });
  ctx.log.info({ endpointId: id, ...actorOf(request) }, 'webhook endpoint deleted');
}

/**
 * `POST /webhook-endpoints/{id}/secret`: a new secret, shown in this answer only. For a day the old
 * one signs as well (a second signature in the header), so that receivers can switch without losing
 * a delivery.
 */
export async function rotateSecret(ctx: AppContext, request: FastifyRequest, id: number): Promise<WebhookEndpointWithSecret> {
  const row = await loadEndpoint(ctx, request, id, 'update');
  const secret = newWebhookSecret();
  const now = new Date();
  await updateEndpoint(ctx.db, id, {
    secret: sealSecret(ctx, secret),
    previous_secret: row.secret,
    previous_secret_until: new Date(now.getTime() + WEBHOOK_OLD_SECRET_HOURS * 3_600_000).toISOString(),
    updated_at: now.toISOString(),
  });
  ctx.log.info({ endpointId: id, ...actorOf(request) }, 'webhook secret rotated');
  return { ...(await endpointById(ctx, id)), secret };
}

const FAILURE_REASONS: ReadonlySet<string> = new Set(WEBHOOK_FAILURE_REASONS);

/**
 * An attempt's reason code with what goes with it. An attempt written without a code (by a version
 * before the codes, while both ran) is `httpStatus` when the receiver answered, else `other`, its
 * English text the detail.
 */
function failureOf(attempt: Pick<AttemptRow, 'status_code' | 'duration_ms' | 'reason' | 'error'>): Pick<WebhookAttempt, 'reason' | 'reasonParams' | 'error'> {
  const failedAnswer = attempt.status_code !== null && (attempt.status_code < 200 || attempt.status_code >= 300);
  let reason: WebhookAttempt['reason'] = null;
  if (attempt.reason !== null) reason = FAILURE_REASONS.has(attempt.reason) ? (attempt.reason as WebhookAttempt['reason']) : 'other';
  else if (failedAnswer) reason = 'httpStatus';
  else if (attempt.error !== null) reason = 'other';
  const reasonParams: WebhookAttempt['reasonParams'] = {};
  if (reason === 'httpStatus' && attempt.status_code !== null) reasonParams.status = attempt.status_code;
  if (reason === 'timeout') reasonParams.seconds = Math.max(1, Math.round(attempt.duration_ms / 1000));
  return { reason, reasonParams, error: attempt.error };
}

async function toDeliveries(ctx: AppContext, rows: readonly DeliveryRow[]): Promise<WebhookDelivery[]> {
  const attempts = await attemptsOf(
    ctx.db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.message_id,
    eventType: row.type,
    status: row.status,
    createdAt: row.created_at,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    erased: row.body === null,
    attempts: (attempts.get(row.id) ?? []).map((attempt) => ({
      attemptedAt: attempt.attempted_at,
      statusCode: attempt.status_code,
      durationMs: attempt.duration_ms,
      response: attempt.response,
      ...failureOf(attempt),
    })),
  }));
}

export async function deliveriesOf(
  ctx: AppContext,
  request: FastifyRequest,
  id: number,
  query: { offset: number; limit: number; sort: { field: string; descending: boolean }[]; status?: DeliveryRow['status'] },
): Promise<ListResult<WebhookDelivery>> {
  await loadEndpoint(ctx, request, id, 'view');
  const { rows, totalCount } = await listDeliveries(ctx.db, id, { status: query.status }, query);
  return { items: await toDeliveries(ctx, rows), totalCount };
}

/**
 * `POST /webhook-endpoints/{id}/test`: posts a `webhook.test` event at once, outside the endpoint's
 * line (it carries no data that order could matter for), signed like any other, also to an endpoint
 * that is switched off; the answer is the delivery with its attempt, and it stays in the log.
 */
export async function sendTestEvent(ctx: AppContext, request: FastifyRequest, id: number): Promise<WebhookDelivery> {
  const row = await loadEndpoint(ctx, request, id, 'update');
  const endpoint = (await findEndpointForDelivery(ctx.db, id))!;
  const now = new Date();
  const deliveryId = await ctx.db.transaction().execute(async (trx) => {
    const eventId = await insertEvent(trx, { type: WEBHOOK_TEST_EVENT, data: { endpointId: id, url: row.url, message: 'This is a test event.' }, personId: null }, [], now);
    return insertDelivery(trx, id, eventId, now.toISOString(), { outOfLine: true });
  });
  const delivery = (await findDelivery(ctx.db, deliveryId))!;
  const sent = await postWebhook(row.url, webhookHeaders(endpointSecrets(ctx, endpoint, now), delivery.message_id, delivery.body!, now), delivery.body!, sendOptionsFor(ctx, endpoint, { ...DEFAULT_WEBHOOK_WORKER_OPTIONS, ...ctx.config.webhookWorker }.timeoutMs));
  await insertAttempt(ctx.db, { delivery_id: deliveryId, attempted_at: now.toISOString(), status_code: sent.statusCode, duration_ms: sent.durationMs, response: sent.response, reason: sent.reason, error: sent.error });
  await finishTestDelivery(ctx.db, deliveryId, sent.ok, new Date().toISOString());
  return (await toDeliveries(ctx, [(await findDelivery(ctx.db, deliveryId))!]))[0];
}

/**
 * `POST /webhook-deliveries/{id}/redeliver`: a finished delivery is queued again at the end of its
 * endpoint's line (same event, same webhook-id, so receivers can tell a repeat); one that still
 * waits for its next retry is tried at once.
 */
export async function redeliver(ctx: AppContext, request: FastifyRequest, deliveryId: number): Promise<WebhookDelivery> {
  requireUser(request);
  const delivery = await findDelivery(ctx.db, deliveryId);
  if (!delivery) throw notFound('Webhook delivery');
  await loadEndpoint(ctx, request, delivery.endpoint_id, 'update').catch((error: unknown) => {
    throw error instanceof AppError && error.status === 404 ? notFound('Webhook delivery') : error;
  });
  if (delivery.body === null) throw new AppError(404, 'ERR_NOT_FOUND', "The event's data was erased with the account it concerned");
  const now = new Date().toISOString();
  let id = deliveryId;
  if (delivery.status === 'pending') await retryNow(ctx.db, deliveryId, now);
  else id = await insertDelivery(ctx.db, delivery.endpoint_id, delivery.event_id, now);
  notifyEventsEnqueued();
  return (await toDeliveries(ctx, [(await findDelivery(ctx.db, id))!]))[0];
}
