import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.ts';

export const shuttingDown = () => new AppError(503, 'ERR_SHUTTING_DOWN', 'The server is restarting or stopping; please try again in a moment');

/** How long the answers given at the end of the grace period may take to leave. */
const FLUSH_MS = 1000;

export interface ShuttingDown {
  /**
   * The end of a stop's grace period (STOP_GRACE_SECONDS, main.ts): every request still running is
   * answered `503 ERR_SHUTTING_DOWN` instead of having its connection reset when the process ends.
   * Resolves once those answers have left (or after a second). Answers how many were answered so.
   */
  answerInFlight(): Promise<number>;
}

/**
 * While the app closes (SIGTERM, main.ts), the requests in flight finish, and a request that arrives
 * meanwhile on a connection still open (a keep-alive connection whose next request was under way, a
 * pipelined one) is answered `503 ERR_SHUTTING_DOWN` with `Retry-After` (errors.ts): a client or a
 * load balancer tries it again, on another instance or after the restart. Fastify's own answer here
 * (`return503OnClosing`, off in app.ts) had no code of ours and no Retry-After. Every answer given
 * while closing closes its connection: a keep-alive connection would otherwise hold the stop until it
 * idles out. The requests in flight are known (a set: an add and a delete a request), so that those
 * still running when the grace period ends get an answer too.
 */
export function registerShuttingDown(app: FastifyInstance): ShuttingDown {
  let closing = false;
  const inFlight = new Map<FastifyRequest['raw'], FastifyReply>();
  // Not an onSend hook: one of those puts every answer of the app, the desktop protocol's too, on
  // Fastify's slower path of sending. The answers still to come are known instead, and marked once.
  app.addHook('preClose', (done) => {
    closing = true;
    for (const reply of inFlight.values()) if (!reply.sent) reply.header('connection', 'close');
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (closing) {
      reply.header('connection', 'close');
      return done(shuttingDown());
    }
    inFlight.set(request.raw, reply);
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    inFlight.delete(request.raw);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    inFlight.delete(request.raw);
    done();
  });
  return {
    async answerInFlight() {
      const open = [...inFlight.values()].filter((reply) => !reply.sent && !reply.raw.headersSent && !reply.raw.destroyed);
      const left = open.map((reply) => new Promise<void>((resolve) => reply.raw.once('close', resolve).once('finish', resolve)));
      for (const reply of open) {
        const body = shuttingDown().toBody();
        reply.raw.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '5', connection: 'close', 'cache-control': 'no-store' });
        reply.raw.end(JSON.stringify(body));
      }
      await Promise.race([Promise.all(left), new Promise((resolve) => setTimeout(resolve, FLUSH_MS).unref())]);
      return open.length;
    },
  };
}
