import type { AppContext } from '../../platform/context.ts';
import { isDatabaseUnavailable } from '../../platform/db/dialect.ts';
import { upsertLastSeen, type LastSeen } from './repo.ts';

const FLUSH_INTERVAL_MS = 5_000;
const FLUSH_SIZE = 5_000;
/** Rows per statement: large enough to share page writes, small enough not to stall other requests. */
const CHUNK = 500;

const byKey = (a: LastSeen, b: LastSeen) => a.licenseId - b.licenseId || (a.machineId < b.machineId ? -1 : a.machineId > b.machineId ? 1 : 0);
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const keyOf = (row: Pick<LastSeen, 'licenseId' | 'machineId'>) => `${row.licenseId}\u0000${row.machineId}`;

/** Pairs remembered as written today; beyond it the memory starts afresh and the database's own check decides. */
const MAX_REMEMBERED = 200_000;

/**
 * Records when each machine last asked for its license (for the active-machines statistics, which
 * count days) without a write per call: at most once per license, machine and day (UTC). A pair
 * already recorded today is skipped in memory; the others collect, one per pair, and are written in
 * batches every few seconds, when many have gathered, and when the app closes. The database writes
 * a row only when its day changes (upsertLastSeen), so several app instances write it once a day too.
 */
export class LastSeenRecorder {
  private readonly ctx: AppContext;
  private pending = new Map<string, LastSeen>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private flushQueued = false;
  /** The day of `recordedToday`, and the pairs recorded on it. */
  private today = '';
  private recordedToday = new Set<string>();

  constructor(ctx: AppContext) {
    this.ctx = ctx;
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

  record(licenseId: number, machineId: string, at: string): void {
    const day = at.slice(0, 10);
    if (day !== this.today || this.recordedToday.size >= MAX_REMEMBERED) {
      this.today = day;
      this.recordedToday = new Set();
    }
    const key = keyOf({ licenseId, machineId });
    if (this.recordedToday.has(key)) return;
    this.recordedToday.add(key);
    this.pending.set(key, { licenseId, machineId, at });
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
    // Sorted by key, so that neighbouring rows share the index pages they dirty.
    const rows = [...this.pending.values()].sort(byKey);
    this.pending = new Map();
    for (let start = 0; start < rows.length; start += CHUNK) {
      const chunk = rows.slice(start, start + CHUNK);
      try {
        // One statement: all of the chunk or nothing.
        await upsertLastSeen(this.ctx.db, this.ctx.dialect, chunk);
      } catch (error) {
        if (isDatabaseUnavailable(error)) {
          // The database is away: keep what is left for the next flush (a newer call wins).
          for (const row of rows.slice(start)) if (!this.pending.has(keyOf(row))) this.pending.set(keyOf(row), row);
          this.ctx.log.warn({ err: error, rows: rows.length - start }, 'last-seen kept for later: the database is unavailable');
          return;
        }
        // A license deleted since its call fails the whole chunk: write the others one by one.
        for (const row of chunk) {
          await upsertLastSeen(this.ctx.db, this.ctx.dialect, [row]).catch((error: unknown) =>
            this.ctx.log.debug({ err: error, licenseId: row.licenseId }, 'last-seen not recorded'),
          );
        }
      }
      await nextTurn();
    }
  }
}

const recorders = new WeakMap<AppContext, LastSeenRecorder>();

export function lastSeenRecorder(ctx: AppContext): LastSeenRecorder {
  let recorder = recorders.get(ctx);
  if (!recorder) {
    recorder = new LastSeenRecorder(ctx);
    recorders.set(ctx, recorder);
  }
  return recorder;
}
