import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/** The headers helmet sets for fixed options (no nonces, no per-request directives): the same on every answer. */
function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string | number) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return headers;
}

/**
 * Whether a request reached the https site: over TLS (here, or at a proxy the server trusts), or by
 * the host name of an https:// PUBLIC_URL (`httpsHost`; a proxy not trusted still serves it so). The
 * server reached directly by another name over plain http (http://localhost on its own machine, a
 * LAN install) is not.
 */
export function reachedOverHttps(request: FastifyRequest, httpsHost: string | null): boolean {
  return request.protocol === 'https' || (httpsHost !== null && request.host === httpsHost);
}

/**
 * Helmet's security headers on every answer, computed once at start: @fastify/helmet builds the
 * helmet middleware anew for each request, which cost the desktop protocol more than its own routing.
 * HSTS and upgrade-insecure-requests only where the site is reached over https: on plain http the
 * upgrade would send every script and call to an https address that does not answer.
 */
export function registerSecurityHeaders(app: FastifyInstance, directives: Record<string, string[]>, httpsHost: string | null): void {
  const secure = helmetHeaders({ contentSecurityPolicy: { directives } });
  const plain = helmetHeaders({ contentSecurityPolicy: { directives: { ...directives, 'upgrade-insecure-requests': null } }, strictTransportSecurity: false });
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(reachedOverHttps(request, httpsHost) ? secure : plain);
    done();
  });
}
