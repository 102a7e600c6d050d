/**
 * The server's metrics in the Prometheus text format (`GET /metrics`), through prom-client.
 *
 * Process metrics (CPU, memory, event-loop lag, GC) belong to the process and are registered once
 * per process; everything else belongs to one app instance (tests build many in one process), in
 * its own registry. Values that live in the database (outbox backlogs) are read when scraped.
 */
import fs from 'node:fs';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../db/database.ts';

const PREFIX = 'license_manager_';

let processRegistry: Registry | undefined;

function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    // Event-loop lag is sampled every 10 ms (nodejs_eventloop_lag_*), besides CPU, memory and GC.
    collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: 10 });
  }
  return processRegistry;
}

/** What an outbox (mails; later other deliveries) holds: unsent messages and the age of the oldest. */
export interface OutboxBacklog {
  pending: number;
  /** Given up after all retries, kept as a record. */
  failed: number;
  /** ISO time the oldest unsent message was queued; null when none waits. */
  oldestPendingSince: string | null;
}

export type OutboxSource = () => Promise<OutboxBacklog>;

export interface MetricsOptions {
  database: Pick<Database, 'dialect' | 'poolUsage' | 'replicas'>;
  /** A query that fails when the database does not answer. */
  probe: () => Promise<unknown>;
  /** The SQLite file, for its size and its write-ahead log's. */
  sqliteFile?: string;
  version: string;
}

export class Metrics {
  private readonly registry = new Registry();
  private readonly outboxes = new Map<string, OutboxSource>();
  private readonly options: MetricsOptions;

