import { CompiledQuery, SqliteAdapter, SqliteDialect, type DatabaseConnection, type DialectAdapter, type Driver, type QueryResult } from 'kysely';
import { AppError } from '../http/errors.ts';

/**
 * How long a statement waits for another process's write lock (a second server on the file, the CLI,
 * a `sqlite3` shell left in a transaction) before it is answered `503 ERR_DATABASE_BUSY`.
 */
export const LOCK_WAIT_LIMIT_MS = 15_000;
const FIRST_RETRY_MS = 5;
const LONGEST_RETRY_MS = 200;

export const databaseBusy = () =>
  new AppError(503, 'ERR_DATABASE_BUSY', 'The database is locked by another program for longer than the server waits; please try again in a moment');

/** SQLITE_BUSY (5) and its extended codes: another connection holds the lock this statement needs. */
export function isSqliteBusy(error: unknown): boolean {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  return code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' && (errcode & 0xff) === 5;
}

/** Tells Kysely that it need not serialize the connection: CountedSqliteDialect's driver does. */
class SelfSerializedSqliteAdapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

/** Turns at the one connection, in order; a holder can give its turn back and queue again. */
class ConnectionQueue {
  readonly usage = { busy: 0, waiting: 0, lockWaiting: 0 };
  private queueEnd = Promise.resolve();
  private unlock: (() => void) | undefined;

  async take(): Promise<void> {
    const turn = this.queueEnd;
    let done!: () => void;
    this.queueEnd = new Promise<void>((resolve) => (done = resolve));
    this.usage.waiting++;
    await turn;
    this.usage.waiting--;
    this.usage.busy++;
    this.unlock = done;
  }

  give(): void {
    this.usage.busy--;
    const next = this.unlock;
    this.unlock = undefined;
    next?.();
  }
}

export interface SqliteConnectionState {
  /** A transaction of Kysely's is open on the connection (not the turn's shared read snapshot). */
  inTransaction(): boolean;
}

/**
 * SQLite's one connection, lent to one query or transaction at a time, the others queued in order.
 * Kysely would queue them itself, inside its runtime, where nothing can count them; the queue is what
 * saturation looks like on the embedded database (/metrics), so the driver queues and counts here.
 *
 * Waiting for another process's write lock: SQLite's own wait (busy_timeout) sleeps inside the
 * synchronous call and so stops the whole server; a lock held for 12 s froze every request, also
 * those that read no database. The connection's busy_timeout is a few milliseconds
 * (sqlite-adapter.ts), and a statement that finds the database locked outside a transaction (a
 * transaction's BEGIN IMMEDIATE, a single write) gives its turn back, waits asynchronously with a
 * growing pause and queues again: reads, /api/health and everything else are served meanwhile. Past
 * LOCK_WAIT_LIMIT_MS it is answered 503 ERR_DATABASE_BUSY. Inside a transaction the write lock is
 * already held, so nothing there waits for it.
 *
 * A transaction that SQLite has rolled back itself (a full disk, an I/O error) is not rolled back
 * again: "cannot rollback - no transaction is active" would hide the error that says what happened.
 */
export class CountedSqliteDialect extends SqliteDialect {
  private readonly queue = new ConnectionQueue();
  readonly usage = this.queue.usage;
  private readonly state: SqliteConnectionState;
  private readonly lockWaitLimitMs: number;

  constructor(config: ConstructorParameters<typeof SqliteDialect>[0], state: SqliteConnectionState, lockWaitLimitMs = LOCK_WAIT_LIMIT_MS) {
    super(config);
    this.state = state;
    this.lockWaitLimitMs = lockWaitLimitMs;
  }

  override createAdapter(): DialectAdapter {
    return new SelfSerializedSqliteAdapter();
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    const acquire = driver.acquireConnection.bind(driver);
    const release = driver.releaseConnection.bind(driver);
    const rollback = driver.rollbackTransaction.bind(driver);
    const waiting = new WeakSet<DatabaseConnection>();
    driver.acquireConnection = async () => {
      await this.queue.take();
      const connection = await acquire();
      if (!waiting.has(connection)) {
        waiting.add(connection);
        this.waitForLocks(connection);
      }
      return connection;
    };
    driver.releaseConnection = async (connection: DatabaseConnection) => {
      await release(connection);
      this.queue.give();
    };
    driver.rollbackTransaction = async (connection: DatabaseConnection) => {
      if (this.state.inTransaction()) await rollback(connection);
    };
    return driver;
  }

  private waitForLocks(connection: DatabaseConnection): void {
    const execute = connection.executeQuery.bind(connection) as (query: CompiledQuery) => Promise<QueryResult<unknown>>;
    connection.executeQuery = (async (query: CompiledQuery) => {
      const started = Date.now();
      let waited = false;
      try {
        for (let pause = FIRST_RETRY_MS; ; pause = Math.min(pause * 2, LONGEST_RETRY_MS)) {
          try {
            return await execute(query);
          } catch (error) {
            if (!isSqliteBusy(error) || this.state.inTransaction()) throw error;
            if (Date.now() - started >= this.lockWaitLimitMs) throw databaseBusy();
            if (!waited) this.usage.lockWaiting++;
            waited = true;
            this.queue.give();
            await new Promise((resolve) => setTimeout(resolve, pause));
            await this.queue.take();
          }
        }
      } finally {
        if (waited) this.usage.lockWaiting--;
      }
    }) as DatabaseConnection['executeQuery'];
  }
}
