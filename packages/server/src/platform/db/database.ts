import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect, type Transaction } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import { openSqlite } from './sqlite-adapter.ts';
import type { DB } from './schema.ts';

// PostgreSQL answers counts and sums as strings (int8, numeric); the repos want numbers on both databases.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));
pg.types.setTypeParser(1700, (value) => Number.parseFloat(value));

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  close(): Promise<void>;
}

export type Executor = Kysely<DB> | Transaction<DB>;

export function openDatabase(config: Config['database']): Database {
  if (config.kind === 'postgres') {
    const pool = new pg.Pool({
      connectionString: config.url,
      max: 20,
      ...(config.schema ? { options: `-c search_path=${config.schema}` } : {}),
    });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  if (config.file !== ':memory:') fs.mkdirSync(path.dirname(config.file), { recursive: true });
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: openSqlite(config.file) }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

export function nowIso(): string {
  return new Date().toISOString();
}
