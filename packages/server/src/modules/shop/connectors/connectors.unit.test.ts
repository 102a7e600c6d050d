import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { paddleConnector, paddleSignatureMatches } from './paddle.ts';
import { shopifyConnector } from './shopify.ts';
import { stripeConnector, stripeSignatureMatches } from './stripe.ts';
import type { Delivery } from './types.ts';

const NOW = Date.UTC(2026, 0, 31, 12, 0, 0);
const delivery = (headers: Record<string, string> = {}): Delivery => ({ rawBody: '', headers, now: new Date(NOW) });

describe('Stripe-Signature', () => {
  const secret = 'whsec_unit';
  const body = '{"id":"evt_1"}';
  const t = NOW / 1000;
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

  it('accepts any matching v1 within 300 seconds and ignores v0', () => {
    expect(stripeSignatureMatches(secret, body, `t=${t},v1=${v1}`, NOW)).toBe(true);
    expect(stripeSignatureMatches(secret, body, `t=${t},v0=${'1'.repeat(64)},v1=${'0'.repeat(64)},v1=${v1}`, NOW + 300_000)).toBe(true);
  });

  it('refuses a stale timestamp, a v0 only, another body and malformed headers', () => {
    expect(stripeSignatureMatches(secret, body, `t=${t},v1=${v1}`, NOW + 301_000)).toBe(false);
    expect(stripeSignatureMatches(secret, body, `t=${t},v0=${v1}`, NOW)).toBe(false);
    expect(stripeSignatureMatches(secret, `${body} `, `t=${t},v1=${v1}`, NOW)).toBe(false);
    for (const header of [undefined, '', 't=', `v1=${v1}`, `t=abc,v1=${v1}`, `t=${t},v1=${v1.slice(2)}`]) expect(stripeSignatureMatches(secret, body, header, NOW)).toBe(false);
  });
});

describe('Paddle-Signature', () => {
  it('is the HMAC of ts:body and refuses a timestamp more than five seconds off', () => {
    const secret = 'pdl_ntfset_unit';
    const body = '{"event_id":"evt_1"}';
    const ts = NOW / 1000;
    const h1 = createHmac('sha256', secret).update(`${ts}:${body}`).digest('hex');
    expect(paddleSignatureMatches(secret, body, `ts=${ts};h1=${h1}`, NOW + 5000)).toBe(true);
    expect(paddleSignatureMatches(secret, body, `ts=${ts};h1=${h1}`, NOW + 6000)).toBe(false);
    expect(paddleSignatureMatches(secret, body, `ts=${ts};h1=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`, NOW)).toBe(false);
  });
});

