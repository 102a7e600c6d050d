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
      // Transactions take the write lock when they begin: a deferred one that reads first and writes
      // later fails with SQLITE_BUSY when another process (a second server, the CLI) wrote meanwhile;
      // an immediate one waits for the lock (busy_timeout) instead. One process alone sees no change.
      const statement = raw.prepare(sql === 'begin' ? 'begin immediate' : sql);
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
