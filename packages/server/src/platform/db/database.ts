import path from 'node:path';
import { Kysely, PostgresAdapter, PostgresDialect, PostgresDriver, PostgresIntrospector, PostgresQueryCompiler, type LogConfig, type Transaction } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import { ColumnNameGuard } from './column-name-guard.ts';
import { ReplicaRoutingDriver } from './replica-driver.ts';
import { ReplicaSet } from './replicas.ts';
import { createPrivateFile, makePrivateDir } from '../private-files.ts';
import { openSqlite, openSqliteReader, type SqliteReader } from './sqlite-adapter.ts';
import { CountedSqliteDialect } from './sqlite-dialect.ts';
import { checkpointThread, SQLITE_AUTOCHECKPOINT_PAGES, type CheckpointRegistration } from './sqlite-checkpoints.ts';
import type { DB } from './schema.ts';

// PostgreSQL answers counts and sums as strings (int8, numeric); the repos want numbers on both databases.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));
pg.types.setTypeParser(1700, (value) => Number.parseFloat(value));

export type Dialect = 'sqlite' | 'postgres';

/** How busy the connections are, for /metrics. */
export interface PoolUsage {
  /** The most connections the pool opens. */
  max: number;
  /** Connections open now (idle or busy). */
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
  /** SQLite: statements waiting for another process's write lock (sqlite-dialect.ts); 0 on PostgreSQL. */
  lockWaiting: number;
  /** PostgreSQL: requests that gave up waiting for a connection, every one busy (so far; a counter). */
  waitTimeouts: number;
}

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  poolUsage(): PoolUsage;
  /** The read replicas (DATABASE_READ_URL), started by buildApp before it serves; none without. */
  replicas?: ReplicaSet;
  close(): Promise<void>;
}

export type Executor = Kysely<DB> | Transaction<DB>;

/** DATABASE_POOL_SIZE's default: PostgreSQL connections per instance. */
export const POSTGRES_POOL_SIZE = 20;
const CONNECT_TIMEOUT_MS = 5000;
/**
 * A new connection costs a request 13–19 ms to connect, and its first query of each table another
 * 2–8 ms while PostgreSQL loads the table's and its indexes' descriptions (measured on the bench
 * data): with pg's default of 10 s, a person who paused to read a page paid that again on the next
 * click. Connections stay while the app is in use.
 */
const IDLE_TIMEOUT_MS = 5 * 60_000;
const plugins = [new ColumnNameGuard()];

export interface OpenOptions {
  /** Told of every statement that ran (benchmarks explain the plans of the statements a request ran). */
  onQuery?: (query: { sql: string; parameters: readonly unknown[] }) => void;
  /** Told of a connection the database ended (a restart, a failover, pg_terminate_backend). */
  onConnectionError?: (error: Error) => void;
  /** Told of a read replica's change of state (replicas.ts). */
  log?: ConstructorParameters<typeof ReplicaSet>[1]['log'];
  /** SQLite: how long a statement waits for another process's write lock (LOCK_WAIT_LIMIT_MS; tests shorten it). */
  lockWaitLimitMs?: number;
  /** PostgreSQL: how long a request waits to connect or for a free connection (tests shorten it). */
  connectTimeoutMs?: number;
}

/** pg-pool's error when a request's wait for a connection ran out (every connection taken: in use, or still being opened). */
export const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

/**
 * A wait for a connection that ran out while connections to the database were still being opened:
 * the database is slow to accept them or cannot be reached (class 08: answered 503
 * ERR_DATABASE_UNAVAILABLE), not busy. pg-pool gives both waits the same error.
 */
function stillConnecting(waitTimeout: Error): Error {
  return Object.assign(new Error('no connection to the database: the connections being opened did not open in time', { cause: waitTimeout }), { code: '08001' });
}

/**
 * Tells the waits for a connection that ran out apart: every connection busy (counted, for
 * `license_manager_db_pool_wait_timeouts_total`, and answered 503 ERR_DATABASE_BUSY), or some still
 * being opened (stillConnecting). The connections that opened are known by pg-pool's events; those
 * it holds beyond them are still opening.
 */
