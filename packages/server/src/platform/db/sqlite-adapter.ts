import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { SQLITE_AUTOCHECKPOINT_PAGES } from './sqlite-checkpoints.ts';

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

/**
 * SQLite waits for a lock inside the synchronous call, which stops the whole server: a few
 * milliseconds at most here. Statements that need the write lock wait for it asynchronously instead
 * (sqlite-dialect.ts); reads in WAL mode need none.
 */
const BUSY_TIMEOUT_MS = 5;
const PRAGMAS = `PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA cache_size = -65536; PRAGMA mmap_size = 1073741824;`;

/**
 * Reads of one turn of the event loop in one read transaction. Outside a transaction every statement
 * takes and drops the database's shared lock and the WAL's read mark (system calls): a lookup by
 * machine id cost 12 µs so, and 4 µs inside an open read transaction (measured on the bench data).
 * Under load the desktop protocol's lookups of a turn share one; it ends when the turn does (so no
 * lock outlasts it, and a checkpoint waits at most that long), before any other statement on the
 * connection, and when `version` says that the database changed since it began. A read inside it
 * sees the database as at the turn's first read: what a request that came a moment earlier saw.
 */
class SharedReadSnapshot {
  private open = false;
  private openedAt = 0;
  private readonly raw: DatabaseSync;
  private readonly version: () => number;

  constructor(raw: DatabaseSync, version: () => number = () => 0) {
    this.raw = raw;
    this.version = version;
  }

  get held(): boolean {
    return this.open;
  }

  read<T>(run: () => T): T {
    if (this.open && this.version() !== this.openedAt) this.end();
    if (!this.open) {
      this.raw.exec('BEGIN');
      this.open = true;
      this.openedAt = this.version();
      setImmediate(this.end);
    }
    return run();
  }

  readonly end = (): void => {
    if (!this.open) return;
    this.open = false;
    // An error inside it (an I/O error, no memory) may have rolled it back already; a COMMIT then
    // would throw, from the turn's end where nothing catches it.
    if (this.raw.isOpen && this.raw.isTransaction) this.raw.exec('COMMIT');
  };
}

/**
 * Presents node:sqlite's synchronous DatabaseSync with the interface Kysely's SqliteDialect drives.
 * Prepared statements are reused by SQL text. The page cache and memory-mapped reads keep a large database's hot pages out of read() system calls.
 * `read` runs in the turn's shared read snapshot; every other statement ends it before it runs, so it
 * never holds back the connection's own writes or hides them from a later read. `statements` counts
 * the statements of Kysely's queries (writes among them), for the reader connection's snapshots.
 */
