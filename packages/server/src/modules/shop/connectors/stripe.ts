import { resolveLocale } from '@lm/contract/messages';
import { hexEquals, hmacSha256, unixSeconds } from './hmac.ts';
import { fromUnixSeconds, header, list, quantity, record, splitName, text, type Buyer, type Connector, type LineItem, type ShopAction } from './types.ts';

/** Stripe's default tolerance between the signature's timestamp and now (its libraries' DEFAULT_TOLERANCE). */
export const STRIPE_TOLERANCE_SECONDS = 300;

/**
 * `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`: v1 is the HMAC-SHA256 of `<t>.<raw body>`
 * keyed with the endpoint's signing secret (whsec_…); any v1 may match (secret rotation), other
 * schemes (v0) are ignored. Refused when older than the tolerance as Stripe's own library counts it
 * (stripe-node's verifyHeader: whole seconds of now minus t greater than 300); a timestamp ahead of
 * the clock is not refused, as there (test/shop-signatures.test.ts checks both against the library).
 */
export function stripeSignatureMatches(secret: string, rawBody: string, signature: string | undefined, nowMs: number): boolean {
  if (!signature) return false;
  const pairs = signature.split(',').map((part) => part.trim().split('='));
  const timestamp = pairs.find(([key]) => key === 't')?.[1];
  const candidates = pairs.filter(([key]) => key === 'v1').map(([, value]) => value ?? '');
  const t = unixSeconds(timestamp ?? '');
  if (t === null || !candidates.length || Math.floor(nowMs / 1000) - t > STRIPE_TOLERANCE_SECONDS) return false;
  const expected = hmacSha256(secret, `${t}.${rawBody}`);
  return candidates.some((candidate) => hexEquals(expected, candidate));
}

/** How a test or a shop signs a body as Stripe does. */
export function stripeSignatureHeader(secret: string, rawBody: string, timestampSeconds: number): string {
  return `t=${timestampSeconds},v1=${hmacSha256(secret, `${timestampSeconds}.${rawBody}`).toString('hex')}`;
}

/**
 * Checkout sessions carry no line items in the webhook (Stripe sends them only when asked through its
 * API), so a one-time purchase names what it sells in the session's metadata, set when the session is
 * created: `items` = `price_A:2,price_B` (price or product id, optional quantity), or `price_id` and
 * `quantity`. `machine_id` and `locale` may come the same way.
 */
function metadataItems(metadata: Record<string, unknown>): LineItem[] {
  const items = text(metadata.items);
  if (items) {
    return items
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const [id, count] = part.split(':');
        return { externalIds: [id.trim()], quantity: quantity(Number(count ?? '1')) };
      });
  }
  const price = text(metadata.price_id) ?? text(metadata.product_id);
  return price ? [{ externalIds: [price], quantity: quantity(Number(text(metadata.quantity) ?? '1')) }] : [];
}

function buyerOf(email: string | null, name: string | null, locale: unknown): Buyer | null {
  if (!email) return null;
  return { email, ...splitName(name, email), company: null, locale: typeof locale === 'string' && locale !== 'auto' ? resolveLocale(locale) : null };
}

/** An invoice's subscription: `subscription` (API versions before 2025-03) or `parent.subscription_details.subscription`. */
function invoiceSubscription(invoice: Record<string, unknown>): { id: string | null; metadata: Record<string, unknown> } {
  const details = record(record(invoice.parent).subscription_details);
  return {
    id: text(invoice.subscription) ?? text(details.subscription),
    metadata: { ...record(invoice.subscription_details && record(invoice.subscription_details).metadata), ...record(details.metadata) },
  };
}

/** An invoice line's price id: `price.id` (older versions) or `pricing.price_details.price`. */
function linePrice(line: Record<string, unknown>): string[] {
  const price = record(line.price);
  const details = record(record(line.pricing).price_details);
  return [text(price.id) ?? text(line.price) ?? text(details.price), text(price.product) ?? text(details.product)].filter((id): id is string => id !== null);
}

