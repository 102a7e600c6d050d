import type { ChangeLogModel } from '@lm/contract';
import { withoutSecretFields } from '@lm/contract/change-log';
import type { Executor } from './db/database.ts';
import type { Actor } from './context.ts';
import { enqueueChangeEvents } from './webhooks/outbox.ts';

/** Secrets (password hashes, tokens, the webhook secret, keys) never enter the change log (DESIGN.md section 4). */
function withoutSecrets(values: Record<string, unknown> | null | undefined): string | null {
  if (!values) return null;
  return JSON.stringify(withoutSecretFields(values));
}

export interface Change {
  model: ChangeLogModel;
  recordId: number;
  operation: 'insert' | 'update' | 'delete';
  oldValues?: Record<string, unknown> | null;
  newValues?: Record<string, unknown> | null;
}

/**
 * Writes one change-log row, and the webhook event of the change (license, TAN and user changes,
 * DESIGN.md section 6b); call it with the transaction that makes the change, after the write (a
 * delete before it: the event carries the record as it was).
 */
export async function recordChange(trx: Executor, actor: Actor, change: Change): Promise<void> {
  await trx
    .insertInto('change_log')
    .values({
      model: change.model,
      record_id: change.recordId,
      operation: change.operation,
      timestamp: new Date().toISOString(),
      user_id: actor.userId,
      token_name: actor.tokenName ?? null,
      old_values: withoutSecrets(change.oldValues),
      new_values: withoutSecrets(change.newValues),
    })
    .execute();
  await enqueueChangeEvents(trx, change.model, change.operation, [change.recordId]);
}

/** Records many inserts at once (bulk TAN creation), with their events. */
export async function recordInserts(trx: Executor, actor: Actor, model: ChangeLogModel, rows: { id: number; values: Record<string, unknown> }[]): Promise<void> {
  const timestamp = new Date().toISOString();
  for (let start = 0; start < rows.length; start += 500) {
    await trx
      .insertInto('change_log')
      .values(
        rows.slice(start, start + 500).map((row) => ({
          model,
          record_id: row.id,
          operation: 'insert' as const,
          timestamp,
          user_id: actor.userId,
          token_name: actor.tokenName ?? null,
          old_values: null,
          new_values: withoutSecrets(row.values),
        })),
      )
      .execute();
  }
  await enqueueChangeEvents(
    trx,
    model,
    'insert',
    rows.map((row) => row.id),
  );
}
