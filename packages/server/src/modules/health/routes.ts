import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.ts';

export function healthRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/health',
      { schema: { tags: ['health'], summary: 'Answers when the database does', response: { 200: z.object({ status: z.literal('ok'), database: z.enum(['sqlite', 'postgres']) }) } } },
      async () => {
        await sql`select 1`.execute(ctx.db);
        return { status: 'ok' as const, database: ctx.dialect };
      },
    );
  };
}
