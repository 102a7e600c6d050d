import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idParam } from '@lm/contract';
import {
  webhookDelivery,
  webhookDeliveryList,
  webhookDeliveryListQuery,
  webhookEndpoint,
  webhookEndpointFields,
  webhookEndpointList,
  webhookEndpointListQuery,
  webhookEndpointUpdate,
  webhookEndpointWithSecret,
} from '@lm/contract/webhook';
import type { AppContext } from '../../platform/context.ts';
import { editResponses, errorResponses } from '../../platform/http/openapi.ts';
import { ETAG_CONFIG, ifMatchHeaders, preconditionOf, withEtag } from '../../platform/http/versioned.ts';
import {
  createEndpoint,
  deleteEndpointFor,
  deliveriesOf,
  getEndpoint,
  listVisibleEndpoints,
  redeliver,
  rotateSecret,
  sendTestEvent,
  updateEndpointFor,
} from './service.ts';

const tags = ['webhooks'];

export function webhookRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/webhook-endpoints',
      {
        schema: {
          tags,
          summary: 'Outbound webhook endpoints (distributors: their own); secrets are never listed',
          querystring: webhookEndpointListQuery,
          response: { 200: webhookEndpointList, ...errorResponses },
        },
      },
      async (request) => listVisibleEndpoints(ctx, request, request.query),
    );

    app.post(
      '/webhook-endpoints',
      {
        schema: {
          tags,
          summary: 'Add an endpoint; the answer carries its signing secret (whsec_…), shown only this once',
          body: webhookEndpointFields,
          response: { 201: webhookEndpointWithSecret, ...errorResponses },
        },
      },
      async (request, reply) => reply.status(201).send(await createEndpoint(ctx, request, request.body)),
    );

    app.get(
      '/webhook-endpoints/:id',
      { schema: { tags, summary: 'One endpoint, with its ETag', params: idParam, response: { 200: webhookEndpoint, ...errorResponses } }, config: ETAG_CONFIG },
      async (request, reply) => withEtag(reply, await getEndpoint(ctx, request, request.params.id)),
    );

    app.put(
      '/webhook-endpoints/:id',
      {
        schema: {
          tags,
          summary: 'Change an endpoint (fields left out keep their value); switching it on again sends what waited; with If-Match only while it is still the version read',
          params: idParam,
          headers: ifMatchHeaders,
          body: webhookEndpointUpdate,
          response: { 200: webhookEndpoint, ...editResponses },
        },
        config: ETAG_CONFIG,
      },
      async (request, reply) => withEtag(reply, await updateEndpointFor(ctx, request, request.params.id, request.body, preconditionOf(request))),
    );

    app.delete(
      '/webhook-endpoints/:id',
      {
        schema: {
          tags,
          summary: 'Delete an endpoint with its deliveries; with If-Match only while it is still the version read',
          params: idParam,
          headers: ifMatchHeaders,
          response: { 204: z.null(), ...editResponses },
        },
      },
      async (request, reply) => {
        await deleteEndpointFor(ctx, request, request.params.id, preconditionOf(request));
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/webhook-endpoints/:id/secret',
      {
        schema: {
          tags,
          summary: 'Rotate the signing secret: the new one is shown only this once; the old one signs too for 24 hours',
          params: idParam,
          response: { 200: webhookEndpointWithSecret, ...errorResponses },
        },
      },
      async (request) => rotateSecret(ctx, request, request.params.id),
    );

    app.get(
      '/webhook-endpoints/:id/deliveries',
      {
        schema: {
          tags,
          summary: "The endpoint's delivery log, newest first: each delivery with its attempts (time, status code, duration, response excerpt, error)",
          params: idParam,
          querystring: webhookDeliveryListQuery,
          response: { 200: webhookDeliveryList, ...errorResponses },
        },
      },
      async (request) => deliveriesOf(ctx, request, request.params.id, request.query),
    );

    app.post(
      '/webhook-endpoints/:id/test',
      {
        schema: {
          tags,
          summary: 'Send a signed webhook.test event now and answer with the attempt',
          params: idParam,
          response: { 200: webhookDelivery, ...errorResponses },
        },
      },
      async (request) => sendTestEvent(ctx, request, request.params.id),
    );

    app.post(
      '/webhook-deliveries/:id/redeliver',
      {
        schema: {
          tags,
          summary: 'Deliver again: a finished delivery is queued anew (same webhook-id); a waiting one is tried at once',
          params: idParam,
          response: { 202: webhookDelivery, ...errorResponses },
        },
      },
      async (request, reply) => reply.status(202).send(await redeliver(ctx, request, request.params.id)),
    );
  };
}