/**
 * Whether an invoice line is the subscription's (billed again) or a one-time item added to its
 * invoice: `parent.type` `subscription_item_details` (2025-03 on) or `type: 'subscription'` (before);
 * an `invoiceitem` line, or a price with `type: 'one_time'`, is a one-time line.
 */
function lineRecurring(line: Record<string, unknown>): boolean {
  const parent = text(record(line.parent).type);
  if (parent) return parent === 'subscription_item_details';
  if (text(line.type)) return text(line.type) === 'subscription';
  return text(record(line.price).type) !== 'one_time';
}

/**
 * The payments an invoice names: `payment_intent` and `charge` (API versions before 2025-03), or its
 * `payments` list when expanded (2025-03 on; the webhook usually carries none, `invoice_payment.paid`
 * names them).
 */
function invoicePayments(invoice: Record<string, unknown>): string[] {
  const payments = list(record(invoice.payments).data).flatMap((payment) => paymentRefs(record(record(payment).payment)));
  return [text(invoice.payment_intent) ?? text(record(invoice.payment_intent).id), text(invoice.charge) ?? text(record(invoice.charge).id), ...payments].filter((ref): ref is string => ref !== null);
}

/** An InvoicePayment's `payment`: its payment intent, charge or payment record (each an id or the expanded object). */
function paymentRefs(payment: Record<string, unknown>): (string | null)[] {
  return [payment.payment_intent, payment.charge, payment.payment_record].map((ref) => text(ref) ?? text(record(ref).id));
}

function invoicePaid(invoice: Record<string, unknown>, at: string): ShopAction {
  const subscription = invoiceSubscription(invoice);
  const lines = list(record(invoice.lines).data).map(record);
  const recurring = lines.filter((line) => !subscription.id || lineRecurring(line));
  const periodEnds = recurring.map((line) => fromUnixSeconds(record(line.period).end)).filter((end): end is string => end !== null);
  const invoiceId = text(invoice.id) ?? '';
  return {
    kind: 'purchase',
    orderRef: subscription.id ?? invoiceId,
    subscriptionRef: subscription.id,
    paymentRefs: [invoiceId, ...invoicePayments(invoice)].filter(Boolean),
    buyer: buyerOf(text(invoice.customer_email), text(invoice.customer_name), subscription.metadata.locale),
    machineId: text(subscription.metadata.machine_id),
    items: lines
      .filter((line) => linePrice(line).length)
      .map((line) => ({ externalIds: linePrice(line), quantity: quantity(line.quantity), lineId: text(line.id), recurring: subscription.id !== null && lineRecurring(line) })),
    periodEnd: subscription.id && periodEnds.length ? periodEnds.sort().at(-1)! : null,
    at,
  };
}

/** A subscription's current period end: on the subscription (before 2025-03) or on its items. */
function subscriptionPeriodEnd(subscription: Record<string, unknown>): string | null {
  const itemEnds = list(record(subscription.items).data).map((item) => fromUnixSeconds(record(item).current_period_end));
  return fromUnixSeconds(subscription.current_period_end) ?? itemEnds.find((end) => end !== null) ?? null;
}

function subscriptionUpdated(subscription: Record<string, unknown>, at: string): ShopAction {
  const id = text(subscription.id);
  if (!id) return { kind: 'ignore', reason: 'not-handled' };
  const status = text(subscription.status);
  if (status === 'past_due' || status === 'unpaid') return { kind: 'payment-failed', subscriptionRef: id, at };
  if (subscription.cancel_at_period_end === true || typeof subscription.cancel_at === 'number') {
    return { kind: 'cancel', subscriptionRef: id, endsAt: fromUnixSeconds(subscription.cancel_at) ?? subscriptionPeriodEnd(subscription), at };
  }
  if (status === 'active' || status === 'trialing') return { kind: 'payment-recovered', subscriptionRef: id, at };
  return { kind: 'ignore', reason: 'not-handled' };
}

/** Ids of Stripe objects, each given as its id or expanded. */
function refsOf(...values: unknown[]): string[] {
  return [...new Set(values.map((value) => text(value) ?? text(record(value).id)).filter((ref): ref is string => ref !== null))];
}

