import { LICENSE_EVENT_WEBHOOKS, type LicenseEventType } from '@lm/contract/license-events';
import type { WebhookEventType } from '@lm/contract/webhook';
import type { AppContext } from '../../platform/context.ts';
import { isDatabaseUnavailable } from '../../platform/db/dialect.ts';
import { enqueueEvents } from '../../platform/webhooks/outbox.ts';
import { insertLicenseEvents, distributorsOf, type NewLicenseEvent } from './repo.ts';
import { pruneLicenseEvents } from './retention.ts';

const FLUSH_INTERVAL_MS = 2_000;
const FLUSH_SIZE = 1_000;
/** At most this many events wait in memory (a database away for long): the oldest are dropped and logged. */
const MAX_WAITING = 50_000;
const PRUNE_INTERVAL_MS = 3600_000;

export interface LicenseEventInput {
  type: LicenseEventType;
  licenseId: number | null;
  tanId?: number | null;
  ownerId?: number | null;
  machineId?: string | null;
  code?: string | null;
  /** When it happened; now by default. */
  at?: string;
}

/**
 * The runtime events of licenses, written off the protocol's hot path (DESIGN.md section 6j): an
 * event is kept in memory and written with the others in one transaction every few seconds (and
 * when the app closes), with the webhook events of the types that have one. The same event again
 * within that time (a client retrying) is folded into the first as a repeat.
 */
export class LicenseEventRecorder {
  private readonly ctx: AppContext;
  private pending = new Map<string, NewLicenseEvent>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private lastPrune = 0;

  constructor(ctx: AppContext) {
    this.ctx = ctx;
  }

  record(input: LicenseEventInput): void {
    const event: NewLicenseEvent = {
      type: input.type,
      license_id: input.licenseId,
      tan_id: input.tanId ?? null,
      owner_id: input.ownerId ?? null,
      machine_id: input.machineId ?? null,
      code: input.code ?? null,
      repeats: 0,
      at: input.at ?? new Date().toISOString(),
    };
    const key = `${event.type}\u0000${event.license_id}\u0000${event.machine_id}\u0000${event.code}`;
    const waiting = this.pending.get(key);
    if (waiting) {
      waiting.repeats++;
      return;
    }
    if (this.pending.size >= MAX_WAITING) {
      const oldest = this.pending.keys().next().value;
      if (oldest !== undefined) this.pending.delete(oldest);
      this.ctx.log.warn('license events: too many waiting for the database; the oldest was dropped');
    }
    this.pending.set(key, event);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS).unref();
    if (this.pending.size >= FLUSH_SIZE) void this.flush();
  }

  get waiting(): number {
    return this.pending.size;
  }

  /** Writes what waits (and waits for a write under way): readers of the events call it first, so that they see every event recorded before. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    return this.flush();
  }

  private async write(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending.size) return;
    const rows = [...this.pending.values()];
    this.pending = new Map();
    try {
      await this.ctx.db.transaction().execute(async (trx) => {
        await insertLicenseEvents(trx, rows);
        await this.enqueueWebhooks(trx, rows);
      });
    } catch (error) {
      if (isDatabaseUnavailable(error)) {
        // Back in line for the next flush, behind nothing newer of the same key.
        for (const row of rows) this.pending.set(`${row.type}\u0000${row.license_id}\u0000${row.machine_id}\u0000${row.code}`, row);
        this.timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS).unref();
      } else this.ctx.log.error({ err: error, events: rows.length }, 'license events were not written');
      return;
    }
    if (Date.now() - this.lastPrune > PRUNE_INTERVAL_MS) {
      this.lastPrune = Date.now();
      await pruneLicenseEvents(this.ctx).catch((error: unknown) => this.ctx.log.warn({ err: error }, 'old license events were not removed'));
    }
  }

  private async enqueueWebhooks(trx: Parameters<typeof insertLicenseEvents>[0], rows: NewLicenseEvent[]): Promise<void> {
    const sent = rows.filter((row) => row.type in LICENSE_EVENT_WEBHOOKS);
    if (!sent.length) return;
    const distributors = await distributorsOf(trx, sent.flatMap((row) => (row.license_id === null ? [] : [row.license_id])));
    for (const row of sent) {
      const type = LICENSE_EVENT_WEBHOOKS[row.type as keyof typeof LICENSE_EVENT_WEBHOOKS] as WebhookEventType;
      const data = { type: row.type, code: row.code, licenseId: row.license_id, tanId: row.tan_id, ownerId: row.owner_id, machineId: row.machine_id, repeats: row.repeats, at: row.at };
      const distributorId = row.license_id === null ? null : (distributors.get(row.license_id) ?? null);
      await enqueueEvents(trx, type, [{ data, subject: 'License', record: { ownerId: row.owner_id, distributorId }, personId: row.owner_id }]);
    }
  }
}

const recorders = new WeakMap<AppContext, LicenseEventRecorder>();

export function licenseEvents(ctx: AppContext): LicenseEventRecorder {
  let recorder = recorders.get(ctx);
  if (!recorder) {
    recorder = new LicenseEventRecorder(ctx);
    recorders.set(ctx, recorder);
  }
  return recorder;
}

/** Records a runtime event of a license without a write on the caller's path (see LicenseEventRecorder). */
export function recordLicenseEvent(ctx: AppContext, event: LicenseEventInput): void {
  licenseEvents(ctx).record(event);
}
