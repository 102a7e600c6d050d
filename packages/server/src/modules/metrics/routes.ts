import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../platform/context.ts';
import { scrapeRefusal } from './access.ts';

/** `GET /metrics`: the Prometheus text format (see README, "Monitoring"). */
export function metricsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/metrics', { schema: { hide: true }, config: { rateLimit: { max: 120, timeWindow: '1 minute' } } }, async (request, reply) => {
      const headers = request.headers;
      const refusal = scrapeRefusal(
        {
          authorization: headers.authorization,
          remoteAddress: request.socket.remoteAddress,
          proxied: Boolean(headers['x-forwarded-for'] ?? headers.forwarded ?? headers['x-real-ip']),
        },
        ctx.config.metricsToken,
      );
      if (refusal) {
        if (refusal.status === 401) reply.header('www-authenticate', 'Bearer realm="metrics"');
        throw refusal;
      }
      return reply.type(ctx.metrics.contentType).header('cache-control', 'no-store').send(await ctx.metrics.render());
    });
  };
}
