import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken } from './auth.ts';
import { AppError } from './errors.ts';
import { reachedOverHttps } from './security-headers.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const crossSite = () => new AppError(403, 'ERR_CSRF', 'Cross-site request refused');

/**
 * Cross-site request forgery (DESIGN.md section 4): a state-changing call with an Origin header must
 * come from this site; bodies must be JSON or multipart, which a cross-site form cannot send without
 * a CORS preflight that this server never grants. Fastify already answers 415 for other body types.
 */
export function registerCsrfProtection(app: FastifyInstance, options: { httpsHost: string | null }): void {
  // A cross-site form may post text/plain without a preflight; nothing here reads it.
  app.removeContentTypeParser('text/plain');
  // A synchronous hook: an async one costs every request a promise and a turn of the microtask queue.
  app.addHook('onRequest', (request, _reply, done) => done(crossSiteRefusal(request, options.httpsHost)));
}

/**
 * The Origin must be this site, scheme included: a page on plain http:// at the same host name (which
 * anyone on the network path can write) is not the https:// site (reachedOverHttps).
 */
function crossSiteRefusal(request: FastifyRequest, httpsHost: string | null): AppError | undefined {
  if (!STATE_CHANGING.has(request.method)) return undefined;
  // A bearer token is the credential, not a cookie: a cross-site page cannot send one on its own.
  if (bearerToken(request) !== null) return undefined;
  const origin = request.headers.origin;
  if (!origin) return undefined;
  // An Origin that does not parse is refused like a foreign one.
  const from = URL.parse(origin);
  if (from?.host !== request.host) return crossSite();
  return from.protocol !== 'https:' && reachedOverHttps(request, httpsHost) ? crossSite() : undefined;
}
