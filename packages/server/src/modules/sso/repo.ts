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
