import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { asSubject } from '@lm/contract';
import { STATISTICS_METRICS, statisticsField, statisticsParams, statisticsQuery, statisticsResult } from '@lm/contract/statistics';
import type { AppContext } from '../../platform/context.ts';
import { authorize, requireUser } from '../../platform/http/auth.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { foldCountersPeriodically, statistics } from './service.ts';

export function statisticsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const stopFolding = foldCountersPeriodically(ctx);
    app.addHook('onClose', async () => stopFolding());

    app.get(
      '/statistics/:category',
      {
        schema: {
          tags: ['statistics'],
          summary: 'One statistics category per month and in total',
          description:
            'Categories: tan-activations, tan-free-updates-expired, trial-licenses (with the conversion rate), new-users, active-users, active-machines, downloads (release downloads started, by whole months), overage (floating seats granted beyond the count of a TAN, and the TANs they were granted for). ' +
            '`from` and `to` are inclusive days (default: the last twelve months); `productId` narrows to one product (404 ERR_NOT_FOUND when there is no such product). ' +
            'Each number needs `view-chart` on `Statistics` with its field, e.g. `Tans.Activated.activations`; distributors see only the activations and over-limit grants of their own TANs.',
          params: statisticsParams,
          querystring: statisticsQuery,
          response: { 200: statisticsResult, ...errorResponses },
        },
      },
      async (request) => {
        const user = requireUser(request);
        const { category } = request.params;
        for (const metric of STATISTICS_METRICS[category]) authorize(request, 'view-chart', 'Statistics', null, statisticsField(category, metric));
        // Whoever may not see TANs outside their own distribution counts only their own.
        const undistributedTan: Record<string, unknown> = { distributorId: null };
        const seesEveryTan = request.ability.can('view-list', asSubject('Tan', undistributedTan));
        return statistics(ctx, category, request.query, seesEveryTan ? {} : { distributorId: user.id });
      },
    );
  };
}
