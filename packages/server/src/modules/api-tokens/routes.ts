import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idParam } from '@lm/contract';
import { apiTokenCreate, apiTokenCreated, apiTokenList, apiTokenListQuery } from '@lm/contract/api-token';
import type { AppContext } from '../../platform/context.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { createToken, listTokens, revokeToken } from './service.ts';

export function apiTokenRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api-tokens',
      {
        schema: {
          tags: ['api-tokens'],
          summary: "The caller's API tokens (administrators: every account's, or one account's with ownerId); never the tokens themselves",
          querystring: apiTokenListQuery,
          response: { 200: apiTokenList, ...errorResponses },
        },
        // A token that could make tokens would outlive its own revocation through the ones it made.
        config: { sessionOnly: true },
      },
      async (request) => listTokens(ctx, request, request.query),
    );

    app.post(
      '/api-tokens',
      {
        schema: {
          tags: ['api-tokens'],
          summary: 'Create an API token for the signed-in caller; the token is in this answer only (send it as Authorization: Bearer <token>)',
          body: apiTokenCreate,
          response: { 201: apiTokenCreated, ...errorResponses },
        },
        config: { sessionOnly: true },
      },
      async (request, reply) => reply.status(201).send(await createToken(ctx, request, request.body)),
    );

    app.delete(
      '/api-tokens/:id',
      { schema: { tags: ['api-tokens'], summary: 'Revoke an API token', params: idParam, response: { 204: z.null(), ...errorResponses } }, config: { sessionOnly: true } },
      async (request, reply) => {
        await revokeToken(ctx, request, request.params.id);
        return reply.status(204).send(null);
      },
    );
  };
}
