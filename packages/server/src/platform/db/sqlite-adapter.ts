import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** node:sqlite takes no booleans or dates; the repos pass both, as they do to PostgreSQL. */
function toSqliteValue(value: unknown): SQLInputValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (value === undefined) return null;
  return value as SQLInputValue;
}

const STATEMENT_CACHE_SIZE = 500;

/** SQLite's lower() for every alphabet (JavaScript's toLowerCase), registered on each connection: see search.ts. */
export const SQLITE_LOWER_UNICODE = 'lower_unicode';

/** Prepared statements of a connection by SQL text (the oldest dropped past the limit): preparing a join costs more than running it. */
function statementCache<Entry>(prepare: (sql: string) => Entry): (sql: string) => Entry {
  const statements = new Map<string, Entry>();
  return (sql) => {
    let entry = statements.get(sql);
    if (!entry) {
      entry = prepare(sql);
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      statements.set(sql, entry);
    }
    return entry;
  };
}

const PRAGMAS = 'PRAGMA busy_timeout = 5000; PRAGMA cache_size = -65536; PRAGMA mmap_size = 1073741824;';

/**
 * Presents node:sqlite's synchronous DatabaseSync with the interface Kysely's SqliteDialect drives.
 * Prepared statements are reused by SQL text. The page cache and memory-mapped reads keep a large database's hot pages out of read() system calls.
 */
export function openSqlite(file: string): SqliteDatabase & { raw: DatabaseSync; read: SqliteReader } {
  const raw = new DatabaseSync(file);
  raw.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; ${PRAGMAS}`);
  // Not a replacement of lower(): the indexes on lower(…) hold its ASCII-only folding (search.ts).
  raw.function(SQLITE_LOWER_UNICODE, { deterministic: true }, (value) => (typeof value === 'string' ? value.toLowerCase() : value));
  const cached = statementCache((sql) => {
    const statement = raw.prepare(sql);
    return { statement, reader: statement.columns().length > 0 };
  });
  const bind = (parameters: ReadonlyArray<unknown>) => parameters.map(toSqliteValue);
  return {
    raw,
    read: (sql, parameters) => cached(sql).statement.all(...bind(parameters)),
    close: () => raw.close(),
    prepare(sql: string): SqliteStatement {
      // Transactions take the write lock when they begin: a deferred one that reads first and writes
      // later fails with SQLITE_BUSY when another process (a second server, the CLI) wrote meanwhile;
      // an immediate one waits for the lock (busy_timeout) instead. One process alone sees no change.
      const { statement, reader } = cached(sql === 'begin' ? 'begin immediate' : sql);
      return {
        reader,
        all: (parameters) => statement.all(...bind(parameters)),
        run: (parameters) => statement.run(...bind(parameters)),
        // A stream may still be open when the same SQL runs again: it gets a statement of its own.
        iterate: (parameters) => raw.prepare(sql).iterate(...bind(parameters)),
      };
    },
  };
}

/** Runs one read-only statement to its end, synchronously. */
export type SqliteReader = (sql: string, parameters: readonly unknown[]) => unknown[];

/**
 * A second, read-only connection to the same file, for the hottest reads (the desktop protocol's
 * license lookup) while a transaction holds the main connection (database.ts, committedReader). In
 * WAL mode it reads the last committed state: never a transaction's uncommitted writes, which the
 * main connection would show to any query that ran between that transaction's steps.
 */
export function openSqliteReader(file: string): { read: SqliteReader; close(): void } {
  const raw = new DatabaseSync(file, { readOnly: true });
  raw.exec(PRAGMAS);
  const cached = statementCache((sql) => raw.prepare(sql));
  return {
    read: (sql, parameters) => cached(sql).all(...parameters.map(toSqliteValue)),
    close: () => raw.close(),
  };
}
