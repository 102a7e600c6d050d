/**
 * Paddle Billing, FastSpring, Shopify and the generic order body (issue 40, DESIGN.md section 6c):
 * events in each provider's documented shape, signed as it signs, refused when the signature is wrong
 * or stale, and each lifecycle event's effect on the customer's desktop refresh
 * (200 → ERR_LICENSE_SUSPENDED → 200 → ERR_LICENSE_REVOKED). On SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { todayOf } from '@lm/contract/license';
import { describeBothDatabases, expectError } from './harness.ts';
import { invariantsSetup, machine, uniqueName } from './invariants-support.ts';
import { mailsTo } from './mail-helpers.ts';
import { accepted, connect, DAY, id, post, sign, unix } from './shop-support.ts';

const SECRET = 'pdl_ntfset_01h8bkrbnx_secret_0123456789';

describeBothDatabases('shop providers', (t) => {
  const s = invariantsSetup(t);
  const refresh = (machineId: string, product: string) => s.as(null).post('/api/client/v1/license', { body: { machineId, product } });
  const tan = (tanId: number) => s.db().selectFrom('tans').selectAll().where('id', '=', tanId).executeTakeFirstOrThrow();

  async function shop(provider: string, externalId: string, seats = 1) {
    const product = await s.product();
    const connection = await connect(s.admin, { provider, secret: SECRET, graceDays: 3, mappings: [{ externalId, productId: product.id, seats }] });
    return { product, connection };
  }

  describe('Paddle Billing', () => {
    // https://developer.paddle.com/webhooks/overview: `{ event_id, event_type, occurred_at, notification_id, data }`.
    const paddleEvent = (type: string, data: Record<string, unknown>, occurredAt = new Date()) => ({
      event_id: id('evt_01'),
      event_type: type,
      occurred_at: occurredAt.toISOString().replace('Z', '123Z'),
      notification_id: id('ntf_01'),
      data,
    });

    it('signs ts:body with h1 and refuses a signature more than five seconds old', async () => {
      const price = id('pri_01');
      const { connection } = await shop('paddle', price);
      const event = paddleEvent('subscription.past_due', { id: id('sub_01'), status: 'past_due' });
      expectError(await post(t.app, connection.id, sign('paddle', SECRET, event, { at: unix() - 30 })), 401, 'ERR_INVALID_SIGNATURE');
      expectError(await post(t.app, connection.id, sign('paddle', 'pdl_ntfset_other_secret', event)), 401, 'ERR_INVALID_SIGNATURE');
      const signed = sign('paddle', SECRET, event);
      expectError(await post(t.app, connection.id, { ...signed, headers: { 'paddle-signature': signed.headers['paddle-signature'].replace('h1=', 'h1=0') } }), 401, 'ERR_INVALID_SIGNATURE');
      const [result] = await accepted(t.app, connection.id, signed);
      // A subscription that made no TAN here: the event waits for its purchase (shop-orders.test.ts).
      expect(result).toMatchObject({ outcome: 'pending', reason: 'unknown-order' });
      const [active] = await accepted(t.app, connection.id, sign('paddle', SECRET, paddleEvent('subscription.updated', { id: id('sub_01'), status: 'active' })));
      expect(active).toMatchObject({ outcome: 'pending', reason: 'unknown-order' });
    });

    it('a subscription: bought, past due, renewed, refunded', async () => {
      const price = id('pri_01');
      const { product, connection } = await shop('paddle', price, 2);
      const subscription = id('sub_01');
      const machineId = machine();
      const email = `${uniqueName('paddle')}@example.com`;
      const transaction = (periodEnd: Date, at = new Date()) =>
        paddleEvent(
          'transaction.completed',
          {
            id: id('txn_01'),
            status: 'completed',
            origin: 'web',
            customer_id: id('ctm_01'),
            subscription_id: subscription,
            currency_code: 'EUR',
            custom_data: { email, first_name: 'Ada', last_name: 'Lovelace', locale: 'fr', machine_id: machineId },
            items: [{ price: { id: price, product_id: id('pro_01') }, quantity: 1 }],
            billing_period: { starts_at: new Date(periodEnd.getTime() - 30 * DAY).toISOString(), ends_at: periodEnd.toISOString() },
          },
          at,
        );
      const bought = transaction(new Date(Date.now() - DAY));
      const [made] = await accepted(t.app, connection.id, sign('paddle', SECRET, bought));
      const tanId = made.tanIds[0];
      expect(await tan(tanId)).toMatchObject({ license_count: 2, valid_until: todayOf(new Date(Date.now() + 2 * DAY)) });
      expect((await refresh(machineId, product.name)).statusCode).toBe(200);
      expect((await mailsTo(t.app, email)).some((mail) => mail.subject.startsWith('Votre licence'))).toBe(true);

      await accepted(t.app, connection.id, sign('paddle', SECRET, paddleEvent('subscription.past_due', { id: subscription, status: 'past_due' }, new Date(Date.now() + 1000))));
      expectError(await refresh(machineId, product.name), 403, 'ERR_LICENSE_SUSPENDED');

      const renewal = transaction(new Date(Date.now() + 30 * DAY), new Date(Date.now() + 2000));
      await accepted(t.app, connection.id, sign('paddle', SECRET, renewal));
      expect((await tan(tanId)).valid_until).toBe(todayOf(new Date(Date.now() + 33 * DAY)));
      expect((await refresh(machineId, product.name)).statusCode).toBe(200);

      // A refund waits for Paddle's approval (https://developer.paddle.com/webhooks/adjustments/adjustment-created): nothing changes until then.
      const adjustment = { id: id('adj_01'), action: 'refund', type: 'full', transaction_id: renewal.data.id, subscription_id: subscription };
      const requested = paddleEvent('adjustment.created', { ...adjustment, status: 'pending_approval' }, new Date(Date.now() + 3000));
      expect((await accepted(t.app, connection.id, sign('paddle', SECRET, requested)))[0]).toMatchObject({ outcome: 'ignored', reason: 'refund-pending' });
      expect((await refresh(machineId, product.name)).statusCode).toBe(200);
      const approved = paddleEvent('adjustment.updated', { ...adjustment, status: 'approved' }, new Date(Date.now() + 4000));
      await accepted(t.app, connection.id, sign('paddle', SECRET, approved));
      expectError(await refresh(machineId, product.name), 403, 'ERR_LICENSE_REVOKED');
    });
  });

  describe('FastSpring', () => {
    // https://developer.fastspring.com/reference/webhooks: a delivery batches `{ events: [{ id, type, live, processed, created, data }] }`.
    const fsEvent = (type: string, data: Record<string, unknown>, created = Date.now()) => ({ id: id(''), type, live: false, processed: false, created, data });

    it('verifies X-FS-Signature over the raw body, handles each event of a batch once, and follows a subscription to its return', async () => {
      const productPath = id('pro-');
      const { product, connection } = await shop('fastspring', productPath);
      const subscription = id('');
      const machineId = machine();
      const email = `${uniqueName('fs')}@example.com`;
      const order = fsEvent('order.completed', {
        order: id(''),
        id: id(''),
        reference: `FUR${Date.now()}`,
        completed: true,
        language: 'it',
        customer: { first: 'Ada', last: 'Lovelace', email, company: null },
        tags: { machineId },
        items: [{ product: productPath, quantity: 3, subscription: { id: subscription, nextChargeDate: Date.now() - DAY } }],
      });
      expectError(await post(t.app, connection.id, sign('fastspring', 'another-secret-value', { events: [order] })), 401, 'ERR_INVALID_SIGNATURE');
      const [made] = await accepted(t.app, connection.id, sign('fastspring', SECRET, { events: [order] }));
      const tanId = made.tanIds[0];
      expect(await tan(tanId)).toMatchObject({ license_count: 3, valid_until: todayOf(new Date(Date.now() + 2 * DAY)) });
      expect((await refresh(machineId, product.name)).statusCode).toBe(200);

      const overdue = fsEvent('subscription.payment.overdue', { subscription: { id: subscription } }, Date.now() + 1000);
      // The order again in the same batch: handled once only.
      const results = await accepted(t.app, connection.id, sign('fastspring', SECRET, { events: [order, overdue] }));
      expect(results.map((result) => result.duplicate)).toEqual([true, false]);
      expectError(await refresh(machineId, product.name), 403, 'ERR_LICENSE_SUSPENDED');

      const charge = fsEvent('subscription.charge.completed', { status: 'successful', subscription: { id: subscription, product: productPath, quantity: 3, nextChargeDate: Date.now() + 30 * DAY }, order: { order: id('') } }, Date.now() + 2000);
      await accepted(t.app, connection.id, sign('fastspring', SECRET, { events: [charge] }));
      expect((await refresh(machineId, product.name)).statusCode).toBe(200);

      const returned = fsEvent('return.created', { return: id(''), original: { id: order.data.id, order: order.data.order, reference: order.data.reference } }, Date.now() + 3000);
      await accepted(t.app, connection.id, sign('fastspring', SECRET, { events: [returned] }));
      expectError(await refresh(machineId, product.name), 403, 'ERR_LICENSE_REVOKED');
    });
  });

  describe('Shopify', () => {
    // https://shopify.dev/docs/api/webhooks?reference=toml#list-of-topics-orders/paid: the order; topic and ids in headers.
    it('verifies X-Shopify-Hmac-Sha256, maps a variant, activates the machine of the cart attribute, and a refund revokes', async () => {
      const variant = String(Date.now());
      const { product, connection } = await shop('shopify', variant);
      const machineId = machine();
      const email = `${uniqueName('shopify')}@example.com`;
      const order = {
        id: Date.now() * 1000,
        email,
        financial_status: 'paid',
        customer_locale: 'es-ES',
        customer: { id: 115310627314723950, email, first_name: 'Ada', last_name: 'Lovelace' },
        billing_address: { first_name: 'Ada', last_name: 'Lovelace', company: 'Engines' },
        note_attributes: [{ name: 'machine_id', value: machineId }],
        line_items: [{ id: 866550311766439000, variant_id: Number(variant), product_id: 788032119674292900, sku: 'SKU-1', quantity: 1 }],
      };
      const headers = (topic: string, eventId = id('')) => ({ 'x-shopify-topic': topic, 'x-shopify-event-id': eventId, 'x-shopify-shop-domain': 'example.myshopify.com' });
      const signed = sign('shopify', SECRET, order, { headers: headers('orders/paid') });
      expectError(await post(t.app, connection.id, { ...signed, headers: { ...signed.headers, 'x-shopify-hmac-sha256': Buffer.alloc(32).toString('base64') } }), 401, 'ERR_INVALID_SIGNATURE');
      const [made] = await accepted(t.app, connection.id, signed);
      expect(made.outcome).toBe('processed');
      expect((await refresh(machineId, product.name)).statusCode).toBe(200);
      expect((await mailsTo(t.app, email)).some((mail) => mail.subject.startsWith('Su licencia'))).toBe(true);
      expect((await accepted(t.app, connection.id, signed))[0].duplicate).toBe(true);

      const refund = { id: 509562969, order_id: order.id, created_at: new Date().toISOString(), refund_line_items: [{ line_item_id: order.line_items[0].id, quantity: 1 }] };
      await accepted(t.app, connection.id, sign('shopify', SECRET, refund, { headers: headers('refunds/create') }));
      expectError(await refresh(machineId, product.name), 403, 'ERR_LICENSE_REVOKED');
    });
  });

  describe('generic', () => {
    it('takes the order webhook body with items, signed with the connection’s secret, sums lines of one id, and refuses a stale timestamp', async () => {
      const { product, connection } = await shop('generic', 'PRO-YEARLY', 4);
      const email = `${uniqueName('generic')}@example.com`;
      const order = { orderId: id('A-'), timestamp: new Date().toISOString(), email, firstName: 'Ada', lastName: 'Lovelace', locale: 'de-AT', items: [{ externalId: 'PRO-YEARLY', quantity: 2 }, { externalId: 'PRO-YEARLY', quantity: 1 }] };
      expectError(await post(t.app, connection.id, sign('generic', SECRET, { ...order, timestamp: new Date(Date.now() - 10 * 60_000).toISOString() })), 401, 'ERR_INVALID_SIGNATURE');
      const [made] = await accepted(t.app, connection.id, sign('generic', SECRET, order));
      // Two lines of one id: one TAN of (2 + 1) × 4 seats.
      expect(made.tanIds).toHaveLength(1);
      expect(await tan(made.tanIds[0])).toMatchObject({ product_id: product.id, license_count: 12 });
      // No machine id: the buyer activates the mailed code.
      expect(await s.db().selectFrom('licenses').select('id').where('tan_id', '=', made.tanIds[0]).execute()).toHaveLength(0);
      const [unknown] = await accepted(t.app, connection.id, sign('generic', SECRET, { ...order, orderId: id('A-'), items: [{ externalId: 'NOPE', quantity: 1 }] }));
      expect(unknown).toMatchObject({ outcome: 'failed', reason: 'unknown-mapping:NOPE' });
    });
  });
});
