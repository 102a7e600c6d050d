import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParam } from '@lm/contract';
import type { FastifyRequest } from 'fastify';
import { type Feature, feature, featureFields, featureList, featureListQuery, featureUpdate } from '@lm/contract/feature';
import type { AppContext } from '../../platform/context.ts';
import { actorOf, authorize, maySee, visibleFields, visibleItems } from '../../platform/http/auth.ts';
import { editResponses, errorResponses } from '../../platform/http/openapi.ts';
import { ETAG_CONFIG, ifMatchHeaders, preconditionOf, withEtag } from '../../platform/http/versioned.ts';
import { createFeature, deleteFeature, getFeature, listFeatures, updateFeature } from './service.ts';

const tags = ['features'];

/** A feature as the caller's GET shows it (staff fields only to staff). */
const shown = (request: FastifyRequest, record: Feature) => visibleFields(request, 'Feature', record);

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

    app.get(
      '/features/:id',
      { schema: { tags, summary: 'One feature, with its ETag', params: idParam, response: { 200: feature, ...errorResponses } }, config: ETAG_CONFIG },
      async (request, reply) => {
        authorize(request, 'view', 'Feature');
        return withEtag(reply, shown(request, await getFeature(ctx, request.params.id)));
      },
    );

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
      {
        schema: {
          tags,
          summary: 'Change a feature; a field left out keeps its value; with If-Match only while the feature is still the version read',
          params: idParam,
          headers: ifMatchHeaders,
          body: featureUpdate,
          response: { 200: feature, ...editResponses },
        },
        config: ETAG_CONFIG,
      },
      async (request, reply) => {
        authorize(request, 'update', 'Feature');
        const updated = await updateFeature(ctx, actorOf(request), request.params.id, request.body, preconditionOf(request, (record: Feature) => shown(request, record)));
        return withEtag(reply, shown(request, updated));
      },
    );

    app.delete(
      '/features/:id',
      {
        schema: {
          tags,
          summary: 'Delete a feature that nothing uses; with If-Match only while it is still the version read',
          params: idParam,
          headers: ifMatchHeaders,
          response: { 204: z.null(), ...editResponses },
        },
      },
      async (request, reply) => {
        authorize(request, 'delete', 'Feature');
        await deleteFeature(ctx, actorOf(request), request.params.id, preconditionOf(request, (record: Feature) => shown(request, record)));
        return reply.status(204).send(null);
      },
    );
  };
}
