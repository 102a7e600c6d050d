import { resolveLocale } from '@lm/contract/messages';
import { base64Equals, hmacSha256 } from './hmac.ts';
import { header, list, quantity, record, text, type Connector, type ShopAction } from './types.ts';

/** `X-Shopify-Hmac-Sha256`: the base64 HMAC-SHA256 of the raw body keyed with the app's client secret (no timestamp). */
export function shopifySignature(secret: string, rawBody: string): string {
  return hmacSha256(secret, rawBody).toString('base64');
}

/**
 * The machine id of an order, when the storefront asks for it: a note attribute (cart attribute)
 * named `machine_id` or `Machine ID`, or a line item property of that name.
 */
function machineIdOf(order: Record<string, unknown>): string | null {
  const named = (entries: unknown) =>
    list(entries)
      .map(record)
      .find((entry) => /^machine[ _-]?id$/i.test(text(entry.name) ?? ''));
  const attribute = named(order.note_attributes);
  if (attribute) return text(attribute.value);
  for (const item of list(order.line_items).map(record)) {
    const property = named(item.properties);
    if (property) return text(property.value);
  }
  return null;
}

/** A line item's ids a mapping may name: variant, SKU, product. */
function lineExternalIds(item: Record<string, unknown>): string[] {
  return [text(item.variant_id), text(item.sku), text(item.product_id)].filter((id): id is string => id !== null);
}

/**
 * `refunds/create`: the refund's `refund_line_items` name the lines given back (`line_item_id`, and the
 * `line_item` itself with its variant): only their TANs are revoked. A refund of no line (shipping,
 * an amount as goodwill) revokes nothing.
 */
function refundCreated(refund: Record<string, unknown>, at: string): ShopAction {
  const named = list(refund.refund_line_items)
    .map(record)
    .filter((line) => text(line.line_item_id) !== null || text(record(line.line_item).id) !== null || lineExternalIds(record(line.line_item)).length);
  if (!named.length) return { kind: 'ignore', reason: 'no-refunded-items' };
  // A line refunded for fewer units than were bought (1 of 3) keeps its TAN: which machines lose
  // their license is the vendor's call, made by hand from the Orders page.
  const lines = named
    .filter((line) => !(quantity(line.quantity) < quantity(record(line.line_item).quantity)))
    .map((line) => ({ lineId: text(line.line_item_id) ?? text(record(line.line_item).id), externalIds: lineExternalIds(record(line.line_item)) }));
  if (!lines.length) return { kind: 'ignore', reason: 'partial-refund' };
  return { kind: 'refund', refs: [text(refund.order_id)].filter((ref): ref is string => Boolean(ref)), lines, at };
}

function orderPaid(order: Record<string, unknown>, at: string): ShopAction {
  if (text(order.financial_status) && !['paid', 'partially_refunded'].includes(text(order.financial_status)!)) return { kind: 'ignore', reason: 'unpaid' };
  const customer = record(order.customer);
  const billing = record(order.billing_address);
  const email = text(order.email) ?? text(order.contact_email) ?? text(customer.email);
  const orderId = text(order.id) ?? '';
  return {
    kind: 'purchase',
    orderRef: orderId,
    subscriptionRef: null,
    paymentRefs: [orderId],
    buyer: email
      ? {
          email,
          firstName: text(customer.first_name) ?? text(billing.first_name) ?? email,
          lastName: text(customer.last_name) ?? text(billing.last_name) ?? '-',
          company: text(billing.company),
          locale: text(order.customer_locale) ? resolveLocale(text(order.customer_locale)) : null,
        }
      : null,
    machineId: machineIdOf(order),
    // A variant is what is sold; a mapping may also name the SKU or the product.
    items: list(order.line_items)
      .map(record)
      .map((item) => ({ externalIds: lineExternalIds(item), quantity: quantity(item.quantity), lineId: text(item.id) }))
      .filter((item) => item.externalIds.length),
    periodEnd: null,
    at,
  };
}

export const shopifyConnector: Connector = {
  verify: (secret, delivery) => {
    const signature = header(delivery, 'x-shopify-hmac-sha256');
    return Boolean(signature) && base64Equals(hmacSha256(secret, delivery.rawBody), signature!);
  },
  /** The topic and the event id come in headers (`X-Shopify-Topic`, `X-Shopify-Event-Id` or the older `X-Shopify-Webhook-Id`). */
  parse(body, delivery) {
    const resource = record(body);
    const type = header(delivery, 'x-shopify-topic');
    const eventId = header(delivery, 'x-shopify-event-id') ?? header(delivery, 'x-shopify-webhook-id');
    if (!type || !eventId) throw new TypeError('A Shopify delivery names its topic and event id in headers');
    const at = text(resource.processed_at) ?? text(resource.created_at) ?? new Date().toISOString();
    let action: ShopAction = { kind: 'ignore', reason: 'not-handled' };
    if (type === 'orders/paid') action = orderPaid(resource, at);
    if (type === 'refunds/create') action = refundCreated(resource, at);
    return [{ eventId, type, action, payload: resource }];
  },
};
