/** Timing of the webhook outbox worker (modules/webhooks/worker.ts); tests shorten it through the config. */
export interface WebhookWorkerOptions {
  /** How often the outbox is looked at; events queued by this instance go out at once. */
  pollIntervalMs: number;
  /** One attempt waits this long for the receiver's whole answer. */
  timeoutMs: number;
  /** The wait after the first failure (the first retry comes within it); it doubles… */
  retryBaseMs: number;
  /** …up to this. */
  retryMaxMs: number;
  /** A delivery still failing this long after its first attempt is given up. */
  maxAgeMs: number;
  /** An endpoint whose every delivery has failed this long is switched off and its creator mailed. */
  disableAfterMs: number;
  /** How long a worker holds an endpoint it delivers to; renewed before each attempt. */
  claimMs: number;
  /** Endpoints delivered to at once by one instance (each endpoint's line one delivery at a time). */
  concurrency: number;
  /** Finished deliveries stay in the log this long. */
  retentionMs: number;
}

export const HOUR = 3_600_000;

export const DEFAULT_WEBHOOK_WORKER_OPTIONS: WebhookWorkerOptions = {
  pollIntervalMs: 5_000,
  timeoutMs: 10_000,
  retryBaseMs: 20_000,
  retryMaxMs: 4 * HOUR,
  maxAgeMs: 72 * HOUR,
  disableAfterMs: 72 * HOUR,
  claimMs: 60_000,
  concurrency: 8,
  retentionMs: 30 * 24 * HOUR,
};