function watchPoolWaits(pool: pg.Pool): () => number {
  const open = new Set<unknown>();
  pool.on('connect', (client) => open.add(client));
  pool.on('remove', (client) => open.delete(client));
  let timeouts = 0;
  const classify = (error: Error | undefined): Error | undefined => {
    if (error?.message !== POOL_WAIT_TIMEOUT) return error;
    if (pool.totalCount > open.size) return stillConnecting(error);
    timeouts++;
    return error;
  };
  const connect = pool.connect.bind(pool) as (callback?: (error: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void) => Promise<pg.PoolClient> | void;
  // Both of pg's forms: the promise (Kysely) and the callback, which pool.query() uses itself (the
  // replicas' position check): a wrapper taking only the first left pool.query() waiting forever.
  pool.connect = ((callback?: Parameters<typeof connect>[0]) => {
    if (callback) return connect((error, client, done) => callback(classify(error), client, done));
    return (connect() as Promise<pg.PoolClient>).catch((error: unknown) => {
      throw error instanceof Error ? classify(error) : error;
    });
  }) as typeof pool.connect;
  return () => timeouts;
}

/**
 * Opens the database. On PostgreSQL a connection the server ends must not end the process: pg emits
 * 'error' on the client (while a query runs) or on the pool (while idle), and an 'error' event nobody
 * listens to is thrown. Both get a listener; the broken connection is dropped and the next request
 * gets a fresh one, so the app serves again as soon as the database is back. Connecting gives up
 * after a few seconds, so that a request answers 503 instead of hanging while it is away.
 */
function queryLog(options: OpenOptions): LogConfig | undefined {
  const { onQuery } = options;
  return onQuery && ((event) => onQuery({ sql: event.query.sql, parameters: event.query.parameters }));
}

export function openDatabase(config: Config['database'], options: OpenOptions = {}): Database {
  if (config.kind === 'postgres') {
    const pool = new pg.Pool({
      connectionString: config.url,
      max: config.poolSize ?? POSTGRES_POOL_SIZE,
      connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      idleTimeoutMillis: IDLE_TIMEOUT_MS,
      keepAlive: true,
      ...(config.schema ? { options: `-c search_path=${config.schema}` } : {}),
    });
    const onError = (error: Error) => options.onConnectionError?.(error);
    pool.on('error', onError);
    pool.on('connect', (connection) => connection.on('error', onError));
    const waitTimeouts = watchPoolWaits(pool);
    const replicas = config.replicas && new ReplicaSet(pool, { urls: config.replicas.urls, schema: config.schema, maxLagMs: config.replicas.maxLagMs, log: options.log ?? console });
    // With replicas, PostgreSQL's own dialect with a driver that sends some reads to them (replica-driver.ts).
    const dialect = replicas
      ? {
          createAdapter: () => new PostgresAdapter(),
          createDriver: () => new ReplicaRoutingDriver(new PostgresDriver({ pool }), replicas),
          createIntrospector: (db: Kysely<any>) => new PostgresIntrospector(db),
          createQueryCompiler: () => new PostgresQueryCompiler(),
        }
      : new PostgresDialect({ pool });
    const db = new Kysely<DB>({ dialect, plugins, log: queryLog(options) });
    return {
      db,
      dialect: 'postgres',
      replicas,
      poolUsage: () => ({ max: pool.options.max, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, lockWaiting: 0, waitTimeouts: waitTimeouts() }),
      close: () => db.destroy(),
    };
  }
  if (config.file !== ':memory:') {
    makePrivateDir(path.dirname(config.file));
    createPrivateFile(config.file);
  }
  const connection = openSqlite(config.file, () => reader?.close());
  // A memory database has no second connection: while a transaction holds the main one, its reads queue.
  const reader = config.file === ':memory:' ? undefined : openSqliteReader(config.file, connection.statements);
  const dialect = new CountedSqliteDialect({ database: connection }, connection, options.lockWaitLimitMs);
  const db = new Kysely<DB>({ dialect, plugins, log: queryLog(options) });
  const checkpoints = config.file === ':memory:' ? undefined : checkpointInThread(config.file, connection, options.log);
  const logged = (read: SqliteReader): SqliteReader => {
    const { onQuery } = options;
    return onQuery ? (sql, parameters) => (onQuery({ sql, parameters }), read(sql, parameters)) : read;
  };
  const [onMain, onReader] = [logged(connection.read), reader && logged(reader.read)];
  // The main connection whenever no transaction holds it. SQLite drops a connection's page cache and
  // memory map each time another connection commits: with the protocol's seat renewals and last-seen
  // times written on the main connection, a lookup on the second one cost 25 µs (one commit in 10,000
  // lookups) to 45 µs (one in 1,000) against 12 µs on the main one, whose own commits keep both.
  committedReaders.set(db, () => (dialect.usage.busy === 0 && !connection.inTransaction() ? onMain : onReader));
  return {
    db,
    dialect: 'sqlite',
    poolUsage: () => ({ max: 1, total: 1, idle: 1 - dialect.usage.busy, waiting: dialect.usage.waiting, lockWaiting: dialect.usage.lockWaiting, waitTimeouts: 0 }),
    close: async () => {
      // The thread's connection first, so that nothing holds the file once close() is done. The
      // read-only one before the app's: the last connection to close copies the WAL into the database
      // file and removes it, which one that may only read cannot do, and a WAL left behind held
      // commits that a copy of the database file alone (an operator's backup of a stopped server) lacked.
      await checkpoints?.release();
      reader?.close();
      await db.destroy();
      reader?.close();
    },
  };
}

/** The main connection's checkpoints done by the checkpoint thread (sqlite-checkpoints.ts), and by itself again should the thread fail. */
function checkpointInThread(file: string, connection: ReturnType<typeof openSqlite>, log: OpenOptions['log']): CheckpointRegistration {
  connection.setWalAutoCheckpoint(0);
  return checkpointThread.register(file, {
    onThreadLost: (error) => {
      log?.warn({ err: error }, 'the SQLite checkpoint thread is gone; the database connection checkpoints itself again');
      connection.setWalAutoCheckpoint(SQLITE_AUTOCHECKPOINT_PAGES);
    },
    onFailure: (message) => log?.warn({ file, reason: message }, 'SQLite WAL checkpoint failed; it is tried again until it succeeds'),
  });
}

const committedReaders = new WeakMap<Executor, () => SqliteReader | undefined>();

/**
 * A synchronous read of the last committed state on the embedded database, without a turn of the
 * connection's queue: on the main connection while no transaction holds it, else on the read-only
 * one (sqlite-adapter.ts). Only for the database itself, never inside a transaction (whose reads must
 * see its own writes), and not on PostgreSQL, whose pool already reads without a queue. Undefined
 * when the read must take its turn (a memory database in a transaction; PostgreSQL).
 */
export function committedReader(db: Executor): SqliteReader | undefined {
  return committedReaders.get(db)?.();
}

export function nowIso(): string {
  return new Date().toISOString();
}