function actionOf(type: string, object: Record<string, unknown>, at: string): ShopAction {
  switch (type) {
    case 'checkout.session.completed': {
      // A subscription's TAN comes with its first invoice.paid, which names the period and the prices.
      if (text(object.mode) === 'subscription') return { kind: 'ignore', reason: 'not-handled' };
      if (object.payment_status !== 'paid' && object.payment_status !== 'no_payment_required') return { kind: 'ignore', reason: 'unpaid' };
      const metadata = record(object.metadata);
      const customer = record(object.customer_details);
      const sessionId = text(object.id) ?? '';
      return {
        kind: 'purchase',
        orderRef: sessionId,
        subscriptionRef: null,
        paymentRefs: [sessionId, text(object.payment_intent), text(object.invoice)].filter((ref): ref is string => Boolean(ref)),
        buyer: buyerOf(text(customer.email) ?? text(object.customer_email), text(customer.name), text(metadata.locale) ?? object.locale),
        machineId: text(metadata.machine_id),
        items: metadataItems(metadata),
        periodEnd: null,
        at,
      };
    }
    case 'invoice.paid':
      return invoicePaid(object, at);
    case 'invoice.payment_failed': {
      const subscription = invoiceSubscription(object).id;
      return subscription ? { kind: 'payment-failed', subscriptionRef: subscription, at } : { kind: 'ignore', reason: 'not-handled' };
    }
    case 'customer.subscription.updated':
      return subscriptionUpdated(object, at);
    case 'customer.subscription.deleted': {
      const id = text(object.id);
      return id ? { kind: 'cancel', subscriptionRef: id, endsAt: fromUnixSeconds(object.ended_at) ?? at, at } : { kind: 'ignore', reason: 'not-handled' };
    }
    case 'invoice_payment.paid': {
      // 2025-03 on, an invoice names no payment: this event says which payment intent or charge paid it.
      const invoice = text(object.invoice) ?? text(record(object.invoice).id);
      const refs = paymentRefs(record(object.payment)).filter((ref): ref is string => ref !== null);
      if (!invoice || !refs.length || (text(object.status) && text(object.status) !== 'paid')) return { kind: 'ignore', reason: 'not-handled' };
      return { kind: 'payment', invoiceRef: invoice, refs, at };
    }
    case 'charge.refunded':
      // Sent for every refund of the charge; `refunded` turns true only once all of it is refunded. A
      // part (a goodwill discount) changes no license: the Orders page lists it for the vendor to judge.
      // The charge names its payment intent, and its invoice in API versions before 2025-03.
      if (object.refunded === false) return { kind: 'ignore', reason: 'partial-refund' };
      return { kind: 'refund', refs: refsOf(object.id, object.payment_intent, object.invoice), at };
    case 'charge.dispute.created':
      // `charge` and `payment_intent` may come expanded; the charge's invoice (older versions) too.
      return { kind: 'refund', refs: refsOf(object.charge, object.payment_intent, record(object.charge).invoice, record(object.charge).payment_intent), at };
    default:
      return { kind: 'ignore', reason: 'not-handled' };
  }
}

export const stripeConnector: Connector = {
  verify: (secret, delivery) => stripeSignatureMatches(secret, delivery.rawBody, header(delivery, 'stripe-signature'), delivery.now.getTime()),
  signedAtAnyTime(secret, delivery) {
    const signature = header(delivery, 'stripe-signature');
    const t = unixSeconds(/(?:^|,)\s*t=([^,]*)/.exec(signature ?? '')?.[1] ?? '');
    return t !== null && stripeSignatureMatches(secret, delivery.rawBody, signature, t * 1000);
  },
  parse(body) {
    const event = record(body);
    const eventId = text(event.id);
    const type = text(event.type);
    if (!eventId || !type) throw new TypeError('A Stripe event has an id and a type');
    const at = fromUnixSeconds(event.created) ?? new Date().toISOString();
    return [{ eventId, type, action: actionOf(type, record(record(event.data).object), at), payload: event }];
  },
};
