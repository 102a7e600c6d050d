import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.ts';
import { DATABASE_RETRY_AFTER_SECONDS } from '../../platform/http/errors.ts';
import { scrapeRefusal } from '../metrics/access.ts';

const database = z.enum(['sqlite', 'postgres']);

/**
 * Who is told why the database does not answer: a signed-in administrator, and whoever may read
 * /metrics (the METRICS_TOKEN, or a direct connection from this machine). The driver's error names the
 * database's host and port: the public, a load balancer included, learns only "unavailable".
 */
function mayReadTheReason(request: FastifyRequest, metricsToken: string | undefined): boolean {
  if (request.user?.accessRole === 'ADMIN') return true;
  const headers = request.headers;
  const proxied = Boolean(headers['x-forwarded-for'] ?? headers.forwarded ?? headers['x-real-ip']);
  return scrapeRefusal({ authorization: headers.authorization, remoteAddress: request.socket.remoteAddress, proxied }, metricsToken) === null;
}

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
            503: z.object({ status: z.literal('unavailable'), database, reason: z.string().optional() }),
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
          const body = { status: 'unavailable' as const, database: ctx.dialect, ...(mayReadTheReason(request, ctx.config.metricsToken) ? { reason } : {}) };
          return reply.status(503).header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS)).send(body);
        }
      },
    );
  };
}
