import type { Executor } from '../db/database.ts';
import { AppError } from '../http/errors.ts';
import { deleteLimitEvent, deleteLimitEventsBefore, deleteLimitEventsOfKey, insertLimitEvent, limitEventsSince } from './repo.ts';

/** At most `max` attempts of one key within `windowMs`. */
export interface Limit {
  name: string;
  max: number;
  windowMs: number;
}

export type Attempt = { allowed: true; id: number | null } | { allowed: false; retryAfter: number };

const MINUTE = 60_000;
const LONGEST_WINDOW_MS = 24 * 60 * MINUTE;

/**
 * Limits on attempts (failed logins and TAN activations, mails asked for), counted in the database:
 * every app instance and every restart shares the count, so the numbers the README gives hold for
 * any number of instances. An attempt is recorded before it is judged and counted with every other
 * recorded one, those still running included: racing requests can never pass a limit together (at
 * worst, at its edge, both are refused). One beyond the limit is not recorded, so that being refused
 * does not prolong the wait.
 */
export class Limits {
  private readonly db: Executor;
  private readonly enabled: boolean;
  private attempts = 0;

  /** `enabled` false (tests that are not about limits): every attempt is allowed and nothing is written. */
  constructor(db: Executor, enabled: boolean) {
    this.db = db;
    this.enabled = enabled;
  }

  async attempt(limit: Limit, key: string, now = new Date()): Promise<Attempt> {
    if (!this.enabled) return { allowed: true, id: null };
    const name = `${limit.name}:${key}`;
    const id = await insertLimitEvent(this.db, name, now.toISOString());
    const { count, oldest } = await limitEventsSince(this.db, name, new Date(now.getTime() - limit.windowMs).toISOString());
    if (++this.attempts % 64 === 0) await deleteLimitEventsBefore(this.db, new Date(now.getTime() - LONGEST_WINDOW_MS).toISOString());
    if (count <= limit.max) return { allowed: true, id };
    await deleteLimitEvent(this.db, id);
    const retryAfter = Math.max(1, Math.ceil((Date.parse(oldest ?? now.toISOString()) + limit.windowMs - now.getTime()) / 1000));
    return { allowed: false, retryAfter };
  }

  /**
   * Seconds to wait while the key has used up its attempts, else null; records nothing. For checks
   * that must refuse even a right answer while a key is blocked (API tokens: otherwise a guesser
   * would learn from the answer which guess was right), without a write for every right one.
   */
  async blockedFor(limit: Limit, key: string, now = new Date()): Promise<number | null> {
    if (!this.enabled) return null;
    const { count, oldest } = await limitEventsSince(this.db, `${limit.name}:${key}`, new Date(now.getTime() - limit.windowMs).toISOString());
    if (count < limit.max) return null;
    return Math.max(1, Math.ceil((Date.parse(oldest ?? now.toISOString()) + limit.windowMs - now.getTime()) / 1000));
  }

  /** Like attempt, but a refusal is thrown as 429 ERR_RATE_LIMITED with the seconds to wait. */
  async take(limit: Limit, key: string, message = 'Too many requests, please try again later'): Promise<Attempt & { allowed: true }> {
    const attempt = await this.attempt(limit, key);
    if (!attempt.allowed) throw rateLimited(message, attempt.retryAfter);
    return attempt;
  }

  /** The attempt does not count after all (a login that succeeded, an activation refused for another reason). */
  async forget(attempt: Attempt): Promise<void> {
    if (attempt.allowed && attempt.id !== null) await deleteLimitEvent(this.db, attempt.id);
  }

  /** The key starts afresh (after a successful login). */
  async clear(limit: Limit, key: string): Promise<void> {
    if (this.enabled) await deleteLimitEventsOfKey(this.db, `${limit.name}:${key}`);
  }
}

export function rateLimited(message: string, retryAfter: number): AppError {
  return new AppError(429, 'ERR_RATE_LIMITED', message, { params: { retryAfter } });
}

export const FIFTEEN_MINUTES = 15 * MINUTE;
