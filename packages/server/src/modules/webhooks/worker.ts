import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../platform/context.ts';
import { OutboxLoop } from '../../platform/jobs/outbox-loop.ts';
import { onEventsEnqueued } from '../../platform/webhooks/outbox.ts';
import { retryDelay } from '../../platform/mail/index.ts';
import { DEFAULT_WEBHOOK_WORKER_OPTIONS, HOUR, type WebhookWorkerOptions } from '../../platform/webhooks/options.ts';
import { queueEndpointDisabledMail } from './mail.ts';
import {
  claimEndpoint,
  clearFailing,
  disableFailingEndpoint,
  endpointsWithDueHead,
  findEndpointForDelivery,
  headOfLine,
  markDelivered,
  markDeliveryFailed,
  noteFailing,
  pruneWebhookLog,
  releaseEndpoint,
  scheduleDeliveryRetry,
  type ClaimedEndpoint,
} from './queue.ts';
import { insertAttempt, type DeliveryRow } from './repo.ts';
import { endpointSecrets } from './secrets.ts';
import { postWebhook, type SendOptions } from './sender.ts';
import { webhookHeaders } from './signature.ts';

/** Events queued in a transaction are looked for this long after, once that transaction has committed. */
const WAKE_DELAY_MS = 100;
const PRUNE_INTERVAL_MS = HOUR;

export interface WebhookPassResult {
  delivered: number;
  deferred: number;
  givenUp: number;
  disabled: number;
}

/**
 * The webhook outbox worker of one instance (DESIGN.md section 6b). Deliveries wait in one line per
 * endpoint; a worker takes an endpoint (a claim in the database, so that instances never deliver one
 * line at the same time) and delivers its line in order until the head fails, which then waits for
 * its retry while the rest of the line waits behind it: at least once, in order per endpoint.
 */
export class WebhookWorker extends OutboxLoop<WebhookPassResult> {
  private readonly ctx: AppContext;
  private readonly options: WebhookWorkerOptions;
  private readonly id = `worker_${randomBytes(8).toString('hex')}`;
  private lastPrune = 0;
  private unsubscribe: (() => void) | undefined;

  constructor(ctx: AppContext, options: Partial<WebhookWorkerOptions> = {}) {
    const settings = { ...DEFAULT_WEBHOOK_WORKER_OPTIONS, ...options };
    super({ name: 'webhook', log: ctx.log, pollIntervalMs: settings.pollIntervalMs, wakeDelayMs: WAKE_DELAY_MS });
    this.ctx = ctx;
    this.options = settings;
  }

  get settings(): Readonly<WebhookWorkerOptions> {
    return this.options;
  }

  override start(): void {
    if (this.isRunning) return;
    this.unsubscribe = onEventsEnqueued(() => this.wake());
    super.start();
  }

  override async stop(): Promise<void> {
    this.unsubscribe?.();
    await super.stop();
  }

  protected async pass(includeDeferred: boolean): Promise<WebhookPassResult> {
    const result: WebhookPassResult = { delivered: 0, deferred: 0, givenUp: 0, disabled: 0 };
    const done = new Set<number>();
    for (;;) {
      const now = new Date().toISOString();
      const due = (await endpointsWithDueHead(this.ctx.db, now, { limit: this.options.concurrency * 4, includeDeferred })).filter((id) => !done.has(id));
      if (!due.length) break;
      const batch = due.slice(0, this.options.concurrency);
      await Promise.all(batch.map((id) => this.runLine(id, includeDeferred, result)));
      for (const id of batch) done.add(id);
    }
    if (Date.now() - this.lastPrune >= PRUNE_INTERVAL_MS) {
      this.lastPrune = Date.now();
      await pruneWebhookLog(this.ctx.db, new Date(Date.now() - this.options.retentionMs).toISOString());
    }
    return result;
  }

  /** Delivers one endpoint's line in order while its head is due and gets through. */
  private async runLine(endpointId: number, includeDeferred: boolean, result: WebhookPassResult): Promise<void> {
    const db = this.ctx.db;
    try {
      for (let first = true; ; first = false) {
        const now = new Date();
        if (!(await claimEndpoint(db, endpointId, this.id, now.toISOString(), new Date(now.getTime() + this.options.claimMs).toISOString()))) return;
        const endpoint = await findEndpointForDelivery(db, endpointId);
        const head = await headOfLine(db, endpointId);
        if (!endpoint || !endpoint.enabled || !head) return;
        // A flush tries each line's head once, due or not; what follows it only when due.
        if (Date.parse(head.next_attempt_at) > now.getTime() && !(includeDeferred && first)) return;
        const outcome = await this.attempt(endpoint, head, result);
        if (outcome !== 'delivered') return;
      }
    } catch (error) {
      this.ctx.log.error({ err: error, endpointId }, 'webhook delivery failed');
    } finally {
      await releaseEndpoint(db, endpointId, this.id).catch(() => undefined);
    }
  }

