import pg from 'pg';
import { PostgresDriver } from 'kysely';
import { runEvery } from '../jobs/run-every.ts';

/**
 * The read replicas of DATABASE_READ_URL (DESIGN.md section 9): a pool and a Kysely driver each, and
 * what the last look at them found. Every `REPLICA_CHECK_INTERVAL_MS` each replica is asked how far
 * its replay is behind the primary's write position; one that is down, promoted (no longer in
 * recovery, so no longer following the primary) or lagging past READ_REPLICA_MAX_LAG_MS serves no
 * read until a later look finds it back. A read that fails on a replica is run again on the primary
 * (replica-driver.ts), so that a replica going away fails no request.
 */

export const REPLICA_CHECK_INTERVAL_MS = 1000;
const CONNECT_TIMEOUT_MS = 3000;
const POOL_SIZE = 20;

export interface ReplicaState {
  /** The replica's host, port and database: its URL without credentials (logs and metrics show it). */
  name: string;
  /** Whether it serves reads now. */
  usable: boolean;
  /** How far its replay was behind the primary at the last look, in ms (null: not known, it did not answer). */
  lagMs: number | null;
  /** Why it serves no reads, for the log: down, promoted or lagging. */
  reason: string | null;
  /** Reads it answered since the start. */
  reads: number;
}

export interface ReplicaOptions {
  urls: string[];
  /** The schema the primary's connections use (tests): replicas follow the same search_path. */
  schema?: string;
  maxLagMs: number;
  log: { warn(object: object, message: string): void; info(object: object, message: string): void };
}

export interface Replica extends ReplicaState {
  pool: pg.Pool;
  driver: PostgresDriver;
}

/** A URL's host, port and database, without user or password. */
export function replicaName(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'a replica URL that is not a URL';
  }
}

/** PostgreSQL's codes for a login refused: wrong password, unknown user or database, no pg_hba entry. */
const REFUSED_LOGIN = new Set(['28P01', '28000', '3D000']);

export class ReplicaStartError extends Error {}

export class ReplicaSet {
  private readonly replicas: Replica[];
  private next = 0;
  private stopLooking: (() => void) | undefined;
  /** Reads the primary answered that a replica could have taken (none usable, a retry, read-your-writes). */
  primaryReads = 0;

  private readonly primary: pg.Pool;
  private readonly options: ReplicaOptions;

  constructor(primary: pg.Pool, options: ReplicaOptions) {
    this.primary = primary;
    this.options = options;
    this.replicas = options.urls.map((url) => {
      const pool = new pg.Pool({
        connectionString: url,
        max: POOL_SIZE,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        idleTimeoutMillis: 5 * 60_000,
        keepAlive: true,
        ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
      });
      const onError = (error: Error) => this.markDown(replica, error);
      pool.on('error', onError);
      pool.on('connect', (connection) => connection.on('error', onError));
      const replica: Replica = { name: replicaName(url), pool, driver: new PostgresDriver({ pool }), usable: false, lagMs: null, reason: 'not checked yet', reads: 0 };
      return replica;
    });
  }

  /**
   * Looks at every replica once before the app serves, then keeps looking. A replica that refuses
   * the login stops the start with its name (a wrong password in DATABASE_READ_URL is a setting to
   * fix, not an outage); one that is merely down is skipped until it answers.
   */
  async start(): Promise<void> {
    await Promise.all(this.replicas.map((replica) => replica.driver.init()));
    await this.checkAll(true);
    // One look at a time: a look at a replica that does not answer holds a connection for seconds.
    this.stopLooking = runEvery(REPLICA_CHECK_INTERVAL_MS, () => this.checkAll(false));
  }

  get states(): readonly ReplicaState[] {
    return this.replicas;
  }

  /** A replica for one read, in turn among the usable ones; undefined sends the read to the primary. */
  pick(): Replica | undefined {
    for (let tried = 0; tried < this.replicas.length; tried++) {
      const replica = this.replicas[this.next++ % this.replicas.length];
      if (replica.usable) return replica;
    }
    return undefined;
  }

  /** A read on the replica failed because it is unreachable: it serves none until a look finds it back. */
  markDown(replica: Replica, error: Error): void {
    if (replica.usable) this.options.log.warn({ replica: replica.name, err: error }, 'read replica unavailable; its reads go to the primary');
    replica.usable = false;
    replica.lagMs = null;
    replica.reason = 'down';
  }

  async close(): Promise<void> {
    this.stopLooking?.();
    await Promise.all(this.replicas.map((replica) => replica.driver.destroy()));
  }

  private async checkAll(atStart: boolean): Promise<void> {
    let primaryPosition: string;
    try {
      primaryPosition = (await this.primary.query<{ position: string }>('select pg_current_wal_lsn()::text as position')).rows[0].position;
    } catch {
      return; // The primary is away: nothing to measure against; the replicas keep their last state.
    }
    await Promise.all(this.replicas.map((replica) => this.check(replica, primaryPosition, atStart)));
  }

  private async check(replica: Replica, primaryPosition: string, atStart: boolean): Promise<void> {
    const wasUsable = replica.usable;
    try {
      const { rows } = await replica.pool.query<{ recovering: boolean; caught_up: boolean; lag_ms: number | null }>(
        `select pg_is_in_recovery() as recovering,
                coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) as caught_up,
                extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000 as lag_ms`,
        [primaryPosition],
      );
      const [{ recovering, caught_up: caughtUp, lag_ms: lagMs }] = rows;
      // Replayed up to where the primary stood when this look began: behind by less than the look took.
      replica.lagMs = caughtUp ? 0 : Math.max(0, Math.round(lagMs ?? Number.POSITIVE_INFINITY));
      replica.reason = !recovering ? 'promoted' : replica.lagMs > this.options.maxLagMs ? 'lagging' : null;
      replica.usable = replica.reason === null;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (atStart && code && REFUSED_LOGIN.has(code)) {
        throw new ReplicaStartError(`DATABASE_READ_URL: the read replica ${replica.name} refused the login (${(error as Error).message})`);
      }
      replica.usable = false;
      replica.lagMs = null;
      replica.reason = 'down';
    }
    if (replica.usable !== wasUsable || atStart) {
      const details = { replica: replica.name, lagMs: replica.lagMs, reason: replica.reason };
      if (replica.usable) this.options.log.info(details, 'read replica serves reads');
      else this.options.log.warn(details, 'read replica serves no reads; they go to the primary');
    }
  }
}

