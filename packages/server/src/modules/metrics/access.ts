import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../platform/http/errors.ts';

export interface ScrapeRequest {
  authorization?: string;
  /** The TCP peer, not X-Forwarded-For: who really connected. */
  remoteAddress?: string;
  /** Whether the request came through a proxy (it carries X-Forwarded-For, Forwarded or X-Real-IP). */
  proxied: boolean;
}

const isLoopback = (address = '') => /^(127\.|::1$|::ffff:127\.)/.test(address);

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Who may read /metrics. With METRICS_TOKEN set: whoever sends `Authorization: Bearer <token>`.
 * Without it: only programs on this machine that connect directly (a Prometheus agent beside the
 * server), never a request that came through the reverse proxy, which would make it public.
 */
export function scrapeRefusal(request: ScrapeRequest, token: string | undefined): AppError | null {
  if (token) {
    const given = /^Bearer (.+)$/i.exec(request.authorization ?? '')?.[1]?.trim() ?? '';
    // Compared as hashes: equal length, constant time, whatever was sent.
    if (given && timingSafeEqual(digest(given), digest(token))) return null;
    return new AppError(401, 'ERR_UNAUTHENTICATED', 'The metrics need the METRICS_TOKEN as a Bearer token');
  }
  if (isLoopback(request.remoteAddress) && !request.proxied) return null;
  return new AppError(403, 'ERR_FORBIDDEN', 'Without METRICS_TOKEN the metrics are served only to direct connections from this machine');
}
