import path from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** What stands in the log for a secret. */
export const REDACTED = '[redacted]';

/** Query parameters that carry a secret: a confirmation or reset link's token, a password, a key. */
const SECRET_QUERY_KEY = /token|secret|password|passwd|key|signature|code/i;

/** Paths whose last segment is itself a secret: the ANY-Lic download link (`/api/anylic/<token>`). */
const SECRET_PATH = /^(\/api\/anylic\/)[^/?#]+/;

/**
 * The address as the log may show it: the secret in an ANY-Lic link's path and the values of
 * secret query parameters (`/reset-password?token=…`, `/register/confirm?id=…&token=…`) replaced.
 * Whoever reads the log must not be able to reset a password or download a license with it.
 */
export function redactedUrl(url: string): string {
  const queryAt = url.indexOf('?');
  const pathPart = (queryAt === -1 ? url : url.slice(0, queryAt)).replace(SECRET_PATH, `$1${REDACTED}`);
  if (queryAt === -1) return pathPart;
  const query = url
    .slice(queryAt + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const key = equals === -1 ? pair : pair.slice(0, equals);
      return equals !== -1 && SECRET_QUERY_KEY.test(decodeSafely(key)) ? `${key}=${REDACTED}` : pair;
    })
    .join('&');
  return `${pathPart}?${query}`;
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Header values that sign a request in (`Authorization`, cookies, the metrics token): never logged,
 * wherever a log line carries a request's or a response's headers (pino's redact).
 */
export const REDACTED_LOG_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'res.headers["set-cookie"]',
  'err.config.headers.authorization',
];

/** The request as a log line shows it (Fastify's own serializer, with the address redacted). */
export function serializeRequest(request: FastifyRequest): Record<string, unknown> {
  return { method: request.method, url: redactedUrl(request.url), remoteAddress: request.ip };
}

/**
 * A file of the web app (a script, a style sheet, an image): dozens per page load, each a line worth
 * reading only when looking for something (debug). Pages, API calls and theme files stay at info.
 */
function isStaticFile(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const pathOnly = request.url.split('?')[0];
  if (pathOnly.startsWith('/api/') || pathOnly.startsWith('/theme/') || pathOnly === '/metrics') return false;
  return pathOnly.startsWith('/assets/') || path.extname(pathOnly) !== '';
}

/** pino's levels by name, for `writes`. */
const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Number.POSITIVE_INFINITY };

/** Whether a log at level `current` writes a line of `level`; when it cannot tell (a custom level, no logger), yes. */
function writes(current: string | undefined, level: 'debug' | 'info'): boolean {
  const threshold = current === undefined ? undefined : LEVELS[current];
  return threshold === undefined || threshold <= LEVELS[level];
}

/**
 * One line per request when its answer has gone (Fastify's two lines, "incoming request" and
 * "request completed", are off: see app.ts): method, redacted address, status and time. A request
 * the client broke off before its answer is logged once too, by onRequestAbort.
 */
export function registerAccessLog(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    const level = isStaticFile(request) ? 'debug' : 'info';
    // The line (its redacted address, and the client's address through any proxies) is built only for a log that writes it.
    if (writes(request.log.level, level)) {
      request.log[level]({ method: request.method, url: redactedUrl(request.url), statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10, ip: request.ip }, 'request');
    }
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    request.log.info({ method: request.method, url: redactedUrl(request.url), ip: request.ip }, 'request broken off by the client');
    done();
  });
}
