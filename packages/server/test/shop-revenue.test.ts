/**
 * The revenue path, hardened (issue 48, DESIGN.md section 6c), with the providers' documented
 * payload shapes (typed by stripe-node's and Paddle's Node SDK's own types, current and previous
 * API versions where they differ), on SQLite and PostgreSQL:
 * - a refunded or disputed Stripe subscription loses its TAN and licenses in Stripe's current API
 *   (invoice with no payment, `invoice_payment.paid` naming it) as in the older one, in any order;
 * - each line of an order on its own: a Paddle order with an unmapped add-on makes its mapped lines'
 *   TANs ("partial"), a "no license" mapping and a replay by the provider's event id finish it;
 * - one-time lines of a subscription's cart are perpetual and stay when the subscription ends or is
 *   returned; FastSpring's `subscription.activated` gives the TAN its end from the start;
 * - a buyer whose address has capitals has one account across providers; an unusable address makes a
 *   failed event, never a 500; a stale but signed delivery is recorded and replayable.
 */
import type Stripe from 'stripe';
import type { ITransactionNotificationResponse } from '@paddle/paddle-node-sdk';
import { describe, expect, it } from 'vitest';
import { todayOf } from '@lm/contract/license';
import type { ShopOrder } from '@lm/contract/shop';
import { describeBothDatabases, expectError } from './harness.ts';
import { invariantsSetup, machine, RACERS, uniqueName } from './invariants-support.ts';
import { mailsTo } from './mail-helpers.ts';
import { accepted, connect, DAY, id, post, sign, stripeCheckout, stripeEvent, unix } from './shop-support.ts';

const SECRET = 'shop-revenue-secret-0123456789';
type Json = Record<string, unknown>;

