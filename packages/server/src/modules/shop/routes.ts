import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParam, MAX_RECORD_ID, wholeNumberText } from '@lm/contract';
import { shopConnection, shopConnectionFields, shopConnectionList, shopConnectionUpdate, shopDeliveryResult, shopEvent, shopEventList, shopEventListQuery, shopOrderList, shopOrderListQuery, shopPurchaseList } from '@lm/contract/shop';
import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import { editResponses, errorResponses } from '../../platform/http/openapi.ts';
import { ETAG_CONFIG, ifMatchHeaders, preconditionOf, withEtag } from '../../platform/http/versioned.ts';
import { createShopConnection, deleteShopConnection, getShopConnection, listShopConnections, purchasesOfCaller, updateShopConnection } from './connections.ts';
import { listShopOrders } from './orders.ts';
import { eventsOf, handleShopDelivery, replayEvent } from './service.ts';

const tags = ['shop'];

const DELIVERY_DESCRIPTION = `Events of a connected shop (DESIGN.md section 6c; docs/selling.md). Each provider signs as it documents:
Stripe \`Stripe-Signature\` (t=…,v1=hex HMAC-SHA256 of "t.body", 5 minutes tolerance), Paddle Billing \`Paddle-Signature\`
(ts=…;h1=hex HMAC-SHA256 of "ts:body", 5 seconds tolerance), FastSpring \`X-FS-Signature\` and Shopify \`X-Shopify-Hmac-Sha256\`
(base64 HMAC-SHA256 of the body), generic \`X-Signature\` (hex HMAC-SHA256 of the body, the order webhook's body with \`items\`).
A wrong, missing or stale signature, or an unknown connection: 401 \`ERR_INVALID_SIGNATURE\`. Each event id is handled once; a
repeat answers its first result with \`duplicate: true\`. An event that cannot be handled yet (no mapping for an item, an inactive
product, no account) is kept as failed with its reason and answered 200, so the shop does not retry it; an administrator replays it.`;

/** Raw bodies of this plugin's requests, for the signatures (kept only as long as the request lives). */
const rawBodies = new WeakMap<FastifyRequest, string>();

export function shopWebhookRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    // Scoped to this plugin: signatures are computed over the exact bytes the shop sent.
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      rawBodies.set(request, body as string);
      done(null, null);
    });

    app.post(
      '/webhooks/shop/:id',
      {
        bodyLimit: 512 * 1024,
        config: { rateLimit: { max: 600, timeWindow: '1 minute' } },
        schema: {
          tags,
          summary: 'Events of a connected shop: purchases and subscriptions become TANs',
          description: DELIVERY_DESCRIPTION,
          params: idParam,
          response: { 200: shopDeliveryResult, ...errorResponses },
        },
      },
      async (request) => {
        const rawBody = rawBodies.get(request);
        if (rawBody === undefined) throw new AppError(400, 'ERR_BAD_REQUEST', 'The body must be JSON');
        return handleShopDelivery(ctx, request.params.id, { rawBody, headers: request.headers, now: new Date() });
      },
    );
  };
}

const eventParams = z.object({
  id: wholeNumberText(1, MAX_RECORD_ID).describe('The shop connection'),
  eventId: z.string().trim().min(1).max(200).describe('The provider’s event id (as the shop sent it, e.g. evt_…), or the event’s id on the Orders page'),
});

export function shopConnectionRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/shop-connections',
      { schema: { tags, summary: 'Shop connections (administrators); secrets are never shown', response: { 200: shopConnectionList, ...errorResponses } } },
      async (request) => listShopConnections(ctx, request),
    );
    app.post(
      '/shop-connections',
      {
        schema: {
          tags,
          summary: 'Connect a shop: provider, webhook secret (stored encrypted, never shown again), grace days and the mapping of its product or price ids',
          body: shopConnectionFields,
          response: { 201: shopConnection, ...errorResponses },
        },
      },
      async (request, reply) => reply.status(201).send(await createShopConnection(ctx, request, request.body)),
    );
    app.get(
      '/shop-connections/:id',
      { schema: { tags, summary: 'One shop connection, with its ETag', params: idParam, response: { 200: shopConnection, ...errorResponses } }, config: ETAG_CONFIG },
      async (request, reply) => withEtag(reply, await getShopConnection(ctx, request, request.params.id)),
    );
    app.put(
      '/shop-connections/:id',
      {
        schema: {
          tags,
          summary: 'Change a shop connection (fields left out keep their value; mappings replace all); with If-Match only while it is still the version read',
          params: idParam,
          headers: ifMatchHeaders,
          body: shopConnectionUpdate,
          response: { 200: shopConnection, ...editResponses },
        },
        config: ETAG_CONFIG,
      },
      async (request, reply) => withEtag(reply, await updateShopConnection(ctx, request, request.params.id, request.body, preconditionOf(request))),
    );
    app.delete(
      '/shop-connections/:id',
      {
        schema: {
          tags,
          summary: 'Disconnect a shop (the TANs it made stay); with If-Match only while it is still the version read',
          params: idParam,
          headers: ifMatchHeaders,
          response: { 204: z.null(), ...editResponses },
        },
      },
      async (request, reply) => {
        await deleteShopConnection(ctx, request, request.params.id, preconditionOf(request));
        return reply.status(204).send(null);
      },
    );
    app.get(
      '/shop-purchases',
      { schema: { tags, summary: 'The caller’s TANs bought in a connected shop (not revoked), newest first: ready to activate while activations are left', response: { 200: shopPurchaseList, ...errorResponses } } },
      async (request) => purchasesOfCaller(ctx, request),
    );
    app.get(
      '/shop-connections/:id/events',
      { schema: { tags, summary: 'Events the shop sent, newest first, with their outcome', params: idParam, querystring: shopEventListQuery, response: { 200: shopEventList, ...errorResponses } } },
      async (request) => eventsOf(ctx, request, request.params.id, request.query),
    );
    app.get(
      '/shop-orders',
      {
        schema: {
          tags,
          summary: 'Orders and events of every shop connection (administrators), newest first, with the TANs and licenses they made',
          description:
            'Filter by `connectionId`, by `outcome` (`processed`, `ignored`, `failed`, `pending`: waiting for its purchase, or `duplicate`: delivered more than once) and by `filter`, a part of the order, subscription or event id or of the buyer’s address. A failed event is replayed with `POST /shop-connections/{id}/events/{eventId}/replay`.',
          querystring: shopOrderListQuery,
          response: { 200: shopOrderList, ...errorResponses },
        },
      },
      async (request) => listShopOrders(ctx, request, request.query),
    );
    app.post(
      '/shop-connections/:id/events/:eventId/replay',
      { schema: { tags, summary: 'Run a failed event again (after fixing its mapping or product)', params: eventParams, response: { 200: shopEvent, ...errorResponses } } },
      async (request) => replayEvent(ctx, request, request.params.id, request.params.eventId),
    );
  };
}
