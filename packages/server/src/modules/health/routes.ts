import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import { errorBody } from '@lm/contract';
import type { AppContext } from '../../platform/context.ts';
import { DATABASE_RETRY_AFTER_SECONDS } from '../../platform/http/errors.ts';

const database = z.enum(['sqlite', 'postgres']);

/** `GET /api/health`: 200 while the database answers; 503 while it does not (for a load balancer), the reason in the log. */
export function healthRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/health',
      {
        schema: {
          tags: ['health'],
          summary: 'Answers 200 when the database does, 503 when it does not (the reason only to administrators and in the log)',
          response: {
            200: z.object({ status: z.literal('ok'), database }),
            // Its own body, or the error body of a refusal before it ran (the server starting or
            // stopping, a session that could not be read): both must pass, or the answer was a 500.
            503: z.union([z.object({ status: z.literal('unavailable'), database, reason: z.string().optional() }), errorBody]),
          },
        },
      },
      async (request, reply) => {
        try {
          await sql`select 1`.execute(ctx.db);
          return { status: 'ok' as const, database: ctx.dialect };
        } catch (error) {
          request.log.warn({ err: error }, 'health: the database does not answer');
          const reason = error instanceof Error ? error.message : String(error);
          // The driver's error names the database's host and port: only a signed-in administrator reads
          // it here; anyone else (a load balancer, the public, a script on this machine) learns
          // "unavailable", and the reason is in the log.
          const body = { status: 'unavailable' as const, database: ctx.dialect, ...(request.user?.accessRole === 'ADMIN' ? { reason } : {}) };
          return reply.status(503).header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS)).send(body);
        }
      },
    );
  };
}