describeBothDatabases('shop revenue path', (t) => {
  const s = invariantsSetup(t);
  const refresh = (machineId: string, product: string) => s.as(null).post('/api/client/v1/license', { body: { machineId, product } });
  const tan = (tanId: number) => s.db().selectFrom('tans').selectAll().where('id', '=', tanId).executeTakeFirstOrThrow();

  async function shop(provider: string, mappings: { externalId: string; productId?: number | null; seats?: number }[]) {
    const product = await s.product();
    const connection = await connect(s.admin, { provider, secret: SECRET, graceDays: 3, mappings: mappings.map((mapping) => ({ productId: product.id, seats: 1, ...mapping })) });
    return { product, connection };
  }

  describe('Stripe, current API (2025-03 on): the invoice names no payment', () => {
    // https://docs.stripe.com/changelog/basil/2025-03-31/add-support-for-multiple-partial-payments-on-invoices
    function basilInvoice(options: { subscription: string; price: string; email: string; machineId: string; periodEnd: number; oneTime?: string }) {
      const line = (price: string, parent: 'subscription_item_details' | 'invoice_item_details') => ({
        id: id('il_'),
        object: 'line_item',
        amount: 4900,
        currency: 'eur',
        quantity: 1,
        parent: { type: parent, subscription_item_details: parent === 'subscription_item_details' ? { subscription: options.subscription, subscription_item: id('si_') } : null },
        pricing: { type: 'price_details', price_details: { price, product: id('prod_') }, unit_amount_decimal: '4900' },
        period: { start: options.periodEnd - 30 * 86_400, end: parent === 'subscription_item_details' ? options.periodEnd : options.periodEnd - 30 * 86_400 },
      });
      const invoice = {
        id: id('in_'),
        object: 'invoice',
        billing_reason: 'subscription_create',
        customer_email: options.email,
        customer_name: 'Ada Lovelace',
        status: 'paid',
        parent: { type: 'subscription_details', subscription_details: { subscription: options.subscription, metadata: { machine_id: options.machineId } }, quote_details: null },
        lines: { object: 'list', data: [line(options.price, 'subscription_item_details'), ...(options.oneTime ? [line(options.oneTime, 'invoice_item_details')] : [])] },
      } satisfies Partial<Record<keyof Stripe.Invoice, unknown>>;
      return invoice;
    }
    const invoicePayment = (invoice: string, paymentIntent: string) =>
      ({
        id: id('inpay_'),
        object: 'invoice_payment',
        amount_paid: 4900,
        amount_requested: 4900,
        created: unix(),
        currency: 'eur',
        invoice,
        is_default: true,
        livemode: false,
        payment: { type: 'payment_intent', payment_intent: paymentIntent },
        status: 'paid',
        status_transitions: { canceled_at: null, paid_at: unix() },
      }) satisfies Stripe.InvoicePayment;
    const charge = (paymentIntent: string) => ({ id: id('ch_'), object: 'charge', amount: 4900, amount_refunded: 4900, refunded: true, paid: true, payment_intent: paymentIntent, status: 'succeeded' }) satisfies Partial<Record<keyof Stripe.Charge, unknown>>;
    const basil = (type: string, object: Json) => ({ ...stripeEvent(type, object), api_version: '2025-03-31.basil' });

    it('a refund names the payment intent that invoice_payment.paid tied to the invoice: the subscription’s TAN and licenses are revoked, the one-time line’s stay; in any order', async () => {
      const [price, addOn] = [id('price_'), id('price_')];
      const { product, connection } = await shop('stripe', [{ externalId: price }, { externalId: addOn }]);
      for (const order of ['in order', 'refund first'] as const) {
        const subscription = id('sub_');
        const machineId = machine();
        const email = `${uniqueName('basil')}@example.com`;
        const invoice = basilInvoice({ subscription, price, email, machineId, periodEnd: unix(Date.now() + 30 * DAY), oneTime: addOn });
        const paymentIntent = id('pi_');
        const paid = sign('stripe', SECRET, basil('invoice.paid', invoice));
        const linked = sign('stripe', SECRET, basil('invoice_payment.paid', invoicePayment(invoice.id, paymentIntent)));
        const refunded = sign('stripe', SECRET, basil('charge.refunded', charge(paymentIntent)));
        const sequence = order === 'in order' ? [paid, linked, refunded] : [refunded, linked, paid];
        const results = [];
        for (const delivery of sequence) results.push((await accepted(t.app, connection.id, delivery))[0]);
        if (order === 'refund first') expect(results.slice(0, 2).map((result) => result.outcome)).toEqual(['pending', 'pending']);
        const lines = await s.db().selectFrom('shop_orders').selectAll().where('connection_id', '=', connection.id).where('order_ref', '=', subscription).execute();
        const recurring = lines.find((line) => line.external_id === price)!;
        const oneTime = lines.find((line) => line.external_id === addOn)!;
        expect(recurring.subscription_ref).toBe(subscription);
        expect(oneTime.subscription_ref).toBeNull();
        // The one-time line never follows the subscription's period: perpetual.
        expect((await tan(oneTime.tan_id)).valid_until).toBeNull();
        // The first invoice's refund gives back all it paid.
        expect((await tan(recurring.tan_id)).revoked).toBeTruthy();
        expect((await tan(oneTime.tan_id)).revoked).toBeTruthy();
        expectError(await refresh(machineId, product.name), 403, 'ERR_LICENSE_REVOKED');
        // The buyer is told, in their language, with what to do.
        expect((await mailsTo(t.app, email)).filter((mail) => / was revoked$/.test(mail.subject))).toHaveLength(2);
        // The Orders page lists the refund under its subscription, with what it did to each TAN.
        const events = (await s.admin.get('/api/shop-orders', { query: { filter: subscription } })).json() as { items: ShopOrder[] };
        const refund = events.items.find((item) => item.type === 'charge.refunded')!;
        expect(refund).toMatchObject({ outcome: 'processed', orderRef: subscription });
        expect(refund.lines.map((line) => line.effect)).toEqual(['revoked', 'revoked']);
      }
    });

    it('a renewal’s refund or dispute revokes the subscription’s TAN only; a dispute of the older shape (charge with its invoice) too', async () => {
      const [price, addOn] = [id('price_'), id('price_')];
      const { connection } = await shop('stripe', [{ externalId: price }, { externalId: addOn }]);
      const subscription = id('sub_');
      const email = `${uniqueName('renewal')}@example.com`;
      const first = basilInvoice({ subscription, price, email, machineId: machine(), periodEnd: unix(Date.now() + 30 * DAY), oneTime: addOn });
      const [made] = await accepted(t.app, connection.id, sign('stripe', SECRET, basil('invoice.paid', first)));
      expect(made.lines.map((line) => line.effect)).toEqual(['made', 'made']);
      const renewal = { ...basilInvoice({ subscription, price, email, machineId: machine(), periodEnd: unix(Date.now() + 60 * DAY) }), billing_reason: 'subscription_cycle' };
      const [renewed] = await accepted(t.app, connection.id, sign('stripe', SECRET, basil('invoice.paid', renewal)));
      expect(renewed.lines).toEqual([expect.objectContaining({ effect: 'renewed' })]);
      const paymentIntent = id('pi_');
      await accepted(t.app, connection.id, sign('stripe', SECRET, basil('invoice_payment.paid', invoicePayment(renewal.id, paymentIntent))));
      const chargeId = id('ch_');
      const dispute = { id: id('dp_'), object: 'dispute', amount: 4900, charge: chargeId, payment_intent: paymentIntent, reason: 'fraudulent', status: 'needs_response' } satisfies Partial<Record<keyof Stripe.Dispute, unknown>>;
      const [disputed] = await accepted(t.app, connection.id, sign('stripe', SECRET, basil('charge.dispute.created', dispute)));
      expect(disputed.outcome).toBe('processed');
      const lines = await s.db().selectFrom('shop_orders').selectAll().where('order_ref', '=', subscription).execute();
      expect((await tan(lines.find((line) => line.external_id === price)!.tan_id)).revoked).toBeTruthy();
      expect((await tan(lines.find((line) => line.external_id === addOn)!.tan_id)).revoked).toBeFalsy();

      // 2024 shape: the invoice names its charge and payment intent; a dispute expands the charge, which names its invoice.
      const older = id('sub_');
      const olderInvoice = { ...basilInvoice({ subscription: older, price, email, machineId: machine(), periodEnd: unix(Date.now() + 30 * DAY) }), parent: null, subscription: older, charge: id('ch_'), payment_intent: id('pi_') };
      const [olderMade] = await accepted(t.app, connection.id, sign('stripe', SECRET, stripeEvent('invoice.paid', olderInvoice)));
      const olderDispute = { id: id('dp_'), object: 'dispute', charge: { id: id('ch_'), object: 'charge', invoice: olderInvoice.id, payment_intent: null }, payment_intent: null };
      expect((await accepted(t.app, connection.id, sign('stripe', SECRET, stripeEvent('charge.dispute.created', olderDispute))))[0]).toMatchObject({ outcome: 'processed', tanIds: olderMade.tanIds });
      expect((await tan(olderMade.tanIds[0])).revoked).toBeTruthy();
    });
  });

  describe('each line on its own', () => {
    // https://developer.paddle.com/webhooks/transactions/transaction-completed
    const paddleTransaction = (options: { items: { price: string; oneTime?: boolean }[]; email: string; subscription?: string }) => {
      const items = options.items.map((item) => ({ price: { id: item.price, product_id: id('pro_01'), billing_cycle: item.oneTime ? null : { interval: 'month', frequency: 1 } }, quantity: 1 }));
      const data = {
        id: id('txn_01'),
        status: 'completed',
        customer_id: id('ctm_01'),
        subscription_id: options.subscription ?? null,
        currency_code: 'EUR',
        custom_data: { email: options.email, first_name: 'Ada', last_name: 'Lovelace', locale: 'it' },
        items,
        details: { line_items: options.items.map((item) => ({ id: id('txnitm_01'), price_id: item.price, quantity: 1, tax_rate: '0.2' })) },
        billing_period: options.subscription ? { starts_at: new Date().toISOString(), ends_at: new Date(Date.now() + 30 * DAY).toISOString() } : null,
      } satisfies Partial<Record<keyof ITransactionNotificationResponse, unknown>>;
      const event = { event_id: id('evt_01'), event_type: 'transaction.completed', occurred_at: new Date().toISOString(), notification_id: id('ntf_01'), data };
      return event;
    };

    it('a Paddle order with an unmapped add-on makes its mapped line’s TAN (partial, on the Orders page); marked "no license" and replayed by its event id, it is done', async () => {
      const [license, manual] = [id('pri_01'), id('pri_01')];
      const { connection } = await shop('paddle', [{ externalId: license }]);
      const email = `${uniqueName('paddle')}@example.com`;
      const order = paddleTransaction({ items: [{ price: license, oneTime: true }, { price: manual, oneTime: true }], email });
      const [result] = await accepted(t.app, connection.id, sign('paddle', SECRET, order));
      expect(result).toMatchObject({ outcome: 'partial', reason: `unknown-mapping:${manual}` });
      expect(result.tanIds).toHaveLength(1);
      expect(result.lines).toEqual([
        { externalId: license, tanId: result.tanIds[0], effect: 'made' },
        { externalId: manual, tanId: null, effect: 'needs-mapping' },
      ]);
      const listed = (await s.admin.get('/api/shop-orders', { query: { outcome: 'partial', connectionId: String(connection.id) } })).json() as { items: ShopOrder[] };
      expect(listed.items.map((item) => item.eventId)).toEqual([order.event_id]);

      const current = (await s.admin.get(`/api/shop-connections/${connection.id}`)).json() as { mappings: Json[] };
      const put = await s.admin.put(`/api/shop-connections/${connection.id}`, { body: { mappings: [...current.mappings, { externalId: manual, productId: null }] } });
      expect(put.statusCode, put.body).toBe(200);
      expect((put.json() as { mappings: Json[] }).mappings).toContainEqual(expect.objectContaining({ externalId: manual, productId: null }));
      const replay = () => s.admin.post(`/api/shop-connections/${connection.id}/events/${order.event_id}/replay`);
      const replayed = await replay();
      expect(replayed.statusCode, replayed.body).toBe(200);
      expect(replayed.json()).toMatchObject({ outcome: 'processed', reason: null, tanIds: result.tanIds });
      expect(replayed.json().lines.map((line: Json) => line.effect)).toEqual(['renewed', 'no-license']);
      expect(await s.db().selectFrom('shop_orders').where('connection_id', '=', connection.id).select('id').execute()).toHaveLength(1);
      expectError(await replay(), 409, 'ERR_CONFLICT');
      expectError(await s.admin.post(`/api/shop-connections/${connection.id}/events/evt_unknown/replay`), 404, 'ERR_NOT_FOUND');
    });

    it('a FastSpring cart of a subscription and a perpetual item: the subscription has its end from subscription.activated, the perpetual TAN none, and it stays when the subscription is returned and ends', async () => {
      const [plan, perpetual] = [id('plan-'), id('tool-')];
      const { product, connection } = await shop('fastspring', [{ externalId: plan }, { externalId: perpetual }]);
      const subscription = id('sub');
      const order = id('ord');
      const end = Date.now() + 30 * DAY;
      const machineId = machine();
      // https://developer.fastspring.com/reference/ordercompleted: items of one order, one with its subscription's id.
      const event = (type: string, data: Json) => ({ id: id('fs-'), type, live: false, processed: false, created: Date.now(), data });
      const completed = event('order.completed', {
        order,
        id: order,
        reference: id('REF-'),
        completed: true,
        language: 'es',
        customer: { first: 'Ada', last: 'Lovelace', email: `${uniqueName('fs')}@example.com` },
        tags: { machineId },
        items: [
          { product: plan, quantity: 1, subscription },
          { product: perpetual, quantity: 1, subscription: null },
        ],
      });
      // https://developer.fastspring.com/reference/subscriptionactivated
      const activated = event('subscription.activated', { id: subscription, subscription, product: plan, quantity: 1, active: true, state: 'active', nextChargeDate: end, next: end });
      const results = await accepted(t.app, connection.id, sign('fastspring', SECRET, { events: [completed, activated] }));
      expect(results.map((result) => result.outcome)).toEqual(['processed', 'processed']);
      const lines = await s.db().selectFrom('shop_orders').selectAll().where('connection_id', '=', connection.id).execute();
      const [recurring, oneTime] = [lines.find((line) => line.external_id === plan)!, lines.find((line) => line.external_id === perpetual)!];
      expect((await tan(recurring.tan_id)).valid_until).toBe(todayOf(new Date(end + 3 * DAY)));
      expect((await tan(oneTime.tan_id)).valid_until).toBeNull();

      // https://developer.fastspring.com/reference/returncreated: the return names the subscription's item only.
      const returned = event('return.created', { return: id('RET'), original: { id: order, order, reference: id('REF-') }, items: [{ product: plan, quantity: 1 }] });
      expect((await accepted(t.app, connection.id, sign('fastspring', SECRET, { events: [returned] })))[0]).toMatchObject({ outcome: 'processed', tanIds: [recurring.tan_id] });
      const deactivated = event('subscription.deactivated', { id: subscription, state: 'deactivated', deactivationDate: Date.now() - DAY });
      await accepted(t.app, connection.id, sign('fastspring', SECRET, { events: [deactivated] }));
      expect(Boolean((await tan(oneTime.tan_id)).revoked)).toBe(false);
      expect((await tan(oneTime.tan_id)).valid_until).toBeNull();
      expect((await tan(recurring.tan_id)).revoked).toBeTruthy();
      // The machine of the order holds the first TAN's license (revoked); the perpetual TAN is the buyer's to activate.
      expect((await refresh(machineId, product.name)).statusCode).not.toBe(500);
    });
  });

  describe('the buyer’s address', () => {
    it(`Ada.Lovelace@Example.com buys three times through two providers (two orders of them ${RACERS} times at once): one account, three TANs; an unusable address is a failed event, never a 500`, async () => {
      const price = id('price_');
      const stripe = await shop('stripe', [{ externalId: price }]);
      const generic = await shop('generic', [{ externalId: 'SKU-1' }]);
      const email = `${uniqueName('Ada.Lovelace')}@Example.com`;
      const genericOrder = (orderId: string, address = email) => ({ orderId, timestamp: new Date().toISOString(), email: address, firstName: 'Ada', lastName: 'Lovelace', items: [{ externalId: 'SKU-1', quantity: 1 }] });
      const first = sign('stripe', SECRET, stripeCheckout({ price, email }));
      const second = sign('generic', SECRET, genericOrder(id('order-')));
      const responses = await Promise.all(Array.from({ length: RACERS }, (_, index) => post(t.app, index % 2 ? stripe.connection.id : generic.connection.id, index % 2 ? first : second)));
      expect(responses.map((response) => response.statusCode)).toEqual(Array(RACERS).fill(200));
      const third = await accepted(t.app, stripe.connection.id, sign('stripe', SECRET, stripeCheckout({ price, email: email.toLowerCase() })));
      expect(third[0].outcome).toBe('processed');
      const users = await s.db().selectFrom('users').select(['id', 'email']).where('email', 'in', [email, email.toLowerCase()]).execute();
      expect(users).toEqual([{ id: users[0].id, email: email.toLowerCase() }]);
      expect(await s.db().selectFrom('shop_orders').where('user_id', '=', users[0].id).select('tan_id').execute()).toHaveLength(3);

      for (const address of ['NaN', '2026-01-31', `${'a'.repeat(3000)}@example.com`]) {
        const [result] = await accepted(t.app, generic.connection.id, sign('generic', SECRET, genericOrder(id('bad-'), address)));
        expect(result).toMatchObject({ outcome: 'failed', reason: 'invalid-email', tanIds: [] });
      }
      const [stripeBad] = await accepted(t.app, stripe.connection.id, sign('stripe', SECRET, stripeCheckout({ price, email: 'NaN' })));
      expect(stripeBad).toMatchObject({ outcome: 'failed', reason: 'invalid-email' });
    });
  });

  it('a generic shop’s retry of the same signed body after 5 minutes is refused, recorded as failed and replayable; a fresh delivery of a recorded event is handled', async () => {
    const { connection } = await shop('generic', [{ externalId: 'SKU-9' }]);
    const order = (orderId: string) => ({ orderId, timestamp: new Date(Date.now() - 10 * 60_000).toISOString(), email: `${uniqueName('late')}@example.com`, firstName: 'Ada', lastName: 'Lovelace', items: [{ externalId: 'SKU-9' }] });
    const late = order(id('late-'));
    expectError(await post(t.app, connection.id, sign('generic', SECRET, late)), 401, 'ERR_INVALID_SIGNATURE');
    expectError(await post(t.app, connection.id, sign('generic', 'another-secret-0123', order(id('forged-')))), 401, 'ERR_INVALID_SIGNATURE');
    const failed = (await s.admin.get('/api/shop-orders', { query: { connectionId: String(connection.id) } })).json() as { items: ShopOrder[] };
    expect(failed.items.map((item) => [item.eventId, item.outcome, item.reason])).toEqual([[late.orderId, 'failed', 'stale-signature']]);
    const replayed = await s.admin.post(`/api/shop-connections/${connection.id}/events/${late.orderId}/replay`);
    expect(replayed.json()).toMatchObject({ outcome: 'processed' });

    // Stripe re-signs each retry: a stale delivery recorded, then the fresh one makes the TAN.
    const price = id('price_');
    const stripe = await shop('stripe', [{ externalId: price }]);
    const checkout = stripeCheckout({ price, email: `${uniqueName('retry')}@example.com` });
    expectError(await post(t.app, stripe.connection.id, sign('stripe', SECRET, checkout, { at: unix() - 600 })), 401, 'ERR_INVALID_SIGNATURE');
    const [fresh] = await accepted(t.app, stripe.connection.id, sign('stripe', SECRET, checkout));
    expect(fresh).toMatchObject({ outcome: 'processed', duplicate: false });
    expect(fresh.tanIds).toHaveLength(1);
  });
});
