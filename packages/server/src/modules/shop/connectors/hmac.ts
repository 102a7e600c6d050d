import { createHmac, timingSafeEqual } from 'node:crypto';

export function hmacSha256(secret: string, message: string): Buffer {
  return createHmac('sha256', secret).update(message, 'utf8').digest();
}

/** Compares a digest to an expected one in constant time; false for any malformed input. */
export function digestEquals(expected: Buffer, given: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function hexEquals(expected: Buffer, given: string): boolean {
  return /^[0-9a-fA-F]{64}$/.test(given) && digestEquals(expected, Buffer.from(given, 'hex'));
}

export function base64Equals(expected: Buffer, given: string): boolean {
  return /^[A-Za-z0-9+/]{43}=$/.test(given.trim()) && digestEquals(expected, Buffer.from(given.trim(), 'base64'));
}

/** A Unix timestamp in seconds as the schemes write it; null when it is not one. */
export function unixSeconds(text: string): number | null {
  return /^\d{1,12}$/.test(text) ? Number(text) : null;
}
