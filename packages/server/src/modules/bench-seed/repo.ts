import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { Executor } from '../../platform/db/database.ts';
import type { DB } from '../../platform/db/schema.ts';

/** Rows per statement: the bound parameters stay under SQLite's 32,766 and PostgreSQL's 65,535. */
function rowsPerStatement(columns: number): number {
  return Math.floor(30_000 / columns);
}

/**
 * Inserts many rows of one table in multi-row statements, in one transaction (one disk sync, not one
 * per statement): its own, or the caller's when given a transaction.
 */
export async function insertMany<T extends keyof DB & string>(db: Executor, table: T, rows: readonly Insertable<DB[T]>[]): Promise<void> {
  if (!rows.length) return;
  const size = rowsPerStatement(Object.keys(rows[0] as object).length);
  const insert = async (trx: Executor) => {
    for (let start = 0; start < rows.length; start += size) {
      await trx
        .insertInto(table)
        .values(rows.slice(start, start + size) as never)
        .execute();
    }
  };
  await (db.isTransaction ? insert(db) : (db as Kysely<DB>).transaction().execute(insert));
}

export async function countRows(db: Executor, table: 'users' | 'tans' | 'licenses'): Promise<number> {
  const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function maxId(db: Executor, table: 'users' | 'tans' | 'licenses' | 'products'): Promise<number> {
  const row = await db.selectFrom(table).select((eb) => eb.fn.max('id').as('max')).executeTakeFirstOrThrow();
  return Number(row.max ?? 0);
}

/** The first id above `after`: where the rows just inserted begin (a sequence may have skipped ids). */
export async function firstIdAfter(db: Executor, table: 'tans', after: number): Promise<number> {
  const row = await db.selectFrom(table).select((eb) => eb.fn.min('id').as('min')).where('id', '>', after).executeTakeFirstOrThrow();
  return Number(row.min);
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

// ---------------------------------------------------------------------------------------------
// PostgreSQL: a bulk load without the secondary indexes

export interface IndexDefinition {
  name: string;
  /** `CREATE INDEX …` as PostgreSQL prints it (pg_get_indexdef), schema-qualified. */
  definition: string;
}

/**
 * The indexes of `tables` in the current schema that neither serve a primary key nor back a
 * constraint (unique, exclusion): those a load can drop and build again afterwards.
 */
export async function secondaryIndexes(trx: Transaction<DB>, tables: readonly string[]): Promise<IndexDefinition[]> {
  const result = await sql<IndexDefinition>`
    select i.relname as name, pg_get_indexdef(x.indexrelid) as definition
    from pg_index x
    join pg_class i on i.oid = x.indexrelid
    join pg_class t on t.oid = x.indrelid
    where t.relnamespace = current_schema()::regnamespace
      and t.relname in (${sql.join(tables)})
      and not x.indisprimary
      and not exists (select 1 from pg_constraint c where c.conindid = x.indexrelid and c.conrelid = x.indrelid)
    order by t.relname, i.relname`.execute(trx);
  return result.rows;
}

/** Settings of the load's transaction only: no wait for the disk at each commit, memory to sort index builds in. */
export async function bulkLoadSettings(trx: Transaction<DB>): Promise<void> {
  await sql`set local synchronous_commit = off`.execute(trx);
  await sql`set local maintenance_work_mem = '1GB'`.execute(trx);
}

export async function dropIndexes(trx: Transaction<DB>, indexes: readonly IndexDefinition[]): Promise<void> {
  for (const index of indexes) await sql`drop index ${sql.id(index.name)}`.execute(trx);
}

export async function createIndexes(trx: Transaction<DB>, indexes: readonly IndexDefinition[], log: (text: string) => void): Promise<void> {
  for (const index of indexes) {
    const started = performance.now();
    await sql.raw(index.definition).execute(trx);
    log(`  ${index.name}: ${Math.round(performance.now() - started)} ms`);
  }
}

/**
 * Fresh planner statistics after a bulk load, on either database; PostgreSQL also gets its
 * visibility map (what autovacuum does after many inserts), so that counts can read indexes alone.
 */
export async function analyze(db: Executor, postgres: boolean): Promise<void> {
  await (postgres ? sql`vacuum analyze` : sql`analyze`).execute(db);
}
