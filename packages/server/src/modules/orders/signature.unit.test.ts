import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isFresh, orderSignature, signatureMatches } from './signature.ts';

const secret = 'shop-webhook-secret-0123456789';
const body = '{"orderId":"A-1","timestamp":1767225600}';

describe('order webhook signatures', () => {
  it('is the lowercase hex HMAC-SHA256 of the raw body', () => {
    const signature = orderSignature(secret, body);
    expect(signature).toBe(createHmac('sha256', secret).update(body).digest('hex'));
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts the right signature (also in upper case) and nothing else', () => {
    const signature = orderSignature(secret, body);
    expect(signatureMatches(secret, body, signature)).toBe(true);
    expect(signatureMatches(secret, body, signature.toUpperCase())).toBe(true);
    expect(signatureMatches(secret, `${body} `, signature)).toBe(false);
    expect(signatureMatches('another-secret-0123456789', body, signature)).toBe(false);
    expect(signatureMatches(secret, body, signature.slice(0, 63))).toBe(false);
    expect(signatureMatches(secret, body, `${signature}00`)).toBe(false);
    expect(signatureMatches(secret, body, 'z'.repeat(64))).toBe(false);
    expect(signatureMatches(secret, body, undefined)).toBe(false);
    expect(signatureMatches(secret, body, '')).toBe(false);
  });
});

describe('order timestamps', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  it('are fresh within five minutes either way', () => {
    expect(isFresh(now - 300_000, now)).toBe(true);
    expect(isFresh(now + 300_000, now)).toBe(true);
    expect(isFresh(now - 300_001, now)).toBe(false);
    expect(isFresh(now + 300_001, now)).toBe(false);
    expect(isFresh(Number.NaN, now)).toBe(false);
  });
});