  readonly httpRequestDuration = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'HTTP requests by method, route pattern and status code, with their duration',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly protocolResponses = new Counter({
    name: `${PREFIX}protocol_responses_total`,
    help: "Answers of the desktop-software protocol by operation and outcome: the status of a success (200, 204, 304) or the error code of a refusal",
    labelNames: ['operation', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly outboxMessages = new Gauge({
    name: `${PREFIX}outbox_messages`,
    help: 'Messages in an outbox: pending (waiting to be delivered) or failed (given up)',
    labelNames: ['outbox', 'state'] as const,
    registers: [this.registry],
  });

  private readonly outboxOldestAge = new Gauge({
    name: `${PREFIX}outbox_oldest_pending_age_seconds`,
    help: 'How long the oldest pending message of an outbox has waited (0 when none waits)',
    labelNames: ['outbox'] as const,
    registers: [this.registry],
  });

  private readonly databaseUp = new Gauge({
    name: `${PREFIX}database_up`,
    help: 'Whether the database answered at the last scrape (1) or not (0)',
    registers: [this.registry],
  });

  private readonly pool = {
    max: this.poolGauge('max', 'The most database connections the pool opens (1 for SQLite: one connection serves every query in turn)'),
    total: this.poolGauge('total', 'Database connections open, idle or busy'),
    idle: this.poolGauge('idle', 'Open database connections not in use'),
    waiting: this.poolGauge('waiting', 'Queries and transactions waiting for a database connection'),
    lockWaiting: this.poolGauge('lock_waiting', "SQLite: statements waiting for another process's write lock (a second server, the CLI, a sqlite3 shell)"),
  };

  private readonly poolWaitTimeouts = new Counter({
    name: `${PREFIX}db_pool_wait_timeouts_total`,
    help: 'Requests that gave up waiting for a database connection, every one busy (answered 503 ERR_DATABASE_BUSY): raise DATABASE_POOL_SIZE or add capacity',
    registers: [this.registry],
  });
  private poolWaitTimeoutsSeen = 0;

  private readonly sqliteFileBytes = new Gauge({
    name: `${PREFIX}sqlite_file_bytes`,
    help: 'Size of the SQLite database file and of its write-ahead log',
    labelNames: ['file'] as const,
    registers: [this.registry],
  });

  constructor(options: MetricsOptions) {
    this.options = options;
    processMetrics();
    new Gauge({
      name: `${PREFIX}info`,
      help: 'The running version and its database kind',
      labelNames: ['version', 'database'] as const,
      registers: [this.registry],
    }).set({ version: options.version, database: options.database.dialect }, 1);
  }

  private readonly replicaReads = new Gauge({
    name: `${PREFIX}db_reads_total`,
    help: 'Plain reads (SELECT outside a transaction) by the database that answered them: "primary" or a read replica\'s host:port/database. Only with DATABASE_READ_URL',
    labelNames: ['database'] as const,
    registers: [this.registry],
  });

  private readonly replicaLag = new Gauge({
    name: `${PREFIX}db_replica_lag_seconds`,
    help: "How far a read replica's replay was behind the primary at the last look (-1: it did not answer)",
    labelNames: ['replica'] as const,
    registers: [this.registry],
  });

  private readonly replicaUsable = new Gauge({
    name: `${PREFIX}db_replica_usable`,
    help: 'Whether a read replica serves reads (1) or not (0: down, promoted, or lagging past READ_REPLICA_MAX_LAG_MS)',
    labelNames: ['replica'] as const,
    registers: [this.registry],
  });

  private poolGauge(name: string, help: string): Gauge {
    return new Gauge({ name: `${PREFIX}db_pool_${name}`, help, registers: [this.registry] });
  }

  /** Announces an outbox; its backlog is read at every scrape. */
  addOutbox(name: string, source: OutboxSource): void {
    this.outboxes.set(name, source);
  }

  /** Starts the series of outcomes that are expected, at 0, so that rates and alerts see them before the first one. */
  expectProtocolOutcomes(operation: string, outcomes: readonly string[]): void {
    for (const outcome of outcomes) this.protocolResponses.inc({ operation, outcome }, 0);
  }

  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;

  /** Everything, in the Prometheus text format. */
  async render(now = new Date()): Promise<string> {
    await this.readState(now);
    return `${await processMetrics().metrics()}\n${await this.registry.metrics()}`;
  }

  private async readState(now: Date): Promise<void> {
    // The connections as the scrape finds them, before its own queries wait for one.
    const usage = this.options.database.poolUsage();
    this.pool.max.set(usage.max);
    this.pool.total.set(usage.total);
    this.pool.idle.set(usage.idle);
    this.pool.waiting.set(usage.waiting);
    this.pool.lockWaiting.set(usage.lockWaiting);
    const { replicas } = this.options.database;
    if (replicas) {
      this.replicaReads.set({ database: 'primary' }, replicas.primaryReads);
      for (const replica of replicas.states) {
        this.replicaReads.set({ database: replica.name }, replica.reads);
        this.replicaLag.set({ replica: replica.name }, replica.lagMs === null ? -1 : replica.lagMs / 1000);
        this.replicaUsable.set({ replica: replica.name }, replica.usable ? 1 : 0);
      }
    }
    this.poolWaitTimeouts.inc(Math.max(0, usage.waitTimeouts - this.poolWaitTimeoutsSeen));
    this.poolWaitTimeoutsSeen = usage.waitTimeouts;
    const file = this.options.sqliteFile;
    if (file) {
      this.sqliteFileBytes.set({ file: 'database' }, fileSize(file));
      this.sqliteFileBytes.set({ file: 'wal' }, fileSize(`${file}-wal`));
    }
    const up = await answersWithin(this.options.probe, PROBE_TIMEOUT_MS);
    this.databaseUp.set(up ? 1 : 0);
    if (!up) return;
    for (const [outbox, source] of this.outboxes) {
      try {
        const backlog = await source();
        this.outboxMessages.set({ outbox, state: 'pending' }, backlog.pending);
        this.outboxMessages.set({ outbox, state: 'failed' }, backlog.failed);
        const oldest = backlog.oldestPendingSince ? Date.parse(backlog.oldestPendingSince) : null;
        this.outboxOldestAge.set({ outbox }, oldest === null ? 0 : Math.max(0, (now.getTime() - oldest) / 1000));
      } catch {
        // Its values stay as last read; database_up tells whether the database answers at all.
      }
    }
  }
}

/** A scrape does not hang on a database that does not answer: Prometheus would see nothing at all. */
const PROBE_TIMEOUT_MS = 5000;

function answersWithin(probe: () => Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([probe().then(() => true, () => false), timeout]).finally(() => clearTimeout(timer));
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}
