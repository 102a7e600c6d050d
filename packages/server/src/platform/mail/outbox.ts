import type { Executor } from '../db/database.ts';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface QueuedMail extends OutgoingMail {
  id: number;
  attempts: number;
  createdAt: string;
}

/**
 * Queues a mail. Call it with the transaction of the change that causes the mail: the mail then
 * exists exactly when the change does, and a mail server that is down cannot fail the change.
 */
export async function enqueueMail(trx: Executor, mail: OutgoingMail, now = new Date()): Promise<void> {
  await trx
    .insertInto('mail_outbox')
    .values({
      recipient: mail.to,
      subject: mail.subject,
      text_body: mail.text,
      html_body: mail.html,
      created_at: now.toISOString(),
      next_attempt_at: now.toISOString(),
    })
    .execute();
}

/** Ids of mails waiting to be sent, after `afterId`: due ones only, or also the deferred ones (flush). */
export async function pendingMailIds(db: Executor, now: Date, options: { afterId: number; limit: number; includeDeferred: boolean }): Promise<number[]> {
  const { afterId, limit, includeDeferred } = options;
  let query = db.selectFrom('mail_outbox').select('id').where('failed_at', 'is', null).where('id', '>', afterId);
  if (!includeDeferred) query = query.where('next_attempt_at', '<=', now.toISOString());
  const rows = await query.orderBy('id').limit(limit).execute();
  return rows.map((row) => row.id);
}

/**
 * Takes one mail for this worker until `until`, unless another worker holds it; answers the mail,
 * or undefined when it is taken, sent or given up meanwhile.
 */
export async function claimMail(db: Executor, id: number, now: Date, until: Date): Promise<QueuedMail | undefined> {
  const result = await db
    .updateTable('mail_outbox')
    .set({ claimed_until: until.toISOString() })
    .where('id', '=', id)
    .where('failed_at', 'is', null)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now.toISOString())]))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return undefined;
  const row = await db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    to: row.recipient,
    subject: row.subject,
    text: row.text_body ?? '',
    html: row.html_body ?? '',
    attempts: row.attempts,
    createdAt: row.created_at,
  };
}

/** A sent mail leaves the outbox: its links carry tokens, which must not outlive their purpose. */
export async function removeSentMail(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('mail_outbox').where('id', '=', id).execute();
}

export async function scheduleRetry(db: Executor, id: number, attempts: number, nextAttemptAt: Date, error: string): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ attempts, next_attempt_at: nextAttemptAt.toISOString(), claimed_until: null, last_error: error.slice(0, 1000) })
    .where('id', '=', id)
    .execute();
}

/** Gives a mail up: kept as a record of the failure, without its bodies. */
export async function markMailFailed(db: Executor, id: number, attempts: number, now: Date, error: string): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ attempts, failed_at: now.toISOString(), claimed_until: null, last_error: error.slice(0, 1000), text_body: null, html_body: null })
    .where('id', '=', id)
    .execute();
}

/** Removes every mail to an address (a closed account keeps no personal data, queued mails included). */
export async function removeMailsTo(db: Executor, recipient: string): Promise<void> {
  await db.deleteFrom('mail_outbox').where('recipient', '=', recipient).execute();
}

/** What the outbox holds, for /metrics: unsent mails, given-up ones, and when the oldest unsent one was queued. */
export async function mailBacklog(db: Executor): Promise<{ pending: number; failed: number; oldestPendingSince: string | null }> {
  const [pending, failed] = await Promise.all([
    db
      .selectFrom('mail_outbox')
      .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('created_at').as('oldest')])
      .where('failed_at', 'is', null)
      .executeTakeFirstOrThrow(),
    db.selectFrom('mail_outbox').select((eb) => eb.fn.countAll<number>().as('count')).where('failed_at', 'is not', null).executeTakeFirstOrThrow(),
  ]);
  return { pending: Number(pending.count), failed: Number(failed.count), oldestPendingSince: pending.oldest ?? null };
}
