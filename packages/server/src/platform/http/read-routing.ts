import type { FastifyInstance, FastifyRequest } from 'fastify';
import { allowReplicaReads, inReadScope } from '../db/replica-driver.ts';

export interface ReadRoutingOptions {
  /** How long a session's or token's reads stay on the primary after its own write (READ_YOUR_WRITES_MS). */
  readYourWritesMs: number;
  /** Records that the request's session or token writes now, on every instance's view (the database). */
  markWrote(request: FastifyRequest, at: string): Promise<void> | undefined;
}

const READS = new Set(['GET', 'HEAD']);

/**
 * Which requests read from a replica (DESIGN.md section 9, "Read replicas"): lists, search, records
 * and statistics, unless the caller's session or token wrote within READ_YOUR_WRITES_MS, so that a
 * person sees their own change at once. The session or token is looked up on the primary first (the
 * scope allows no replica until the caller is known): a session made by a sign-in a moment ago on
 * another instance is found. Any request that writes records that before it runs, so that the read
 * that follows its answer, through whichever instance, finds the mark.
 */
export function registerReadRouting(app: FastifyInstance, options: ReadRoutingOptions): void {
  app.addHook('onRequest', (_request, _reply, done) => inReadScope(false, done));
  app.addHook('preHandler', (request, _reply, done) => {
    if (READS.has(request.method)) {
      const wroteAt = request.wroteAt ? Date.parse(request.wroteAt) : Number.NEGATIVE_INFINITY;
      allowReplicaReads(Date.now() - wroteAt >= options.readYourWritesMs);
      return done();
    }
    const marked = options.markWrote(request, new Date().toISOString());
    if (!marked) return done();
    marked.then(() => done(), done);
  });
}
