import { z } from 'zod';
import { orderTimeMs, shopOrderWebhook } from '@lm/contract/order';
import { isFresh, signatureMatches } from '../../orders/signature.ts';
import { header, type Connector } from './types.ts';

/**
 * Any other shop: the order webhook's body (DESIGN.md section 5) with `items`, signed the same way
 * (`X-Signature`: lowercase hex HMAC-SHA256 of the raw body) but with the connection's secret, its
 * timestamp within five minutes. The order id is the event id: an order is handled once.
 */
export const genericConnector: Connector = {
  verify(secret, delivery) {
    if (!signatureMatches(secret, delivery.rawBody, header(delivery, 'x-signature'))) return false;
    try {
      const timestamp = (JSON.parse(delivery.rawBody) as { timestamp?: unknown }).timestamp;
      return (typeof timestamp === 'string' || typeof timestamp === 'number') && isFresh(orderTimeMs(timestamp), delivery.now.getTime());
    } catch {
      return false;
    }
  },
  signedAtAnyTime: (secret, delivery) => signatureMatches(secret, delivery.rawBody, header(delivery, 'x-signature')),
  parse(body) {
    // The buyer's address is checked with every provider's (service.ts): an unusable one makes a failed event.
    const order = shopOrderWebhook.extend({ email: z.string().trim().min(1).max(4000) }).parse(body);
    return [
      {
        eventId: order.orderId,
        type: 'order',
        payload: body,
        action: {
          kind: 'purchase',
          orderRef: order.orderId,
          subscriptionRef: null,
          paymentRefs: [order.orderId],
          buyer: { email: order.email, firstName: order.firstName, lastName: order.lastName, company: order.company, locale: order.locale },
          machineId: order.machineId,
          items: order.items.map((item) => ({ externalIds: [item.externalId], quantity: item.quantity })),
          periodEnd: null,
          at: new Date(orderTimeMs(order.timestamp)).toISOString(),
        },
      },
    ];
  },
};
