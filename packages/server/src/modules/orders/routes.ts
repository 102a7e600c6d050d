import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ORDER_SIGNATURE_HEADER, orderWebhook, orderWebhookResult } from '@lm/contract/order';
import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { handleOrder, verifyOrderSignature } from './service.ts';

const DESCRIPTION = `Order automation for the shop. The body is JSON:
\`{ "orderId": "A-1001", "timestamp": "2026-01-31T12:00:00Z", "email": "customer@example.com", "firstName": "Ada", "lastName": "Lovelace", "company": "Analytical Engines Ltd", "locale": "en", "machineId": "MACHINE-1" }\`
(\`timestamp\` may also be Unix seconds; \`company\`, \`locale\` and \`machineId\` are optional).

The header \`X-Signature\` must carry the lowercase hex HMAC-SHA256 of the raw body, keyed with the
webhook secret of the settings: 401 \`ERR_INVALID_SIGNATURE\` otherwise. A timestamp more than five
minutes away from the server time is refused as a replay (401 \`ERR_STALE_REQUEST\`). Each \`orderId\`
is handled once: a repeated delivery changes nothing and answers the first result with \`duplicate: true\`.

With automatic account creation on, an order from an unknown address creates a confirmed customer
account. With automatic temporary license on, the order's account gets a temporary license for the
configured product, valid for the configured days, bound to \`machineId\` when the order carries one
(otherwise the customer sets it with "change machine").

This endpoint makes no TANs: it has no mapping of the shop's product ids to products. A body with
\`items\` that are not empty is refused (400 \`ERR_VALIDATION\`, path \`items\`): send such orders to a shop
connection of provider \`generic\` (\`POST /api/webhooks/shop/{id}\`, docs/selling.md), whose mapping turns
each line into a TAN.`;

/** Raw bodies of this plugin's requests, for the signature (kept only as long as the request lives). */
const rawBodies = new WeakMap<FastifyRequest, string>();

export function orderWebhookRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    // Scoped to this plugin: the signature is computed over the exact bytes the shop sent.
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const raw = body as string;
      rawBodies.set(request, raw);
      try {
        done(null, JSON.parse(raw));
      } catch {
        done(new AppError(400, 'ERR_BAD_REQUEST', 'The body is not valid JSON'));
      }
    });

    app.post(
      '/webhooks/orders',
      {
        bodyLimit: 64 * 1024,
        config: { rateLimit: { max: 300, timeWindow: '1 minute' } },
        // The signature comes first: an unsigned body learns nothing, not even what is wrong with it.
        preValidation: async (request) => verifyOrderSignature(ctx, rawBodies.get(request) ?? '', headerValue(request.headers[ORDER_SIGNATURE_HEADER])),
        schema: {
          tags: ['orders'],
          summary: 'Order webhook of the shop: account creation and temporary license',
          description: DESCRIPTION,
          headers: z.looseObject({ 'x-signature': z.string().optional().describe('lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook secret') }),
          body: orderWebhook,
          response: { 200: orderWebhookResult, ...errorResponses },
        },
      },
      async (request) => handleOrder(ctx, request.body),
    );
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
