import type { AppContext } from '../../platform/context.ts';
import { isDatabaseUnavailable } from '../../platform/db/dialect.ts';

const FLUSH_INTERVAL_MS = 5_000;
const FLUSH_SIZE = 5_000;
/** Rows per statement or transaction: large enough to share page writes, small enough not to stall other requests. */
const CHUNK = 500;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

export interface WriteBehindOptions<Row> {
  /** What is written, for the log ("last-seen"). */
  what: string;
  /** Rows with the same key replace each other while they wait: `merge` says which survives. */
  keyOf(row: Row): string;
  merge?(waiting: Row, next: Row): Row;
  /** The order rows are written in, so that neighbouring rows share the index pages they dirty. */
  order(a: Row, b: Row): number;
  /** Writes one chunk, all of it or nothing. */
  write(rows: Row[]): Promise<void>;
}

/**
 * Writes that need not delay the answer that caused them (the desktop protocol's last-seen times
 * and seat renewals): they collect, one per key, and are written in chunks every few seconds, when
 * many have gathered, and when the app closes. While the database is away they wait for the next
 * flush; a chunk that fails otherwise (a row whose license was deleted meanwhile) is written row by
 * row, so that one row does not cost the others.
 */
export class WriteBehind<Row> {
  private readonly ctx: AppContext;
  private readonly options: WriteBehindOptions<Row>;
  private pending = new Map<string, Row>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private flushQueued = false;

  constructor(ctx: AppContext, options: WriteBehindOptions<Row>) {
    this.ctx = ctx;
    this.options = options;
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Rows not written yet: queued since the last flush, or kept by one while the database was away. */
  get waiting(): number {
    return this.pending.size;
  }

  queue(row: Row): void {
    const key = this.options.keyOf(row);
    const waiting = this.pending.get(key);
    this.pending.set(key, waiting && this.options.merge ? this.options.merge(waiting, row) : row);
    if (this.pending.size >= FLUSH_SIZE && !this.flushQueued) void this.flush();
  }

  /** Writes what has gathered; flushes run one after another. */
  flush(): Promise<void> {
    this.flushQueued = true;
    this.flushing = this.flushing.then(() => {
      this.flushQueued = false;
      return this.write();
    });
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (!this.pending.size) return;
    const { what, keyOf, merge, order, write } = this.options;
    const rows = [...this.pending.values()].sort(order);
    this.pending = new Map();
    for (let start = 0; start < rows.length; start += CHUNK) {
      const chunk = rows.slice(start, start + CHUNK);
      try {
        await write(chunk);
      } catch (error) {
        if (isDatabaseUnavailable(error)) {
          // Kept for the next flush; a row queued meanwhile is newer and is merged with it.
          for (const row of rows.slice(start)) {
            const newer = this.pending.get(keyOf(row));
            this.pending.set(keyOf(row), newer ? (merge ? merge(row, newer) : newer) : row);
          }
          this.ctx.log.warn({ err: error, rows: rows.length - start }, `${what} kept for later: the database is unavailable`);
          return;
        }
        for (const row of chunk) {
          await write([row]).catch((error: unknown) => this.ctx.log.debug({ err: error, row }, `${what} not recorded`));
        }
      }
      await nextTurn();
    }
  }
}
