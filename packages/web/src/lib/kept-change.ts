import type { RequestOptions } from './api.ts';

/**
 * A change whose write was answered 401 because the session had ended (issue 47): kept in this tab's
 * sessionStorage with the page it was made on, so that after signing in again the person returns to
 * that page and can send it again without retyping. Never kept: anything about signing in, passwords,
 * tokens, codes or keys, nor a file upload.
 */
export interface KeptChange {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: RequestOptions['query'];
  body?: unknown;
  ifMatch?: string;
  /** The page (path and search) the change was made on. */
  page: string;
  /** The account that made it: another account signing in on this tab is not offered it. */
  userId: number;
  keptAt: number;
}

const KEY = 'lm.keptChange';
/** A change older than this is not offered any more (the person has moved on). */
export const KEPT_FOR_MS = 60 * 60 * 1000;

/** Addresses whose bodies carry credentials or secrets, and the sign-in itself. */
const SECRET_PATHS = /^\/(session|account\/(password|sessions|two-factor)|password-reset|register|api-tokens|sso|device)|\/(password|secret|token|keys?)(\/|$)/i;
/** Field names that may hold a secret, at any depth of a body. */
const SECRET_FIELD = /pass(word)?|secret|token|otp|recovery|private|credential|apikey|api_key|^code$/i;

function holdsSecret(value: unknown, depth = 0): boolean {
  if (depth > 6 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((item) => holdsSecret(item, depth + 1));
  return Object.entries(value).some(([key, item]) => SECRET_FIELD.test(key) || holdsSecret(item, depth + 1));
}

/** Whether a write may be kept: JSON (or no body), to an address and with fields that carry no secret. */
export function keepable(path: string, options: RequestOptions): boolean {
  const method = options.method ?? 'GET';
  if (method === 'GET' || options.quietAuthFailure) return false;
  if (typeof FormData !== 'undefined' && options.body instanceof FormData) return false;
  return !SECRET_PATHS.test(path) && !holdsSecret(options.body);
}

function storage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined;
  }
}

/** Keeps the write (replacing an earlier one) if it may be kept; returns whether it was. */
export function keepChange(path: string, options: RequestOptions, page: string, userId: number, now = Date.now()): boolean {
  if (!keepable(path, options)) return false;
  const kept: KeptChange = { method: options.method as KeptChange['method'], path, query: options.query, body: options.body, ifMatch: options.ifMatch, page, userId, keptAt: now };
  try {
    storage()?.setItem(KEY, JSON.stringify(kept));
    return true;
  } catch {
    return false;
  }
}

/** The kept change, if there is one and it is still recent. */
export function keptChange(now = Date.now()): KeptChange | null {
  try {
    const text = storage()?.getItem(KEY);
    if (!text) return null;
    const kept = JSON.parse(text) as KeptChange;
    if (typeof kept?.path !== 'string' || typeof kept.page !== 'string' || now - kept.keptAt > KEPT_FOR_MS) {
      forgetKeptChange();
      return null;
    }
    return kept;
  } catch {
    return null;
  }
}

export function forgetKeptChange(): void {
  try {
    storage()?.removeItem(KEY);
  } catch {
    // Nothing was kept.
  }
}
