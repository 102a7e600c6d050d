import { sql } from 'kysely';
import type { Database, Executor } from '../db/database.ts';

export interface SigningKeyRow {
  kid: string;
  algorithm: string;
  public_key_pem: string;
  private_key: string;
  /** Kept for the schema of migration 0005; which key signs follows from the times below. */
  active: boolean;
  created_at: string;
  /** When it starts signing (null for rows older than migration 0030: their creation). */
  activates_at: string | null;
  retired_at: string | null;
  unpublish_at: string | null;
}

type StoredRow = Omit<SigningKeyRow, 'active'> & { active: boolean | number };

const toRow = (row: StoredRow): SigningKeyRow => ({ ...row, active: Boolean(row.active) });

/** Every key, newest first. */
export async function listKeys(db: Executor): Promise<SigningKeyRow[]> {
  const rows = await db.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').orderBy('kid', 'desc').execute();
  return rows.map(toRow);
}

export type NewKeyRow = Pick<SigningKeyRow, 'kid' | 'algorithm' | 'public_key_pem' | 'private_key' | 'created_at' | 'activates_at'>;

/** A new key, published at once; it signs from its activates_at on. */
export async function insertKey(db: Executor, key: NewKeyRow): Promise<void> {
  await db.insertInto('signing_keys').values({ ...key, active: true, retired_at: null, unpublish_at: null }).execute();
}

export async function updatePrivateKey(db: Executor, kid: string, privateKey: string): Promise<void> {
  await db.updateTable('signing_keys').set({ private_key: privateKey }).where('kid', '=', kid).execute();
}

export async function retireKey(db: Executor, kid: string, retiredAt: string, unpublishAt: string | null): Promise<void> {
  await db.updateTable('signing_keys').set({ active: false, retired_at: retiredAt, unpublish_at: unpublishAt }).where('kid', '=', kid).execute();
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
