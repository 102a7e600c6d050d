import { sql } from 'kysely';
import type { Database, Executor } from '../db/database.ts';

export interface SigningKeyRow {
  kid: string;
  algorithm: string;
  public_key_pem: string;
  private_key: string;
  active: boolean;
  created_at: string;
}

const toRow = (row: Omit<SigningKeyRow, 'active'> & { active: boolean | number }): SigningKeyRow => ({ ...row, active: Boolean(row.active) });

/** The key that signs: the newest active one. */
export async function findActiveKey(db: Executor): Promise<SigningKeyRow | undefined> {
  const row = await db.selectFrom('signing_keys').selectAll().where('active', '=', true).orderBy('created_at', 'desc').orderBy('kid', 'desc').executeTakeFirst();
  return row && toRow(row);
}

export async function listKeys(db: Executor): Promise<SigningKeyRow[]> {
  const rows = await db.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').orderBy('kid', 'desc').execute();
  return rows.map(toRow);
}

/** Makes `key` the only active key; the others stay for verification. */
export async function insertActiveKey(db: Executor, key: Omit<SigningKeyRow, 'active'>): Promise<void> {
  await db.updateTable('signing_keys').set({ active: false }).where('active', '=', true).execute();
  await db.insertInto('signing_keys').values({ ...key, active: true }).execute();
}

export async function updatePrivateKey(db: Executor, kid: string, privateKey: string): Promise<void> {
  await db.updateTable('signing_keys').set({ private_key: privateKey }).where('kid', '=', kid).execute();
}

/**
 * Runs `work` in a transaction that no other app instance runs at the same time (PostgreSQL: an
 * advisory lock; SQLite: one writer at a time anyway), so that two first starts create one key.
 */
export function withKeyLock<T>(database: Database, work: (trx: Executor) => Promise<T>): Promise<T> {
  return database.db.transaction().execute(async (trx) => {
    if (database.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${SIGNING_KEY_LOCK})`.execute(trx);
    return work(trx);
  });
}

const SIGNING_KEY_LOCK = 60_060_006;
