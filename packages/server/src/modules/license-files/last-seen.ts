import type { AppContext } from '../../platform/context.ts';
import { upsertLastSeen, type LastSeen } from './repo.ts';

const FLUSH_INTERVAL_MS = 5_000;
const FLUSH_SIZE = 2_000;
const CHUNK = 500;

/**
 * Records when each machine last asked for its license (for the active-machines statistics) without
 * a write per call: times collect in memory, one per license and machine, and are written in
 * batches every few seconds, when many have gathered, and when the app closes.
 */
export class LastSeenRecorder {
  private readonly ctx: AppContext;
  private pending = new Map<string, LastSeen>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

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
    this.pending.set(`${licenseId}\u0000${machineId}`, { licenseId, machineId, at });
    if (this.pending.size >= FLUSH_SIZE) void this.flush();
  }

  /** Writes what has gathered; flushes run one after another. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (!this.pending.size) return;
    const rows = [...this.pending.values()];
    this.pending = new Map();
    try {
      await this.ctx.db.transaction().execute(async (trx) => {
        for (let start = 0; start < rows.length; start += CHUNK) await upsertLastSeen(trx, rows.slice(start, start + CHUNK));
      });
    } catch {
      // A license deleted since its call fails the whole batch: write the others one by one.
      for (const row of rows) {
        await upsertLastSeen(this.ctx.db, [row]).catch((error: unknown) => this.ctx.log.debug({ err: error, licenseId: row.licenseId }, 'last-seen not recorded'));
      }
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