describe('event shapes', () => {
  it('reads a Stripe invoice of API versions since 2025-03 (parent.subscription_details, pricing.price_details)', () => {
    const [event] = stripeConnector.parse(
      {
        id: 'evt_1',
        type: 'invoice.paid',
        created: NOW / 1000,
        data: {
          object: {
            id: 'in_1',
            customer_email: 'ada@example.com',
            customer_name: 'Ada King Lovelace',
            parent: { subscription_details: { subscription: 'sub_1', metadata: { machine_id: 'M-1' } } },
            lines: { data: [{ quantity: 2, pricing: { price_details: { price: 'price_1', product: 'prod_1' } }, period: { start: 0, end: NOW / 1000 + 86_400 } }] },
          },
        },
      },
      delivery(),
    );
    expect(event.action).toMatchObject({
      kind: 'purchase',
      orderRef: 'sub_1',
      subscriptionRef: 'sub_1',
      machineId: 'M-1',
      buyer: { email: 'ada@example.com', firstName: 'Ada King', lastName: 'Lovelace' },
      items: [{ externalIds: ['price_1', 'prod_1'], quantity: 2 }],
      periodEnd: new Date(NOW + 86_400_000).toISOString(),
    });
  });

  it('reads a Paddle scheduled cancellation as running to its effective date', () => {
    const [event] = paddleConnector.parse(
      { event_id: 'evt_1', event_type: 'subscription.updated', occurred_at: '2026-01-31T12:00:00.123456Z', data: { id: 'sub_1', status: 'active', scheduled_change: { action: 'cancel', effective_at: '2026-02-28T00:00:00Z' } } },
      delivery(),
    );
    expect(event.action).toMatchObject({ kind: 'cancel', subscriptionRef: 'sub_1', endsAt: '2026-02-28T00:00:00Z' });
  });

  it('ignores a Shopify order that is not paid, and refuses a delivery without topic or event id', () => {
    const [event] = shopifyConnector.parse({ id: 1, email: 'a@example.com', financial_status: 'pending', line_items: [] }, delivery({ 'x-shopify-topic': 'orders/paid', 'x-shopify-webhook-id': 'w-1' }));
    expect(event).toMatchObject({ eventId: 'w-1', action: { kind: 'ignore', reason: 'unpaid' } });
    expect(() => shopifyConnector.parse({ id: 1 }, delivery())).toThrow();
  });

  it('takes a partial refund as changing no license, in each provider\'s terms; a full one or a chargeback revokes', () => {
    const charge = (refunded: boolean) =>
      stripeConnector.parse({ id: 'evt_r', type: 'charge.refunded', created: NOW / 1000, data: { object: { id: 'ch_1', object: 'charge', refunded, amount: 5000, amount_refunded: refunded ? 5000 : 500, payment_intent: 'pi_1' } } }, delivery())[0].action;
    expect(charge(false)).toEqual({ kind: 'ignore', reason: 'partial-refund' });
    expect(charge(true)).toMatchObject({ kind: 'refund', refs: ['ch_1', 'pi_1'] });

    const adjustment = (action: string, type: string, status = 'approved', event = 'adjustment.updated') =>
      paddleConnector.parse({ event_id: 'evt_a', event_type: event, occurred_at: '2026-01-31T12:00:00Z', data: { id: 'adj_1', action, type, status, transaction_id: 'txn_1' } }, delivery())[0].action;
    expect(adjustment('refund', 'partial')).toEqual({ kind: 'ignore', reason: 'partial-refund' });
    expect(adjustment('refund', 'full')).toMatchObject({ kind: 'refund', refs: ['txn_1'] });
    expect(adjustment('chargeback', 'full', 'approved', 'adjustment.created')).toMatchObject({ kind: 'refund', refs: ['txn_1'] });
    // A refund Paddle has yet to approve, or has rejected, changes nothing.
    expect(adjustment('refund', 'full', 'pending_approval', 'adjustment.created')).toEqual({ kind: 'ignore', reason: 'refund-pending' });
    expect(adjustment('refund', 'full', 'rejected')).toEqual({ kind: 'ignore', reason: 'not-handled' });

    // Shopify: one of three units of a line keeps its TAN; the whole of another line does not.
    const refund = (lines: { quantity: number; line_item: { id: number; variant_id: number; quantity: number } }[]) =>
      shopifyConnector.parse({ id: 9, order_id: 7, refund_line_items: lines }, delivery({ 'x-shopify-topic': 'refunds/create', 'x-shopify-event-id': 'e-1' }))[0].action;
    const three = { id: 11, variant_id: 101, quantity: 3 };
    const one = { id: 12, variant_id: 102, quantity: 1 };
    expect(refund([{ quantity: 1, line_item: three }])).toEqual({ kind: 'ignore', reason: 'partial-refund' });
    expect(refund([{ quantity: 1, line_item: three }, { quantity: 1, line_item: one }])).toMatchObject({ kind: 'refund', refs: ['7'], lines: [{ lineId: '12' }] });
    expect(refund([{ quantity: 3, line_item: three }])).toMatchObject({ kind: 'refund', lines: [{ lineId: '11' }] });
  });
});
