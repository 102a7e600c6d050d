import { sql } from 'kysely';
import type { SortField } from '@lm/contract';
import type { Executor } from '../../platform/db/database.ts';
import type { SignedInRow } from '../../platform/http/auth.ts';
import { anyColumnContains, orderings } from '../../platform/db/search.ts';

export interface ApiTokenRow {
  id: number;
  name: string;
  user_id: number;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  first_name: string;
  last_name: string;
  company: string | null;
  email: string;
}

function tokenView(db: Executor) {
  return db
    .selectFrom('api_tokens')
    .innerJoin('users', 'users.id', 'api_tokens.user_id')
    .select([
      'api_tokens.id',
      'api_tokens.name',
      'api_tokens.user_id',
      'api_tokens.created_at',
      'api_tokens.expires_at',
      'api_tokens.last_used_at',
      'api_tokens.wrote_at',
      'users.first_name',
      'users.last_name',
      'users.company',
      'users.email',
    ]);
}

export async function insertApiToken(db: Executor, token: { userId: number; name: string; tokenHash: string; expiresAt: string | null }, now: string): Promise<ApiTokenRow> {
  const { id } = await db
    .insertInto('api_tokens')
    .values({ user_id: token.userId, name: token.name, token_hash: token.tokenHash, created_at: now, expires_at: token.expiresAt, last_used_at: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  return (await findApiToken(db, id))!;
}

export function findApiToken(db: Executor, id: number): Promise<ApiTokenRow | undefined> {
  return tokenView(db).where('api_tokens.id', '=', id).executeTakeFirst();
}

export async function countApiTokensOf(db: Executor, userId: number): Promise<number> {
  const row = await db.selectFrom('api_tokens').select((eb) => eb.fn.countAll<number>().as('count')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.count);
}

const SORT_COLUMNS = { name: 'api_tokens.name', createdAt: 'api_tokens.created_at', lastUsedAt: 'api_tokens.last_used_at', expiresAt: 'api_tokens.expires_at' };

export async function listApiTokens(
  db: Executor,
  filter: { ownerId?: number; text?: string },
  page: { offset: number; limit: number; sort: SortField[] },
): Promise<{ rows: ApiTokenRow[]; totalCount: number }> {
  let query = tokenView(db);
  if (filter.ownerId !== undefined) query = query.where('api_tokens.user_id', '=', filter.ownerId);
  if (filter.text) query = query.where((eb) => anyColumnContains(db, eb, ['api_tokens.name', 'users.email'], filter.text!));
  const count = await query.clearSelect().select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  let rows = query;
  for (const [column, direction] of orderings(page.sort, SORT_COLUMNS, [{ field: 'createdAt', descending: true }], 'api_tokens.id')) {
    rows = rows.orderBy(sql.ref(column), direction);
  }
  return { rows: await rows.offset(page.offset).limit(page.limit).execute(), totalCount: Number(count.count) };
}

export async function deleteApiToken(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('api_tokens').where('id', '=', id).execute();
}

/** A closed account's tokens go with its sessions. */
export async function deleteApiTokensOfUser(db: Executor, userId: number): Promise<void> {
  await db.deleteFrom('api_tokens').where('user_id', '=', userId).execute();
}

/** The token and its owner, whose columns the request then acts as (`two_factor_user`: the owner's confirmed second factor, or null). */
export interface TokenUser extends SignedInRow {
  token_id: number;
  token_name: string;
  last_used_at: string | null;
}

/** The live token with this hash and its open account; expired tokens and closed accounts find nothing. */
export function findTokenUser(db: Executor, tokenHash: string, now: string): Promise<TokenUser | undefined> {
  return db
    .selectFrom('api_tokens')
    .innerJoin('users', 'users.id', 'api_tokens.user_id')
    .leftJoin('user_two_factor as tf', (join) => join.onRef('tf.user_id', '=', 'users.id').on('tf.confirmed_at', 'is not', null))
    .select([
      'tf.user_id as two_factor_user',
      'api_tokens.id as token_id',
      'api_tokens.name as token_name',
      'api_tokens.last_used_at',
      'users.id',
      'users.email',
      'users.first_name',
      'users.last_name',
      'users.company',
      'users.access_role',
      'users.locale',
    ])
    .where('api_tokens.token_hash', '=', tokenHash)
    .where('users.closed_at', 'is', null)
    .where((eb) => eb.or([eb('api_tokens.expires_at', 'is', null), eb('api_tokens.expires_at', '>', now)]))
    .executeTakeFirst();
}

/** The token wrote (read-your-writes, platform/http/read-routing.ts). */
export async function markApiTokenWrote(db: Executor, id: number, at: string): Promise<void> {
  await db.updateTable('api_tokens').set({ wrote_at: at }).where('id', '=', id).execute();
}

export async function touchApiToken(db: Executor, id: number, now: string): Promise<void> {
  await db.updateTable('api_tokens').set({ last_used_at: now }).where('id', '=', id).execute();
}
