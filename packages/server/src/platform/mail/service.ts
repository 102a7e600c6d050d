import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { claimMail, markMailFailed, pendingMailIds, removeSentMail, scheduleRetry } from './outbox.ts';
import type { MailTransport } from './transport.ts';

export interface MailWorkerOptions {
  /** How often the outbox is looked at; mails queued by this instance are sent at once (wake). */
  pollIntervalMs: number;
  /** The wait after the first failure; it doubles with every further failure… */
  retryBaseMs: number;
  /** …up to this. */
  retryMaxMs: number;
  /** A mail still unsent after this long is given up: every link in it has expired by then. */
  maxAgeMs: number;
  /** How long a worker holds a mail it took; another instance may take it after that. */
  claimMs: number;
  batchSize: number;
}

export const DEFAULT_MAIL_WORKER_OPTIONS: MailWorkerOptions = {
  pollIntervalMs: 5_000,
  retryBaseMs: 30_000,
  retryMaxMs: 15 * 60_000,
  maxAgeMs: 72 * 3600_000,
  claimMs: 2 * 60_000,
  batchSize: 20,
};

/** The wait before the next attempt after `failures` failed attempts (exponential, capped). */
export function retryDelay(failures: number, options: Pick<MailWorkerOptions, 'retryBaseMs' | 'retryMaxMs'>): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 30);
  return Math.min(options.retryBaseMs * 2 ** exponent, options.retryMaxMs);
}

export interface MailPassResult {
  sent: number;
  /** Failed this time, to be retried later. */
  deferred: number;
  givenUp: number;
}

/**
 * The outbox worker. It sends queued mails through the transport, removes what was sent, and keeps
 * what failed for a later attempt with exponential backoff, so that a mail server that is down
 * delays mail but never loses it. All passes of one instance run one after another.
 */
export class MailService {
  readonly transport: MailTransport;
  private readonly db: Kysely<DB>;
  private readonly log: FastifyBaseLogger;
  private readonly from: string;
  private readonly options: MailWorkerOptions;
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private running = false;
  private wakeRequested = false;

  constructor(db: Kysely<DB>, log: FastifyBaseLogger, transport: MailTransport, from: string, options: Partial<MailWorkerOptions> = {}) {
    this.db = db;
    this.log = log;
    this.transport = transport;
    this.from = from;
    this.options = { ...DEFAULT_MAIL_WORKER_OPTIONS, ...options };
  }

  /** Starts polling the outbox (buildApp does this). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops polling and waits for a pass under way (the app's close does this). */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.queue;
    this.transport.close();
  }

  /** Mails were queued: look at the outbox now rather than at the next poll. */
  wake(): void {
    if (!this.running) return;
    this.wakeRequested = true;
    this.schedule(0);
  }

  /**
   * Tries every unsent mail once now, including those waiting for a retry, and answers when done:
   * deterministic delivery for tests and for an operator who just fixed the mail server.
   */
  flush(): Promise<MailPassResult> {
    return this.serialized(() => this.pass(true));
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work, work);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.wakeRequested = false;
    try {
      await this.serialized(() => this.pass(false));
    } catch (error) {
      this.log.error({ err: error }, 'mail outbox pass failed');
    }
    if (this.running) this.schedule(this.wakeRequested ? 0 : this.options.pollIntervalMs);
  }

  private async pass(includeDeferred: boolean): Promise<MailPassResult> {
    const result: MailPassResult = { sent: 0, deferred: 0, givenUp: 0 };
    let afterId = 0;
    for (;;) {
      const ids = await pendingMailIds(this.db, new Date(), { afterId, limit: this.options.batchSize, includeDeferred });
      if (ids.length === 0) return result;
      for (const id of ids) await this.deliver(id, result);
      afterId = ids[ids.length - 1];
    }
  }

  private async deliver(id: number, result: MailPassResult): Promise<void> {
    const now = new Date();
    const mail = await claimMail(this.db, id, now, new Date(now.getTime() + this.options.claimMs));
    if (!mail) return;
    try {
      await this.transport.send({ ...mail, from: this.from });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const failures = mail.attempts + 1;
      const failedAt = new Date();
      if (failedAt.getTime() - Date.parse(mail.createdAt) >= this.options.maxAgeMs) {
        await markMailFailed(this.db, id, failures, failedAt, message);
        result.givenUp++;
        this.log.error({ mailId: id, to: mail.to, attempts: failures, error: message }, 'mail given up');
        return;
      }
      const delay = retryDelay(failures, this.options);
      await scheduleRetry(this.db, id, failures, new Date(failedAt.getTime() + delay), message);
      result.deferred++;
      this.log.warn({ mailId: id, to: mail.to, attempts: failures, retryInMs: delay, error: message }, 'mail not sent; will retry');
      return;
    }
    await removeSentMail(this.db, id);
    result.sent++;
    this.log.info({ mailId: id, to: mail.to, subject: mail.subject }, 'mail sent');
  }
}
