import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { dashboard } from '@lm/contract/dashboard';
import type { AppContext } from '../../platform/context.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { dashboardOf } from './service.ts';

export function dashboardRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/dashboard',
      {
        schema: {
          tags: ['dashboard'],
          summary: 'The staff home: what needs attention today',
          description:
            'Activations (and, for administrators, machines seen) per day over the last 7 days; TANs whose subscription ends within 14 days, suspended TANs, ' +
            'TANs near their license count; failed shop events (administrators); the caller’s failing webhook endpoints. Each figure carries `link`, the web app path ' +
            'of the list filtered to it. Needs `view-list` on `Tan`: administrators count every TAN, distributors only their own; a figure the caller may not see is null.',
          response: { 200: dashboard, ...errorResponses },
        },
      },
      async (request) => dashboardOf(ctx, request),
    );
  };
}
