import type { Executor } from '../../platform/db/database.ts';

export function findTwoFactor(db: Executor, userId: number) {
  return db.selectFrom('user_two_factor').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** A new pending secret, replacing an earlier one that was never confirmed. */
export async function savePendingSecret(db: Executor, userId: number, secret: string, now: Date): Promise<void> {
  await db.deleteFrom('user_two_factor').where('user_id', '=', userId).where('confirmed_at', 'is', null).execute();
  await db.insertInto('user_two_factor').values({ user_id: userId, secret, confirmed_at: null, last_used_step: null, created_at: now.toISOString() }).execute();
}

/** Confirms the pending secret with the step of its first code; answers whether it was still pending. */
export async function confirmSecret(db: Executor, userId: number, step: number, now: Date): Promise<boolean> {
  const rows = await db
    .updateTable('user_two_factor')
    .set({ confirmed_at: now.toISOString(), last_used_step: step })
    .where('user_id', '=', userId)
    .where('confirmed_at', 'is', null)
    .returning('user_id')
    .execute();
  return rows.length > 0;
}

/**
 * Takes a time step for a login, once: answers false when this step or a later one was used before
 * (a replayed code), also when two logins race with the same code.
 */
export async function claimStep(db: Executor, userId: number, step: number): Promise<boolean> {
  const rows = await db
    .updateTable('user_two_factor')
    .set({ last_used_step: step })
    .where('user_id', '=', userId)
    .where('confirmed_at', 'is not', null)
    .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
    .returning('user_id')
    .execute();
  return rows.length > 0;
}

export async function deleteTwoFactor(db: Executor, userId: number): Promise<void> {
  await db.deleteFrom('user_recovery_codes').where('user_id', '=', userId).execute();
  await db.deleteFrom('user_two_factor').where('user_id', '=', userId).execute();
}

export async function replaceRecoveryCodes(db: Executor, userId: number, hashes: string[]): Promise<void> {
  await db.deleteFrom('user_recovery_codes').where('user_id', '=', userId).execute();
  await db
    .insertInto('user_recovery_codes')
    .values(hashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: null })))
    .execute();
}

/** Uses an unused recovery code, once, also when two logins race with it. */
export async function useRecoveryCode(db: Executor, userId: number, hash: string, now: Date): Promise<boolean> {
  const rows = await db
    .updateTable('user_recovery_codes')
    .set({ used_at: now.toISOString() })
    .where('user_id', '=', userId)
    .where('code_hash', '=', hash)
    .where('used_at', 'is', null)
    .returning('id')
    .execute();
  return rows.length > 0;
}

export async function countUnusedRecoveryCodes(db: Executor, userId: number): Promise<number> {
  const row = await db
    .selectFrom('user_recovery_codes')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
