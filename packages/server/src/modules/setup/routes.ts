import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { setupStatus as setupStatusSchema } from '@lm/contract';
import type { AppContext } from '../../platform/context.ts';
import { authorize } from '../../platform/http/auth.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { setupStatus } from './service.ts';

/** The first-run checklist of a new installation's administrator (issue 38). */
export function setupRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/setup-status',
      {
        schema: {
          tags: ['settings'],
          summary: 'What of a new installation is set up: a product, a policy of its own, a TAN, the mail sender, a distributor (administrators)',
          response: { 200: setupStatusSchema, ...errorResponses },
        },
      },
      async (request) => {
        authorize(request, 'update', 'Setting');
        return setupStatus(ctx);
      },
    );
  };
}
