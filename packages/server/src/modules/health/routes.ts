import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.ts';
import { DATABASE_RETRY_AFTER_SECONDS } from '../../platform/http/errors.ts';

const database = z.enum(['sqlite', 'postgres']);

/** `GET /api/health`: 200 while the database answers; 503 with the reason while it does not (for a load balancer). */
export function healthRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/health',
      {
        schema: {
          tags: ['health'],
          summary: 'Answers 200 when the database does, 503 with the reason when it does not',
          response: {
            200: z.object({ status: z.literal('ok'), database }),
            503: z.object({ status: z.literal('unavailable'), database, reason: z.string() }),
          },
        },
      },
      async (_request, reply) => {
        try {
          await sql`select 1`.execute(ctx.db);
          return { status: 'ok' as const, database: ctx.dialect };
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          return reply.status(503).header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS)).send({ status: 'unavailable' as const, database: ctx.dialect, reason });
        }
      },
    );
  };
}
