import type { AppContext } from '../../platform/context.ts';
import { upsertLastSeen, type LastSeen } from './repo.ts';
import { WriteBehind } from './write-behind.ts';

const byKey = (a: LastSeen, b: LastSeen) => a.licenseId - b.licenseId || (a.machineId < b.machineId ? -1 : a.machineId > b.machineId ? 1 : 0);
const keyOf = (row: Pick<LastSeen, 'licenseId' | 'machineId'>) => `${row.licenseId}\u0000${row.machineId}`;

/** Licenses remembered as written today; beyond it the memory starts afresh and the database's own check decides. */
const MAX_REMEMBERED = 200_000;
const DAY_MS = 86_400_000;

/**
 * Records when each machine last asked for its license (for the active-machines statistics, which
 * count days) without a write per call: at most once per license, machine and day (UTC). A pair
 * already recorded today is skipped in memory; the others are written behind the answers
 * (write-behind.ts). The database writes a row only when its day changes (upsertLastSeen), so
 * several app instances write it once a day too.
 *
 * On SQLite the writes stay on the app's connection, on the event loop. From a connection of their
 * own in a worker thread they cost more than they saved: each of its commits made the app's
 * connection drop its page cache and memory map (database.ts). In runs of the protocol bench
 * alternated with the code as it is, the full fetch's worst round fell from 0.49–0.59 of the
 * yardstick's signing to 0.33–0.45 (the thread's connection with the app's cache settings: 0.33,
 * with half again as much CPU per request).
 */
export class LastSeenRecorder {
  private readonly writes: WriteBehind<LastSeen>;
  /**
   * The day of `recordedToday`, and the pairs recorded on it: the machine of each license, by the
   * license's id (a number's lookup, not a joined text's, on the path of every refresh). A license
   * is bound to one machine at a time; one that moves is written for its new machine.
   */
  private today = Number.NaN;
  private recordedToday = new Map<number, string>();

  constructor(ctx: AppContext) {
    // One statement per chunk: all of it or nothing.
    this.writes = new WriteBehind<LastSeen>(ctx, { what: 'last-seen', keyOf, order: byKey, write: (rows) => upsertLastSeen(ctx.db, ctx.dialect, rows) });
  }

  start(): void {
    this.writes.start();
  }

  stop(): Promise<void> {
    return this.writes.stop();
  }

  flush(): Promise<void> {
    return this.writes.flush();
  }

  get waiting(): number {
    return this.writes.waiting;
  }

  record(licenseId: number, machineId: string, at: Date): void {
    // The day (UTC) by number: its text is made only for a pair to write.
    const day = Math.floor(at.getTime() / DAY_MS);
    if (day !== this.today || this.recordedToday.size >= MAX_REMEMBERED) {
      this.today = day;
      this.recordedToday = new Map();
    }
    if (this.recordedToday.get(licenseId) === machineId) return;
    this.recordedToday.set(licenseId, machineId);
    this.writes.queue({ licenseId, machineId, at: at.toISOString() });
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
