/** Timing of the mail outbox worker (service.ts); tests shorten it through the config. It imports nothing, so the config can name it. */
export interface MailWorkerOptions {
  /** How often the outbox is looked at; mails queued by this instance are sent at once (wake). */
  pollIntervalMs: number;
  /** The wait after the first failure; it doubles with every further failure… */
  retryBaseMs: number;
  /** …up to this. */
  retryMaxMs: number;
  /** A mail still unsent after this long is given up: every link in it has expired by then. */
  maxAgeMs: number;
  /** How long a worker holds a mail it took; another instance may take it after that. */
  claimMs: number;
  batchSize: number;
}

export const DEFAULT_MAIL_WORKER_OPTIONS: MailWorkerOptions = {
  pollIntervalMs: 5_000,
  retryBaseMs: 30_000,
  retryMaxMs: 15 * 60_000,
  maxAgeMs: 72 * 3600_000,
  claimMs: 2 * 60_000,
  batchSize: 20,
};

/** The wait before the next attempt after `failures` failed attempts (exponential, capped). */
export function retryDelay(failures: number, options: Pick<MailWorkerOptions, 'retryBaseMs' | 'retryMaxMs'>): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 30);
  return Math.min(options.retryBaseMs * 2 ** exponent, options.retryMaxMs);
}
