import { resolveLocale } from '@lm/contract/messages';
import { hexEquals, hmacSha256, unixSeconds } from './hmac.ts';
import { header, list, quantity, record, splitName, text, type Connector, type ShopAction } from './types.ts';

/** Paddle's SDKs refuse a signature whose timestamp is more than five seconds old; so do we. */
export const PADDLE_TOLERANCE_SECONDS = 5;

/**
 * `Paddle-Signature: ts=<unix seconds>;h1=<hex>[;h1=<hex>…]`: h1 is the HMAC-SHA256 of `<ts>:<raw body>`
 * keyed with the notification destination's secret key (several h1 while a secret is rotated).
 * Refused when now is more than five seconds after ts, counted in milliseconds as Paddle's Node SDK
 * does (WebhooksValidator.isValidSignature); a ts ahead of the clock is not refused, as there.
 */
export function paddleSignatureMatches(secret: string, rawBody: string, signature: string | undefined, nowMs: number): boolean {
  if (!signature) return false;
  const pairs = signature.split(';').map((part) => part.trim().split('='));
  const timestamp = pairs.find(([key]) => key === 'ts')?.[1];
  const candidates = pairs.filter(([key]) => key === 'h1').map(([, value]) => value ?? '');
  const ts = unixSeconds(timestamp ?? '');
  if (ts === null || !candidates.length || nowMs > (ts + PADDLE_TOLERANCE_SECONDS) * 1000) return false;
  const expected = hmacSha256(secret, `${ts}:${rawBody}`);
  return candidates.some((candidate) => hexEquals(expected, candidate));
}

export function paddleSignatureHeader(secret: string, rawBody: string, timestampSeconds: number): string {
  return `ts=${timestampSeconds};h1=${hmacSha256(secret, `${timestampSeconds}:${rawBody}`).toString('hex')}`;
}

/**
 * A transaction names its customer only by id (Paddle's API has the address). Rather than ask that
 * API, the checkout passes the buyer in `custom_data` (`email`, `first_name`, `last_name`, `company`,
 * `locale`, `machine_id`), which every event of the transaction and its subscription repeats.
 */
function transactionCompleted(data: Record<string, unknown>, at: string): ShopAction {
  const custom = record(data.custom_data);
  const email = text(custom.email);
  const subscription = text(data.subscription_id);
  const transaction = text(data.id) ?? '';
  const name = [text(custom.first_name), text(custom.last_name)].filter(Boolean).join(' ') || text(custom.name);
  const names = email ? splitName(name, email) : null;
  return {
    kind: 'purchase',
    orderRef: subscription ?? transaction,
    subscriptionRef: subscription,
    paymentRefs: [transaction],
    buyer: email && names ? { email, firstName: text(custom.first_name) ?? names.firstName, lastName: text(custom.last_name) ?? names.lastName, company: text(custom.company), locale: text(custom.locale) ? resolveLocale(text(custom.locale)) : null } : null,
    machineId: text(custom.machine_id),
    items: list(data.items)
      .map(record)
      .map((item) => {
        const price = text(record(item.price).id) ?? text(item.price_id);
        // `details.line_items[].id` (txnitm_…) is what an adjustment's `items[].item_id` names.
        const line = list(record(data.details).line_items).map(record).find((candidate) => price !== null && text(candidate.price_id) === price);
        return {
          externalIds: [price, text(record(item.price).product_id)].filter((id): id is string => id !== null),
          quantity: quantity(item.quantity),
          lineId: line ? text(line.id) : null,
          // A price without a billing cycle is a one-time charge, also in a subscription's transaction.
          recurring: subscription !== null && record(item.price).billing_cycle !== null,
        };
      })
      .filter((item) => item.externalIds.length),
    periodEnd: subscription ? text(record(data.billing_period).ends_at) : null,
    at,
  };
}

function subscriptionChanged(type: string, data: Record<string, unknown>, at: string): ShopAction {
  const id = text(data.id);
  if (!id) return { kind: 'ignore', reason: 'not-handled' };
  const status = text(data.status);
  const scheduled = record(data.scheduled_change);
  if (type === 'subscription.canceled' || status === 'canceled') return { kind: 'cancel', subscriptionRef: id, endsAt: text(data.canceled_at) ?? at, at };
  if (type === 'subscription.past_due' || status === 'past_due') return { kind: 'payment-failed', subscriptionRef: id, at };
  if (text(scheduled.action) === 'cancel') return { kind: 'cancel', subscriptionRef: id, endsAt: text(scheduled.effective_at) ?? text(record(data.current_billing_period).ends_at), at };
  if (status === 'active') return { kind: 'payment-recovered', subscriptionRef: id, at };
  return { kind: 'ignore', reason: 'not-handled' };
}

function actionOf(type: string, data: Record<string, unknown>, at: string): ShopAction {
  switch (type) {
    case 'transaction.completed':
      return transactionCompleted(data, at);
    case 'subscription.updated':
    case 'subscription.past_due':
    case 'subscription.canceled':
      return subscriptionChanged(type, data, at);
    case 'adjustment.created':
    case 'adjustment.updated': {
      const action = text(data.action);
      if ((action !== 'refund' && action !== 'chargeback') || text(data.status) === 'rejected') return { kind: 'ignore', reason: 'not-handled' };
      // Most refunds wait for Paddle's approval (created `pending_approval`; `adjustment.updated` says
      // approved or rejected): a refund Paddle rejects must not have cost the buyer the license.
      if (action === 'refund' && text(data.status) === 'pending_approval') return { kind: 'ignore', reason: 'refund-pending' };
      const refs = [text(data.transaction_id)].filter((ref): ref is string => Boolean(ref));
      // A refund of part of the transaction (`type: partial`) revokes the lines it gives back in full
      // (`items[].type: full`, by the transaction's `txnitm_…` ids); an amount off a line changes no
      // license. A chargeback is always of all of it.
      if (action === 'refund' && text(data.type) === 'partial') {
        const lines = list(data.items)
          .map(record)
          .filter((item) => text(item.type) === 'full' && text(item.item_id) !== null)
          .map((item) => ({ lineId: text(item.item_id), externalIds: [] }));
        return lines.length ? { kind: 'refund', refs, lines, at } : { kind: 'ignore', reason: 'partial-refund' };
      }
      return { kind: 'refund', refs, at };
    }
    default:
      return { kind: 'ignore', reason: 'not-handled' };
  }
}

export const paddleConnector: Connector = {
  verify: (secret, delivery) => paddleSignatureMatches(secret, delivery.rawBody, header(delivery, 'paddle-signature'), delivery.now.getTime()),
  signedAtAnyTime(secret, delivery) {
    const signature = header(delivery, 'paddle-signature');
    const ts = unixSeconds(/(?:^|;)\s*ts=([^;]*)/.exec(signature ?? '')?.[1] ?? '');
    return ts !== null && paddleSignatureMatches(secret, delivery.rawBody, signature, ts * 1000);
  },
  parse(body) {
    const event = record(body);
    const eventId = text(event.event_id);
    const type = text(event.event_type);
    if (!eventId || !type) throw new TypeError('A Paddle event has an event_id and an event_type');
    const at = text(event.occurred_at) ?? new Date().toISOString();
    return [{ eventId, type, action: actionOf(type, record(event.data), at), payload: event }];
  },
};
