import { verifyServerTime, type PublicKey } from './format.js';
import type { LicenseStore } from './store.js';

/** How far the local clock may lag behind the trusted time before the client reports CLOCK_TAMPERED: time zones, daylight saving, a drifting clock. */
export const DEFAULT_CLOCK_TOLERANCE_MS = 48 * 3_600_000;

/**
 * Trusted time (DESIGN.md section 6d): the highest time the client verified, from the server's
 * signed `License-Server-Time` tokens (kept in the store) and the `issuedAt` of verified files.
 * Setting the local clock back cannot move it back, so expiry is judged against the later of it and
 * the local clock, and a local clock far behind it is reported as tampered with.
 */
export class TrustedClock {
  private readonly store: LicenseStore;
  private readonly keys: readonly PublicKey[];
  private readonly localNow: () => Date;
  private readonly toleranceMs: number;
  /** The highest verified time in milliseconds; 0 until something was verified. */
  private highest = 0;
  private tokenTime: number | undefined;

  constructor(store: LicenseStore, keys: readonly PublicKey[], localNow: () => Date, toleranceMs = DEFAULT_CLOCK_TOLERANCE_MS) {
    this.store = store;
    this.keys = keys;
    this.localNow = localNow;
    this.toleranceMs = toleranceMs;
  }

  /** Reads the kept token once (a token that no longer verifies counts for nothing). */
  async load(): Promise<void> {
    if (this.tokenTime !== undefined) return;
    this.tokenTime = 0;
    const token = await this.store.readServerTime?.().catch(() => null);
    if (!token) return;
    try {
      this.tokenTime = (await verifyServerTime(token, this.keys)).t * 1000;
      this.raise(this.tokenTime);
    } catch {
      // edited or signed by a key no longer pinned: ignored
    }
  }

  /** A verified time (a file's issuedAt) raises the trusted time, never lowers it. */
  raise(ms: number): void {
    if (Number.isFinite(ms) && ms > this.highest) this.highest = ms;
  }

  /** The server's time header of an answer: kept when it verifies and is newer than the one kept. */
  async noteServerTime(header: string | null): Promise<void> {
    if (!header) return;
    await this.load();
    let ms: number;
    try {
      ms = (await verifyServerTime(header, this.keys)).t * 1000;
    } catch {
      return; // a forged or foreign token says nothing
    }
    this.raise(ms);
    if (ms > (this.tokenTime ?? 0)) {
      this.tokenTime = ms;
      await this.store.writeServerTime?.(header.trim());
    }
  }

  /** The time a file's expiry is judged at: the later of the local clock and the trusted time. */
  now(): Date {
    const local = this.localNow().getTime();
    return new Date(Math.max(local, this.highest));
  }

  /** How far the local clock lags behind the trusted time, when by more than the tolerance; else null. */
  tamperedBy(): number | null {
    const lag = this.highest - this.localNow().getTime();
    return lag > this.toleranceMs ? lag : null;
  }

  get trusted(): Date | null {
    return this.highest ? new Date(this.highest) : null;
  }
}
