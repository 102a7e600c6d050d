import { sql, type Insertable, type Kysely } from 'kysely';
import type { Executor } from '../../platform/db/database.ts';
import type { DB } from '../../platform/db/schema.ts';

/** Rows per statement: the bound parameters stay under SQLite's 32,766 and PostgreSQL's 65,535. */
function rowsPerStatement(columns: number): number {
  return Math.floor(30_000 / columns);
}

/** Inserts many rows of one table in multi-row statements, in one transaction (one disk sync, not one per statement). */
export async function insertMany<T extends keyof DB & string>(db: Kysely<DB>, table: T, rows: readonly Insertable<DB[T]>[]): Promise<void> {
  if (!rows.length) return;
  const size = rowsPerStatement(Object.keys(rows[0] as object).length);
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < rows.length; start += size) {
      await trx
        .insertInto(table)
        .values(rows.slice(start, start + size) as never)
        .execute();
    }
  });
}

export async function countRows(db: Executor, table: 'users' | 'tans' | 'licenses'): Promise<number> {
  const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function maxId(db: Executor, table: 'users' | 'tans' | 'licenses' | 'products'): Promise<number> {
  const row = await db.selectFrom(table).select((eb) => eb.fn.max('id').as('max')).executeTakeFirstOrThrow();
  return Number(row.max ?? 0);
}

export async function idsOfEmails(db: Executor, prefix: string): Promise<number[]> {
  const rows = await db.selectFrom('users').select('id').where('email', 'like', `${prefix}%`).orderBy('id').execute();
  return rows.map((row) => row.id);
}

export async function productIdsNamed(db: Executor, prefix: string): Promise<number[]> {
  const rows = await db.selectFrom('products').select('id').where('name', 'like', `${prefix}%`).orderBy('id').execute();
  return rows.map((row) => row.id);
}

export async function tanIdsFrom(db: Executor, firstId: number, limit: number) {
  return db.selectFrom('tans').select(['id', 'code', 'product_id', 'distributor_id', 'created_at']).where('id', '>=', firstId).orderBy('id').limit(limit).execute();
}

export async function markActivated(db: Executor, firstId: number, lastId: number): Promise<void> {
  await db.updateTable('tans').set({ activated_count: 1 }).where('id', '>=', firstId).where('id', '<=', lastId).execute();
}

/**
 * Fresh planner statistics after a bulk load, on either database; PostgreSQL also gets its
 * visibility map (what autovacuum does after many inserts), so that counts can read indexes alone.
 */
export async function analyze(db: Executor, postgres: boolean): Promise<void> {
  await (postgres ? sql`vacuum analyze` : sql`analyze`).execute(db);
}
