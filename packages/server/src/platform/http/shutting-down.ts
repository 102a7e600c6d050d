import type { FastifyInstance } from 'fastify';
import { AppError } from './errors.ts';

export const shuttingDown = () => new AppError(503, 'ERR_SHUTTING_DOWN', 'The server is restarting or stopping; please try again in a moment');

/**
 * While the app closes (SIGTERM, main.ts), the requests in flight finish, and a request that arrives
 * meanwhile on a connection still open (a keep-alive connection whose next request was under way, a
 * pipelined one) is answered `503 ERR_SHUTTING_DOWN` with `Retry-After` (errors.ts): a client or a
 * load balancer tries it again, on another instance or after the restart. Fastify's own answer here
 * (`return503OnClosing`, off in app.ts) had no code of ours and no Retry-After. Every answer given
 * while closing closes its connection: a keep-alive connection would otherwise hold the stop until it
 * idles out.
 */
export function registerShuttingDown(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (_request, _reply, done) => done(closing ? shuttingDown() : undefined));
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}
