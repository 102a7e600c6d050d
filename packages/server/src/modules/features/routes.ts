import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParam } from '@lm/contract';
import { feature, featureFields, featureList, featureListQuery, featureUpdate } from '@lm/contract/feature';
import type { AppContext } from '../../platform/context.ts';
import { actorOf, authorize, maySee, visibleFields, visibleItems } from '../../platform/http/auth.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { createFeature, deleteFeature, getFeature, listFeatures, updateFeature } from './service.ts';

const tags = ['features'];

export function featureRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/features',
      { schema: { tags, summary: 'List features (limit up to 10000 for the web app\'s cache)', querystring: featureListQuery, response: { 200: featureList, ...errorResponses } } },
      async (request) => {
        authorize(request, 'view-list', 'Feature');
        return visibleItems(request, 'Feature', await listFeatures(ctx, { ...request.query, searchNotes: maySee(request, 'Feature', 'notes') }));
      },
    );

    app.get('/features/:id', { schema: { tags, summary: 'One feature', params: idParam, response: { 200: feature, ...errorResponses } } }, async (request) => {
      authorize(request, 'view', 'Feature');
      return visibleFields(request, 'Feature', await getFeature(ctx, request.params.id));
    });

    app.post(
      '/features',
      { schema: { tags, summary: 'Create a feature', body: featureFields, response: { 201: feature, ...errorResponses } } },
      async (request, reply) => {
        authorize(request, 'create', 'Feature');
        return reply.status(201).send(await createFeature(ctx, actorOf(request), request.body));
      },
    );

    app.put(
      '/features/:id',
      { schema: { tags, summary: 'Change a feature; a field left out keeps its value', params: idParam, body: featureUpdate, response: { 200: feature, ...errorResponses } } },
      async (request) => {
        authorize(request, 'update', 'Feature');
        return updateFeature(ctx, actorOf(request), request.params.id, request.body);
      },
    );

    app.delete(
      '/features/:id',
      { schema: { tags, summary: 'Delete a feature that nothing uses', params: idParam, response: { 204: z.null(), ...errorResponses } } },
      async (request, reply) => {
        authorize(request, 'delete', 'Feature');
        await deleteFeature(ctx, actorOf(request), request.params.id);
        return reply.status(204).send(null);
      },
    );
  };
}
