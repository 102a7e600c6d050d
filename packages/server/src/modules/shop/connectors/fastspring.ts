import { resolveLocale } from '@lm/contract/messages';
import { base64Equals, hmacSha256 } from './hmac.ts';
import { header, list, quantity, record, text, type Connector, type ParsedEvent, type ShopAction } from './types.ts';

/** `X-FS-Signature`: the base64 HMAC-SHA256 of the raw body keyed with the webhook's HMAC SHA256 secret (no timestamp). */
export function fastSpringSignature(secret: string, rawBody: string): string {
  return hmacSha256(secret, rawBody).toString('base64');
}

export function fastSpringSignatureMatches(secret: string, rawBody: string, signature: string | undefined): boolean {
  return Boolean(signature) && base64Equals(hmacSha256(secret, rawBody), signature!);
}

/** FastSpring times are milliseconds since the epoch. */
function fromMillis(value: unknown): string | null {
  return typeof value === 'number' && Number.isFinite(value) ? new Date(value).toISOString() : null;
}

/** A subscription's id in an item or event: a string, or the subscription object. */
const subscriptionId = (value: unknown) => text(value) ?? text(record(value).id) ?? text(record(value).subscription);

function orderCompleted(data: Record<string, unknown>, at: string): ShopAction {
  if (data.completed === false) return { kind: 'ignore', reason: 'unpaid' };
  const customer = record(data.customer);
  const email = text(customer.email);
  const order = text(data.order) ?? text(data.id) ?? '';
  const items = list(data.items).map(record);
  const subscription = items.map((item) => subscriptionId(item.subscription)).find((id) => id !== null) ?? null;
  const tags = record(data.tags);
  return {
    kind: 'purchase',
    // One order's items each make a TAN; a subscription's renewals find it by the subscription.
    orderRef: subscription ?? order,
    subscriptionRef: subscription,
    paymentRefs: [order, text(data.reference)].filter((ref): ref is string => Boolean(ref)),
    buyer: email ? { email, firstName: text(customer.first) ?? email, lastName: text(customer.last) ?? '-', company: text(customer.company), locale: text(data.language) ? resolveLocale(text(data.language)) : null } : null,
    machineId: text(tags.machineId) ?? text(tags.machine_id),
    // An item without a subscription in a subscription's cart (a perpetual add-on) is bought once.
    items: items
      .map((item) => ({ externalIds: [text(item.product), text(item.sku)].filter((id): id is string => id !== null), quantity: quantity(item.quantity), recurring: subscriptionId(item.subscription) !== null }))
      .filter((item) => item.externalIds.length),
    periodEnd: subscription ? (items.map((item) => fromMillis(record(item.subscription).nextChargeDate ?? record(item.subscription).next)).find((end) => end !== null) ?? null) : null,
    at,
  };
}

function actionOf(type: string, data: Record<string, unknown>, at: string): ShopAction {
  switch (type) {
    case 'order.completed':
      return orderCompleted(data, at);
    case 'subscription.charge.completed': {
      const subscription = record(data.subscription);
      const id = subscriptionId(data.subscription);
      if (!id) return { kind: 'ignore', reason: 'not-handled' };
      if (text(data.status) && text(data.status) !== 'successful') return { kind: 'ignore', reason: 'unpaid' };
      const order = record(data.order);
      const orderId = text(order.order) ?? text(order.id);
      return {
        kind: 'purchase',
        orderRef: id,
        subscriptionRef: id,
        paymentRefs: [orderId, text(order.reference)].filter((ref): ref is string => Boolean(ref)),
        buyer: null,
        machineId: null,
        items: text(subscription.product) ? [{ externalIds: [text(subscription.product)!], quantity: quantity(subscription.quantity) }] : [],
        periodEnd: fromMillis(subscription.nextChargeDate ?? subscription.next ?? subscription.nextInSeconds),
        at,
      };
    }
    case 'subscription.activated': {
      // Sent with the order that starts a subscription: its first period's end (the order's item
      // names only the subscription's id), so the TAN has an end from the start, not from the first renewal.
      const id = text(data.id) ?? text(data.subscription);
      const end = fromMillis(data.nextChargeDate ?? data.next);
      if (!id || !end) return { kind: 'ignore', reason: 'not-handled' };
      return { kind: 'purchase', orderRef: id, subscriptionRef: id, paymentRefs: [], buyer: null, machineId: null, items: text(data.product) ? [{ externalIds: [text(data.product)!], quantity: quantity(data.quantity) }] : [], periodEnd: end, at };
    }
    case 'subscription.payment.overdue': {
      const id = subscriptionId(data.subscription) ?? text(data.id);
      return id ? { kind: 'payment-failed', subscriptionRef: id, at } : { kind: 'ignore', reason: 'not-handled' };
    }
    case 'subscription.deactivated': {
      const id = text(data.id) ?? text(data.subscription);
      return id ? { kind: 'cancel', subscriptionRef: id, endsAt: fromMillis(data.deactivationDate ?? data.end) ?? at, at } : { kind: 'ignore', reason: 'not-handled' };
    }
    case 'return.created': {
      const original = record(data.original);
      const refs = [text(original.order) ?? text(original.id), text(original.reference)].filter((ref): ref is string => Boolean(ref));
      // A return names the items it gives back: only their TANs are revoked (a perpetual item of a
      // cart stays when its subscription is returned). A return without items gives back the order.
      const lines = list(data.items)
        .map(record)
        .map((item) => ({ lineId: null, externalIds: [text(item.product), text(item.sku)].filter((id): id is string => id !== null) }))
        .filter((line) => line.externalIds.length);
      return lines.length ? { kind: 'refund', refs, lines, at } : { kind: 'refund', refs, at };
    }
    default:
      return { kind: 'ignore', reason: 'not-handled' };
  }
}

export const fastSpringConnector: Connector = {
  verify: (secret, delivery) => fastSpringSignatureMatches(secret, delivery.rawBody, header(delivery, 'x-fs-signature')),
  /** A delivery batches events: `{ "events": [{ id, type, created, data }, …] }`. */
  parse(body) {
    const events = list(record(body).events).map(record);
    if (!events.length) throw new TypeError('A FastSpring delivery has an events array');
    return events.map((event): ParsedEvent => {
      const eventId = text(event.id);
      const type = text(event.type);
      if (!eventId || !type) throw new TypeError('A FastSpring event has an id and a type');
      const at = fromMillis(event.created) ?? new Date().toISOString();
      return { eventId, type, action: actionOf(type, record(event.data), at), payload: event };
    });
  },
};
