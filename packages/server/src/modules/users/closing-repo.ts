import { randomBytes } from 'node:crypto';
import type { Executor } from '../../platform/db/database.ts';

/**
 * The address a closed account keeps: no mail can ever reach it (.invalid, RFC 2606), and nobody can
 * take it first (a random part: an account registered as `closed-<id>@closed.invalid` would
 * otherwise make closing that id fail on the unique address).
 */
export const closedAccountEmail = (id: number) => `closed-${id}-${randomBytes(8).toString('hex')}@closed.invalid`;

/**
 * Removes the personal data of an account and marks it closed. The row stays, without anything that
 * names a person, so that licenses, TAN activations and statistics keep their owner.
 */
export async function anonymizeUser(db: Executor, id: number, now: Date): Promise<void> {
  await db
    .updateTable('users')
    .set({
      email: closedAccountEmail(id),
      password_hash: null,
      first_name: '',
      last_name: '',
      company: null,
      first_name_key: '',
      last_name_key: '',
      company_key: null,
      address: null,
      address2: null,
      zip: null,
      city: null,
      country: null,
      phone: null,
      fax: null,
      notes: null,
      opt_in_email: false,
      locale: null,
      closed_at: now.toISOString(),
      updated_at: now.toISOString(),
    })
    .where('id', '=', id)
    .execute();
}

/** Revokes the account's licenses that are not revoked yet; answers them (exactly the rows it changed). */
export async function revokeLicensesOfOwner(db: Executor, ownerId: number, now: Date): Promise<{ id: number; tanId: number | null }[]> {
  const rows = await db
    .updateTable('licenses')
    .set({ revoked: true, updated_at: now.toISOString() })
    .where('owner_id', '=', ownerId)
    .where('revoked', '=', false)
    .returning(['id', 'tan_id'])
    .execute();
  return rows.map((row) => ({ id: row.id, tanId: row.tan_id }));
}

export function userChangeLogEntries(db: Executor, userId: number) {
  return db.selectFrom('change_log').select(['id', 'old_values', 'new_values']).where('model', '=', 'User').where('record_id', '=', userId).execute();
}

export async function rewriteChangeLogValues(db: Executor, entryId: number, oldValues: string | null, newValues: string | null): Promise<void> {
  await db.updateTable('change_log').set({ old_values: oldValues, new_values: newValues }).where('id', '=', entryId).execute();
}
