import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

const clientError = z.object({
  message: z.string().max(2000),
  stack: z.string().max(20000).optional(),
  url: z.string().max(2000).optional(),
  userAgent: z.string().max(500).optional(),
});

/** The web app's error reports (the spec's "proxy path"): logged, nothing stored. */
export function clientErrorRoutes(): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/client-errors',
      { schema: { tags: ['health'], summary: 'Report a web app error', body: clientError, response: { 204: z.null() } }, config: { rateLimit: { max: 30, timeWindow: '1 minute' } } },
      async (request, reply) => {
        request.log.warn({ clientError: request.body, userId: request.user?.id }, 'web app error');
        return reply.status(204).send(null);
      },
    );
  };
}
