import type { Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.ts';
import { forUpdate } from '../../platform/db/dialect.ts';
import type { TansTable } from '../../platform/db/schema.ts';

/*
 * The TANs as licensing reads and claims them: activation takes one of a TAN's activations, and a
 * license list filtered by TAN checks the TAN first. Here, below the tans module (whose changes to a
 * TAN reach its licenses through the licenses module), so that the two do not import each other.
 */

/** A TAN's row; with `lock`, locked until the transaction ends (see forUpdate). */
export function findTanById(db: Executor, id: number, options: { lock?: boolean } = {}): Promise<Selectable<TansTable> | undefined> {
  const query = db.selectFrom('tans').selectAll().where('id', '=', id);
  return (options.lock ? forUpdate(db, query) : query).executeTakeFirst();
}

/**
 * Takes one activation of a TAN if one is left, answering the new count (null when none was left):
 * the condition is checked by the UPDATE itself, so that concurrent activations (row lock on
 * PostgreSQL, one writer on SQLite) never pass the count.
 */
export async function claimActivation(trx: Executor, id: number, now: string, options: { floating: boolean }): Promise<number | null> {
  const row = await trx
    .updateTable('tans')
    .set((eb) => ({ activated_count: eb('activated_count', '+', 1), updated_at: now }))
    .where('id', '=', id)
    // A floating TAN counts the machines that joined; its license count bounds the seats in use (seats.ts).
    .$if(!options.floating, (query) => query.where('activated_count', '<', (eb) => eb.ref('license_count')))
    .where('revoked', '=', false)
    .returning('activated_count')
    .executeTakeFirst();
  return row ? row.activated_count : null;
}

/** What activation needs to know about a TAN, by code. */
export function findTanForActivation(db: Executor, code: string) {
  return db
    .selectFrom('tans')
    .innerJoin('products', 'products.id', 'tans.product_id')
    .select([
      'tans.id',
      'tans.product_id',
      'tans.license_policy_id',
      'tans.license_count',
      'tans.activated_count',
      'tans.revoked',
      'tans.suspended',
      'tans.valid_until',
      'tans.free_updates_until',
      'tans.distributor_id',
      'products.active as product_active',
      'products.default_license_policy_id as product_policy_id',
    ])
    .where('tans.code', '=', code)
    .executeTakeFirst();
}
