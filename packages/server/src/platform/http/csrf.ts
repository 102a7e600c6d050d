import type { FastifyInstance } from 'fastify';
import { bearerToken } from './auth.ts';
import { AppError } from './errors.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Cross-site request forgery (DESIGN.md section 4): a state-changing call with an Origin header must
 * come from this site; bodies must be JSON or multipart, which a cross-site form cannot send without
 * a CORS preflight that this server never grants. Fastify already answers 415 for other body types.
 */
export function registerCsrfProtection(app: FastifyInstance): void {
  // A cross-site form may post text/plain without a preflight; nothing here reads it.
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', async (request) => {
    if (!STATE_CHANGING.has(request.method)) return;
    // The desktop protocol carries no session: a forged request can do nothing a direct one cannot.
    if (request.url.startsWith('/api/client/')) return;
    // A bearer token is the credential, not a cookie: a cross-site page cannot send one on its own.
    if (bearerToken(request) !== null) return;
    const origin = request.headers.origin;
    if (!origin) return;
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      throw new AppError(403, 'ERR_CSRF', 'Cross-site request refused');
    }
    const host = request.host;
    if (originHost !== host) throw new AppError(403, 'ERR_CSRF', 'Cross-site request refused');
  });
}
