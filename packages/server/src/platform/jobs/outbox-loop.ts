import type { FastifyBaseLogger } from 'fastify';

/**
 * The loop of an outbox worker (mail, webhooks): a pass over what is due every `pollIntervalMs`, at
 * once when woken (something was queued), and on demand with `flush` (tests, an operator). The passes
 * of one instance run one after another; other instances share the outbox through claims in the
 * database. A pass that fails is logged and the loop goes on.
 */
export interface OutboxLoopOptions {
  /** Named in the log when a pass fails. */
  name: string;
  log: FastifyBaseLogger;
  pollIntervalMs: number;
  /** How long after a wake the pass starts (after the transaction that queued has committed). */
  wakeDelayMs: number;
}

export abstract class OutboxLoop<PassResult> {
  private readonly loop: OutboxLoopOptions;
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private running = false;
  private wakeRequested = false;

  protected constructor(loop: OutboxLoopOptions) {
    this.loop = loop;
  }

  /** One pass over the outbox; `includeDeferred` also tries what waits for a retry. */
  protected abstract pass(includeDeferred: boolean): Promise<PassResult>;

  /** Starts polling (buildApp does this). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops polling and waits for a pass under way (the app's close does this). */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.queue;
  }

  protected get isRunning(): boolean {
    return this.running;
  }

  /** Something was queued: look now rather than at the next poll. */
  wake(): void {
    if (!this.running) return;
    this.wakeRequested = true;
    this.schedule(this.loop.wakeDelayMs);
  }

  /** Tries everything unsent once now, retries not yet due included, and answers when done. */
  flush(): Promise<PassResult> {
    return this.serialized(() => this.pass(true));
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work, work);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.wakeRequested = false;
    try {
      await this.serialized(() => this.pass(false));
    } catch (error) {
      this.loop.log.error({ err: error }, `${this.loop.name} outbox pass failed`);
    }
    if (this.running) this.schedule(this.wakeRequested ? this.loop.wakeDelayMs : this.loop.pollIntervalMs);
  }
}
