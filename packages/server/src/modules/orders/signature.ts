import { createHmac, timingSafeEqual } from 'node:crypto';
import { ORDER_MAX_CLOCK_SKEW_SECONDS } from '@lm/contract/order';

/** The lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook secret: what the shop sends. */
export function orderSignature(secret: string, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** Whether the header carries the body's signature; compared in constant time, whatever the input. */
export function signatureMatches(secret: string, rawBody: string | Buffer, header: string | undefined): boolean {
  if (!header || !/^[0-9a-fA-F]{64}$/.test(header.trim())) return false;
  const expected = Buffer.from(orderSignature(secret, rawBody), 'hex');
  const given = Buffer.from(header.trim(), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Whether a timestamp is close enough to now to be a fresh delivery rather than a replay. */
export function isFresh(timestampMs: number, nowMs: number, maxSkewSeconds = ORDER_MAX_CLOCK_SKEW_SECONDS): boolean {
  return Number.isFinite(timestampMs) && Math.abs(nowMs - timestampMs) <= maxSkewSeconds * 1000;
}
