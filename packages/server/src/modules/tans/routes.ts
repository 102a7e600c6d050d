import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idParam } from '@lm/contract';
import { tan, tanCreate, tanCreateQuery, tanLimits, tanList, tanListQuery, tanTags, tanUpdate } from '@lm/contract/tan';
import type { AppContext } from '../../platform/context.ts';
import { authorize, requireUser } from '../../platform/http/auth.ts';
import { editResponses, errorResponses } from '../../platform/http/openapi.ts';
import { ETAG_CONFIG, ifMatchHeaders, preconditionOf, withEtag } from '../../platform/http/versioned.ts';
import { createTans, getTan, listVisibleTans, maxLicenseCount, tagsForCaller, updateTanFor } from './service.ts';

export function tanRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/tans',
      {
        schema: {
          tags: ['tans'],
          summary: 'List TANs (distributors: their own); the filter is a code prefix, dashes ignored',
          querystring: tanListQuery,
          response: { 200: tanList, ...errorResponses },
        },
      },
      async (request) => listVisibleTans(ctx, request, request.query),
    );

    app.get(
      '/tans/tags',
      { schema: { tags: ['tans'], summary: 'Every tag of the TANs the caller sees', response: { 200: tanTags, ...errorResponses } } },
      async (request) => ({ items: await tagsForCaller(ctx, request) }),
    );

    app.get(
      '/tans/limits',
      { schema: { tags: ['tans'], summary: 'The configured maximum license count of a TAN', response: { 200: tanLimits, ...errorResponses } } },
      async (request) => {
        requireUser(request);
        authorize(request, 'create', 'Tan');
        return { maxLicenseCount: await maxLicenseCount(ctx.db) };
      },
    );

    app.post(
      '/tans',
      {
        schema: {
          tags: ['tans'],
          summary: 'Create count TANs in one transaction (all or nothing) and return them',
          querystring: tanCreateQuery,
          body: tanCreate,
          response: { 201: tanList, ...errorResponses },
        },
      },
      async (request, reply) => {
        const items = await createTans(ctx, request, request.body, request.query.count);
        return reply.status(201).send({ items, totalCount: items.length });
      },
    );

    app.get(
      '/tans/:id',
      { schema: { tags: ['tans'], summary: 'One TAN, with its ETag', params: idParam, response: { 200: tan, ...errorResponses } }, config: ETAG_CONFIG },
      async (request, reply) => withEtag(reply, await getTan(ctx, request, request.params.id)),
    );

    app.put(
      '/tans/:id',
      {
        schema: {
          tags: ['tans'],
          summary: 'Edit or revoke a TAN; a field left out keeps its value; with If-Match only while the TAN is still the version read',
          params: idParam,
          headers: ifMatchHeaders,
          body: tanUpdate,
          response: { 200: tan, ...editResponses },
        },
        config: ETAG_CONFIG,
      },
      async (request, reply) => withEtag(reply, await updateTanFor(ctx, request, request.params.id, request.body, preconditionOf(request))),
    );
  };
}
