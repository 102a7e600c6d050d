/**
 * Counts failures per key within a sliding window: login per account, TAN guesses per account.
 * Per-address limits use @fastify/rate-limit; this one counts only failures, so that a person who
 * logs in correctly is never locked out by someone else's guesses from elsewhere beyond the window.
 */
export class FailureThrottle {
  private readonly failures = new Map<string, number[]>();
  private readonly max: number;
  private readonly windowMs: number;

  constructor(max: number, windowMs: number) {
    this.max = max;
    this.windowMs = windowMs;
  }

  /** Seconds until the key may try again, or 0 when it may now. */
  retryAfter(key: string, now = Date.now()): number {
    const recent = this.recent(key, now);
    if (recent.length < this.max) return 0;
    return Math.ceil((recent[0] + this.windowMs - now) / 1000);
  }

  fail(key: string, now = Date.now()): void {
    const recent = this.recent(key, now);
    recent.push(now);
    this.failures.set(key, recent);
    if (this.failures.size > 100_000) this.prune(now);
  }

  reset(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((time) => time > now - this.windowMs);
  }

  private prune(now: number): void {
    for (const [key, times] of this.failures) {
      if (times.every((time) => time <= now - this.windowMs)) this.failures.delete(key);
    }
  }
}
