import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import { SERVER_TIME_HEADER } from '@lm/contract/license-file';
import type { AppContext } from '../../platform/context.ts';
import { errorCodeOf } from '../../platform/http/errors.ts';
import { ProtocolLimiter } from '../../platform/limits/protocol-limiter.ts';
import { serverTimeTokens } from '../../platform/signing/server-time.ts';

/**
 * Every protocol answer's headers, fixed: CORS for any origin, and the security headers of a JSON API
 * (OWASP's REST cheat sheet) instead of the web app's page headers: no cache keeps an answer, no
 * browser reads one as anything but its type, and no page frames one.
 */
const PROTOCOL_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': `etag, ${SERVER_TIME_HEADER}`,
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** The operation of each protocol route, and the outcomes it answers today, for /metrics. */
const OPERATIONS: Record<string, { operation: string; outcomes: readonly string[] }> = {
  'POST /api/client/v1/license': {
    operation: 'license',
    outcomes: [
      '200',
      '304',
      'ERR_NO_LICENSE',
      'ERR_LICENSE_REVOKED',
      'ERR_LICENSE_SUSPENDED',
      'ERR_LICENSE_EXPIRED',
      'ERR_LICENSE_UPGRADED',
      'ERR_NO_SEAT',
      'ERR_TOO_MANY_MACHINES',
      'ERR_BORROW_NOT_ALLOWED',
      'ERR_VALIDATION',
      'ERR_RATE_LIMITED',
    ],
  },
  'DELETE /api/client/v1/license': { operation: 'release', outcomes: ['204', 'ERR_NO_LICENSE', 'ERR_VALIDATION', 'ERR_RATE_LIMITED'] },
  'POST /api/client/v1/lease': {
    operation: 'lease',
    outcomes: ['200', '304', 'ERR_NO_LICENSE', 'ERR_NOT_INSTANCE_KEY', 'ERR_LICENSE_REVOKED', 'ERR_LICENSE_SUSPENDED', 'ERR_LICENSE_EXPIRED', 'ERR_NO_SEAT', 'ERR_VALIDATION', 'ERR_RATE_LIMITED'],
  },
  'DELETE /api/client/v1/lease': { operation: 'lease-release', outcomes: ['204', 'ERR_NO_LICENSE', 'ERR_NOT_INSTANCE_KEY', 'ERR_VALIDATION', 'ERR_RATE_LIMITED'] },
  'GET /api/client/v1/keys': { operation: 'keys', outcomes: ['200', 'ERR_RATE_LIMITED'] },
  'GET /api/client/v1/keys/:kid.pem': { operation: 'key', outcomes: ['200', 'ERR_NOT_FOUND', 'ERR_RATE_LIMITED'] },
};

/**
 * What every answer of the protocol's scope gets: its outcome counted for /metrics, its fixed headers
 * and the server's signed time. (The bench serves its yardstick in such a scope too, to show what the
 * protocol's own work leaves of it: bench/scenarios/protocol.ts.)
 */
export function registerProtocolHooks(app: FastifyInstance, ctx: AppContext): void {
  // Each answer counted by its outcome: the status of a success, the error code of a refusal.
  for (const { operation, outcomes } of Object.values(OPERATIONS)) ctx.metrics.expectProtocolOutcomes(operation, outcomes);
  // The operation is known when its route is registered: each protocol route counts its own answers,
  // without looking the request's route up in every answer.
  app.addHook('onRoute', (route) => {
    const operation = OPERATIONS[`${String(route.method)} ${route.url}`]?.operation;
    if (!operation) return;
    const count: onResponseHookHandler = (_request, reply, done) => {
      ctx.metrics.protocolResponses.inc({ operation, outcome: errorCodeOf(reply) ?? String(reply.statusCode) });
      done();
    };
    route.onResponse = [route.onResponse ?? []].flat().concat(count);
  });

  // No cookies, no session: any origin may call the protocol, e.g. the SDK in an Electron renderer.
  // Every answer, refusals and 304s included, carries the server's signed time (DESIGN.md 6d).
  const serverTime = serverTimeTokens(ctx);
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(PROTOCOL_HEADERS);
    const token = serverTime.current();
    if (typeof token === 'string') {
      reply.header(SERVER_TIME_HEADER, token);
      done();
    } else {
      token.then((value) => {
        reply.header(SERVER_TIME_HEADER, value);
        done();
      }, done);
    }
  });
}

/**
 * The protocol's rate limit of an app (PROTOCOL_RATE_LIMIT, PROTOCOL_RATE_LIMIT_PER_ADDRESS,
 * PROTOCOL_RATE_LIMIT_ALLOW): a call throws 429 ERR_RATE_LIMITED when the machine or the address has
 * used up its minute; nothing when the app runs without rate limits (tests not about them).
 */
export function protocolLimiter(ctx: AppContext): (ip: string | undefined, machineId?: string) => void {
  if (!ctx.config.rateLimits) return () => undefined;
  const limiter = new ProtocolLimiter(ctx.config.protocolRateLimit);
  return (ip, machineId) => limiter.take(ip, machineId);
}