export function openSqlite(
  file: string,
  onReopen: () => void = () => {},
): SqliteDatabase & { readonly raw: DatabaseSync; read: SqliteReader; inTransaction(): boolean; statements(): number; setWalAutoCheckpoint(pages: number): void } {
  // SQLite's checkpoint on commit; 0 while a thread checkpoints instead (sqlite-checkpoints.ts).
  let autoCheckpointPages = SQLITE_AUTOCHECKPOINT_PAGES;
  const connect = () => {
    const raw = new DatabaseSync(file);
    // A WAL started afresh is cut back to 64 MB: what a burst of writes made it stays on disk otherwise.
    raw.exec(
      `PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; ${PRAGMAS} PRAGMA wal_autocheckpoint = ${autoCheckpointPages}; PRAGMA journal_size_limit = 67108864;`,
    );
    // Not a replacement of lower(): the indexes on lower(…) hold its ASCII-only folding (search.ts).
    raw.function(SQLITE_LOWER_UNICODE, { deterministic: true }, (value) => (typeof value === 'string' ? value.toLowerCase() : value));
    const cached = statementCache((sql) => {
      const statement = raw.prepare(sql);
      return { statement, reader: statement.columns().length > 0 };
    });
    return { raw, cached, snapshot: new SharedReadSnapshot(raw) };
  };
  let connection = connect();
  // SQLite opens a file it may not write read-only, silently, and the connection stays so: after a
  // write refused for that (a read-only mount, a file of another user), the next statement outside a
  // transaction opens the file anew once it may be written, so that writes work again once the operator has fixed it. The
  // process's other connections to the file close first (onReopen): SQLite shares one mapping of the
  // WAL index among them, opened read-only then, which would keep the new connection read-only too.
  let reopen = false;
  const bind = (parameters: ReadonlyArray<unknown>) => parameters.map(toSqliteValue);
  let statements = 0;
  const alone = <T>(run: () => T): T => {
    connection.snapshot.end();
    statements++;
    if (reopen && !connection.raw.isTransaction && writable(file)) {
      reopen = false;
      connection.raw.close();
      onReopen();
      connection = connect();
    }
    try {
      return run();
    } catch (error) {
      if (((error as { errcode?: number }).errcode ?? 0) % 256 === SQLITE_READONLY) reopen = true;
      throw error;
    }
  };
  return {
    get raw() {
      return connection.raw;
    },
    read: (sql, parameters) => connection.snapshot.read(() => connection.cached(sql).statement.all(...bind(parameters))),
    inTransaction: () => connection.raw.isTransaction && !connection.snapshot.held,
    statements: () => statements,
    setWalAutoCheckpoint: (pages) => {
      autoCheckpointPages = pages;
      if (connection.raw.isOpen) connection.raw.exec(`PRAGMA wal_autocheckpoint = ${Math.trunc(pages)}`);
    },
    close: () => {
      connection.snapshot.end();
      connection.raw.close();
    },
    prepare(sql: string): SqliteStatement {
      // Transactions take the write lock when they begin: a deferred one that reads first and writes
      // later fails with SQLITE_BUSY when another process (a second server, the CLI) wrote meanwhile;
      // an immediate one that finds the lock taken is tried again (sqlite-dialect.ts). One process alone sees no change.
      const text = sql === 'begin' ? 'begin immediate' : sql;
      // Looked up again when it runs only if the connection was opened anew since (a read-only fault).
      const opened = connection;
      const entry = opened.cached(text);
      const statement = () => (connection === opened ? entry : connection.cached(text)).statement;
      return {
        reader: entry.reader,
        all: (parameters) => alone(() => statement().all(...bind(parameters))),
        run: (parameters) => alone(() => statement().run(...bind(parameters))),
        // A stream may still be open when the same SQL runs again: it gets a statement of its own.
        iterate: (parameters) => alone(() => connection.raw.prepare(sql).iterate(...bind(parameters))),
      };
    },
  };
}

/** Whether this process may write the file and its folder (for the WAL files) now; a read-only mount refuses even root. */
function writable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.W_OK);
    fs.accessSync(path.dirname(file), fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** SQLite's primary result code of a write to a connection that may only read. */
const SQLITE_READONLY = 8;

/** Runs one read-only statement to its end, synchronously. */
export type SqliteReader = (sql: string, parameters: readonly unknown[]) => unknown[];

/**
 * A second, read-only connection to the same file, for the hottest reads (the desktop protocol's
 * license lookup) while a transaction holds the main connection (database.ts, committedReader). In
 * WAL mode it reads the last committed state: never a transaction's uncommitted writes, which the
 * main connection would show to any query that ran between that transaction's steps. Its reads share
 * a turn's snapshot as the main connection's do, a new one after any statement on the main connection.
 */
export function openSqliteReader(file: string, mainStatements: () => number): { read: SqliteReader; close(): void } {
  const connect = () => {
    const raw = new DatabaseSync(file, { readOnly: true });
    raw.exec(PRAGMAS);
    // A statement on the main connection may have been a commit: a snapshot from before it is not the last committed state.
    return { raw, cached: statementCache((sql) => raw.prepare(sql)), snapshot: new SharedReadSnapshot(raw, mainStatements) };
  };
  let connection: ReturnType<typeof connect> | undefined = connect();
  return {
    read: (sql, parameters) => {
      connection ??= connect();
      const { cached, snapshot } = connection;
      return snapshot.read(() => cached(sql).all(...parameters.map(toSqliteValue)));
    },
    // Also when the main connection opens the file anew (openSqlite): the next read opens it again.
    close: () => {
      connection?.snapshot.end();
      connection?.raw.close();
      connection = undefined;
    },
  };
}
