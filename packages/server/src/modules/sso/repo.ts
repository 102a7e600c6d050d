import type { Executor } from '../../platform/db/database.ts';

export function findIdentity(db: Executor, issuer: string, subject: string) {
  return db.selectFrom('sso_identities').select(['id', 'user_id']).where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst();
}

export async function insertIdentity(db: Executor, identity: { userId: number; issuer: string; subject: string }, now: string): Promise<void> {
  await db
    .insertInto('sso_identities')
    .values({ user_id: identity.userId, issuer: identity.issuer, subject: identity.subject, created_at: now, last_login_at: now })
    .execute();
}

export async function touchIdentity(db: Executor, id: number, now: string): Promise<void> {
  await db.updateTable('sso_identities').set({ last_login_at: now }).where('id', '=', id).execute();
}

export function identitiesOfUser(db: Executor, userId: number) {
  return db.selectFrom('sso_identities').select(['id', 'issuer', 'subject', 'created_at', 'last_login_at']).where('user_id', '=', userId).orderBy('id').execute();
}

export async function deleteIdentityOfUser(db: Executor, userId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('sso_identities').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export interface PendingLogin {
  stateHash: string;
  nonce: string;
  codeVerifier: string;
  linkUserId: number | null;
  expiresAt: string;
}

export async function insertPendingLogin(db: Executor, login: PendingLogin, now: string): Promise<void> {
  await db.deleteFrom('sso_logins').where('expires_at', '<', now).execute();
  await db
    .insertInto('sso_logins')
    .values({ state_hash: login.stateHash, nonce: login.nonce, code_verifier: login.codeVerifier, link_user_id: login.linkUserId, expires_at: login.expiresAt })
    .execute();
}

/** Takes the pending sign-in of a state: once only (a replayed callback finds nothing). */
export async function takePendingLogin(db: Executor, stateHash: string, now: string): Promise<PendingLogin | undefined> {
  const row = await db.selectFrom('sso_logins').selectAll().where('state_hash', '=', stateHash).executeTakeFirst();
  if (!row) return undefined;
  const result = await db.deleteFrom('sso_logins').where('state_hash', '=', stateHash).executeTakeFirst();
  if (Number(result.numDeletedRows) !== 1 || row.expires_at < now) return undefined;
  return { stateHash: row.state_hash, nonce: row.nonce, codeVerifier: row.code_verifier, linkUserId: row.link_user_id, expiresAt: row.expires_at };
}

/** A verified identity waiting for the account's second factor (migration 0037); expired ones go. */
export async function insertSecondFactorStep(db: Executor, step: { tokenHash: string; userId: number; identityId: number | null; expiresAt: string }, now: string): Promise<void> {
  await db.deleteFrom('sso_second_factors').where('expires_at', '<', now).execute();
  await db.insertInto('sso_second_factors').values({ token_hash: step.tokenHash, user_id: step.userId, identity_id: step.identityId, expires_at: step.expiresAt }).execute();
}

export function findSecondFactorStep(db: Executor, tokenHash: string, now: string) {
  return db.selectFrom('sso_second_factors').selectAll().where('token_hash', '=', tokenHash).where('expires_at', '>=', now).executeTakeFirst();
}

/** Counts a wrong code; answers the attempts so far (0: the step is gone). */
export async function countWrongCode(db: Executor, tokenHash: string): Promise<number> {
  const row = await db.updateTable('sso_second_factors').set((eb) => ({ attempts: eb('attempts', '+', 1) })).where('token_hash', '=', tokenHash).returning('attempts').executeTakeFirst();
  return row?.attempts ?? 0;
}

/** Ends a step: true for the one caller that ended it (a step signs in once). */
export async function deleteSecondFactorStep(db: Executor, tokenHash: string): Promise<boolean> {
  const result = await db.deleteFrom('sso_second_factors').where('token_hash', '=', tokenHash).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
