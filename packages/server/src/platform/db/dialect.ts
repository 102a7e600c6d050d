import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { Executor } from './database.ts';

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export { isDatabaseUnavailable } from './unavailable.ts';

/**
 * Whether every connection of the pool stayed busy while a request waited for one (pg-pool's wait
 * timed out): the database is healthy but the load exceeds DATABASE_POOL_SIZE, answered 503
 * ERR_DATABASE_BUSY rather than "unavailable". The message is pg-pool's (database.ts).
 */
export function isPoolExhausted(error: unknown): boolean {
  return error instanceof Error && error.message === 'timeout exceeded when trying to connect';
}


/**
 * A fault of the database's storage that an operator must fix, by its cause: the disk is full
 * (SQLite's SQLITE_FULL, PostgreSQL's 53100, ENOSPC), or the database file or its folder cannot be
 * written (SQLITE_READONLY: a file owned by another user, a read-only mount). Null for anything else.
 */
export function storageFault(error: unknown): 'disk-full' | 'read-only' | null {
  if (!error || typeof error !== 'object') return null;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number') {
    if ((errcode & 0xff) === 13) return 'disk-full';
    if ((errcode & 0xff) === 8) return 'read-only';
    return null;
  }
  if (code === '53100' || code === 'ENOSPC') return 'disk-full';
  if (code === 'EROFS' || code === '25006') return 'read-only';
  return null;
}

/**
 * Serializes the transactions that decide about one thing (the licenses of a machine for a product,
 * the seats of a pool) until the transaction ends, across connections and app instances.
 * PostgreSQL: a transaction-scoped advisory lock on a 64-bit hash of the key; a collision only makes
 * two unrelated decisions wait for each other. SQLite: nothing to take, since every write transaction
 * already runs alone, also across processes (BEGIN IMMEDIATE, see sqlite-adapter.ts).
 */
export async function lockKey(trx: Executor, key: string): Promise<void> {
  if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}

/**
 * A read that locks its rows until the transaction ends, so that a decision made on them cannot be
 * overtaken by another transaction's change (PostgreSQL's FOR UPDATE; on SQLite the transaction
 * holds the database's write lock from its start already).
 */
export function forUpdate<Query extends { forUpdate(): Query }>(trx: Executor, query: Query): Query {
  return isPostgres(trx) ? query.forUpdate() : query;
}

/**
 * Locks one record's row until the transaction ends (forUpdate): a change checked against the record
 * as it is (an If-Match, platform/http/versioned.ts) cannot be overtaken before it is written.
 */
export async function lockRow(trx: Executor, table: string, id: number): Promise<void> {
  if (isPostgres(trx)) await sql`select id from ${sql.table(table)} where id = ${id} for update`.execute(trx);
}

/** A read whose rows no other transaction may change until this one ends, while others may read them so too (FOR SHARE; see forUpdate). */
export function forShare<Query extends { forShare(): Query }>(trx: Executor, query: Query): Query {
  return isPostgres(trx) ? query.forShare() : query;
}
