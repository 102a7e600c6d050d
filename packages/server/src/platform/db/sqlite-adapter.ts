import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** node:sqlite takes no booleans or dates; the repos pass both, as they do to PostgreSQL. */
function toSqliteValue(value: unknown): SQLInputValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (value === undefined) return null;
  return value as SQLInputValue;
}

/** Presents node:sqlite's synchronous DatabaseSync with the interface Kysely's SqliteDialect drives. */
export function openSqlite(file: string): SqliteDatabase & { raw: DatabaseSync } {
  const raw = new DatabaseSync(file);
  raw.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;');
  return {
    raw,
    close: () => raw.close(),
    prepare(sql: string): SqliteStatement {
      const statement = raw.prepare(sql);
      const bind = (parameters: ReadonlyArray<unknown>) => parameters.map(toSqliteValue);
      return {
        reader: statement.columns().length > 0,
        all: (parameters) => statement.all(...bind(parameters)),
        run: (parameters) => statement.run(...bind(parameters)),
        iterate: (parameters) => statement.iterate(...bind(parameters)),
      };
    },
  };
}
