import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { changeLogList, changeLogParams, changeLogQuery } from '@lm/contract/change-log';
import type { AppContext } from '../../platform/context.ts';
import { authorize } from '../../platform/http/auth.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { listChanges } from './service.ts';

export function changeLogRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/changes/:model',
      {
        schema: {
          tags: ['changes'],
          summary: 'Change log of one model (User, Product, Tan, License, Feature, LicensePolicy), newest first',
          description:
            'Each entry: operation (insert, update, delete), timestamp, the acting user (null for the system), and the old and new values. ' +
            '`recordId` narrows the log to one record, `filter` searches the values. Secrets never appear.',
          params: changeLogParams,
          querystring: changeLogQuery,
          response: { 200: changeLogList, ...errorResponses },
        },
      },
      async (request) => {
        authorize(request, 'view-change-log', request.params.model);
        return listChanges(ctx, request.params.model, request.query);
      },
    );
  };
}
