import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { claimMail, markMailFailed, pendingMailIds, removeSentMail, scheduleRetry } from './outbox.ts';
import type { MailTransport } from './transport.ts';
import { OutboxLoop } from '../jobs/outbox-loop.ts';
import { DEFAULT_MAIL_WORKER_OPTIONS, retryDelay, type MailWorkerOptions } from './options.ts';

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
export class MailService extends OutboxLoop<MailPassResult> {
  readonly transport: MailTransport;
  private readonly db: Kysely<DB>;
  private readonly log: FastifyBaseLogger;
  private readonly from: string;
  private readonly options: MailWorkerOptions;

  constructor(db: Kysely<DB>, log: FastifyBaseLogger, transport: MailTransport, from: string, options: Partial<MailWorkerOptions> = {}) {
    const settings = { ...DEFAULT_MAIL_WORKER_OPTIONS, ...options };
    super({ name: 'mail', log, pollIntervalMs: settings.pollIntervalMs, wakeDelayMs: 0 });
    this.db = db;
    this.log = log;
    this.transport = transport;
    this.from = from;
    this.options = settings;
  }

  override async stop(): Promise<void> {
    await super.stop();
    this.transport.close();
  }

  protected async pass(includeDeferred: boolean): Promise<MailPassResult> {
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