  private async attempt(endpoint: ClaimedEndpoint, delivery: DeliveryRow, result: WebhookPassResult): Promise<'delivered' | 'deferred' | 'given-up'> {
    const db = this.ctx.db;
    const startedAt = new Date();
    const firstAttemptAt = delivery.first_attempt_at ?? startedAt.toISOString();
    const attempts = delivery.attempts + 1;
    if (delivery.body === null) {
      await markDeliveryFailed(db, delivery.id, delivery.attempts, delivery.first_attempt_at, startedAt.toISOString());
      result.givenUp++;
      return 'given-up';
    }
    const headers = webhookHeaders(endpointSecrets(this.ctx, endpoint, startedAt), delivery.message_id, delivery.body, startedAt);
    const sent = await postWebhook(endpoint.url, headers, delivery.body, sendOptionsFor(this.ctx, endpoint, this.options.timeoutMs));
    const now = new Date();
    const nowText = now.toISOString();
    await insertAttempt(db, {
      delivery_id: delivery.id,
      attempted_at: startedAt.toISOString(),
      status_code: sent.statusCode,
      duration_ms: sent.durationMs,
      response: sent.response,
      reason: sent.reason,
      error: sent.error,
    });
    const log = { endpointId: endpoint.id, deliveryId: delivery.id, eventType: delivery.type, attempts, statusCode: sent.statusCode, durationMs: sent.durationMs };
    if (sent.ok) {
      await markDelivered(db, delivery.id, attempts, firstAttemptAt, nowText);
      await clearFailing(db, endpoint.id);
      result.delivered++;
      this.ctx.log.debug(log, 'webhook delivered');
      return 'delivered';
    }
    const failingSince = await noteFailing(db, endpoint.id, nowText);
    const age = now.getTime() - Date.parse(firstAttemptAt);
    let outcome: 'deferred' | 'given-up';
    if (age >= this.options.maxAgeMs) {
      await markDeliveryFailed(db, delivery.id, attempts, firstAttemptAt, nowText);
      result.givenUp++;
      outcome = 'given-up';
      this.ctx.log.error({ ...log, reason: sent.reason, error: sent.error }, 'webhook delivery given up');
    } else {
      // Never later than the end of the retry window: the last attempt falls on it.
      const next = Math.min(startedAt.getTime() + retryDelay(attempts, this.options), Date.parse(firstAttemptAt) + this.options.maxAgeMs);
      await scheduleDeliveryRetry(db, delivery.id, attempts, firstAttemptAt, new Date(next).toISOString());
      result.deferred++;
      outcome = 'deferred';
      this.ctx.log.warn({ ...log, reason: sent.reason, error: sent.error, retryAt: new Date(next).toISOString() }, 'webhook not delivered; will retry');
    }
    if (now.getTime() - Date.parse(failingSince) >= this.options.disableAfterMs) await this.disable(endpoint, now, result);
    return outcome;
  }

  private async disable(endpoint: ClaimedEndpoint, now: Date, result: WebhookPassResult): Promise<void> {
    const days = Math.round(this.options.disableAfterMs / (24 * HOUR));
    const disabled = await this.ctx.db.transaction().execute(async (trx) => {
      if (!(await disableFailingEndpoint(trx, endpoint.id, 'failing', now.toISOString()))) return false;
      if (!endpoint.owner_closed) await queueEndpointDisabledMail(this.ctx, trx, { email: endpoint.owner_email, locale: endpoint.owner_locale }, endpoint.url, days);
      return true;
    });
    if (!disabled) return;
    result.disabled++;
    this.ctx.mail.wake();
    this.ctx.log.error({ endpointId: endpoint.id, url: endpoint.url, days }, 'webhook endpoint switched off after failing for days');
  }
}

/**
 * Administrators run the server and may post to its own network (DESIGN.md section 6b); endpoints of
 * distributors reach public addresses only, unless WEBHOOK_PRIVATE_ADDRESSES=all allows them too.
 */
export function publicOnlyFor(ctx: AppContext, endpoint: { owner_role: string }): boolean {
  return endpoint.owner_role !== 'ADMIN' && ctx.config.webhookPrivateAddresses !== 'all';
}

/**
 * How a delivery to this endpoint is sent. Only administrators' delivery logs keep what the receiver
 * answered: a distributor's receiver is its own to debug, and this server may reach services that
 * answer it and not the distributor (a partner's API that trusts this server's address).
 */
export function sendOptionsFor(ctx: AppContext, endpoint: { owner_role: string }, timeoutMs: number): SendOptions {
  return { timeoutMs, publicOnly: publicOnlyFor(ctx, endpoint), keepResponse: endpoint.owner_role === 'ADMIN' };
}
