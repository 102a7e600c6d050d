/**
 * The Orders page's API (issue 40 item 6), events that arrive before their purchase, and a Shopify
 * refund of some lines (DESIGN.md section 6c). On SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { todayOf } from '@lm/contract/license';
import type { ShopOrder } from '@lm/contract/shop';
import { client, describeBothDatabases, expectError, loggedIn, request } from './harness.ts';
import { invariantsSetup, machine, RACERS, uniqueName } from './invariants-support.ts';
import { accepted, connect, DAY, id, sign, stripeCheckout, stripeEvent, stripeInvoicePaid, unix } from './shop-support.ts';

const SECRET = 'shop-orders-secret-0123456789';

describeBothDatabases('shop orders', (t) => {
  const s = invariantsSetup(t);
  const refresh = (machineId: string, product: string) => s.as(null).post('/api/client/v1/license', { body: { machineId, product } });
  const tan = (tanId: number) => s.db().selectFrom('tans').selectAll().where('id', '=', tanId).executeTakeFirstOrThrow();
  const orders = async (query: Record<string, string>) => {
    const response = await s.admin.get('/api/shop-orders', { query });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { items: ShopOrder[]; totalCount: number };
  };

  async function shop(provider: string, mappings: { externalId: string; seats?: number }[]) {
    const product = await s.product();
    const connection = await connect(s.admin, { provider, secret: SECRET, graceDays: 3, mappings: mappings.map((mapping) => ({ productId: product.id, seats: 1, ...mapping })) });
    return { product, connection };
  }

  describe('the Orders page', () => {
    it('lists the events of every connection with their TANs and licenses, by connection, outcome, order id or buyer, paged; a failed one is replayed once fixed', async () => {
      const price = id('price_');
      const stripe = await shop('stripe', [{ externalId: price, seats: 2 }]);
      const shopify = await shop('shopify', []);
      const email = `${uniqueName('Orders')}@Example.com`;
      const machineId = machine();
      const checkout = stripeCheckout({ price, email, machineId });
      const delivery = sign('stripe', SECRET, checkout);
      const [bought] = await accepted(t.app, stripe.connection.id, delivery);
      expect((await accepted(t.app, stripe.connection.id, delivery))[0].duplicate).toBe(true);
      const variant = String(Date.now());
      const shopifyOrder = { id: Date.now(), email: `${uniqueName('shopify')}@example.com`, financial_status: 'paid', line_items: [{ id: 1, variant_id: Number(variant), quantity: 1 }] };
      const headers = { 'x-shopify-topic': 'orders/paid', 'x-shopify-event-id': id('') };
      const [failed] = await accepted(t.app, shopify.connection.id, sign('shopify', SECRET, shopifyOrder, { headers }));
      expect(failed).toMatchObject({ outcome: 'failed', reason: `unknown-mapping:${variant}` });

      const ofStripe = await orders({ connectionId: String(stripe.connection.id) });
      expect(ofStripe.totalCount).toBe(1);
      const [row] = ofStripe.items;
      expect(row).toMatchObject({
        connectionId: stripe.connection.id,
        provider: 'stripe',
        type: 'checkout.session.completed',
        outcome: 'processed',
        orderRef: String(checkout.data.object.id),
        email: email.toLowerCase(),
        deliveries: 2,
        tanIds: bought.tanIds,
      });
      const license = await s.db().selectFrom('licenses').select('id').where('tan_id', '=', bought.tanIds[0]).executeTakeFirstOrThrow();
      expect(row.tans).toEqual([
        expect.objectContaining({ id: bought.tanIds[0], licenseCount: 2, activatedCount: 1, revoked: false, licenses: [expect.objectContaining({ id: license.id, machineId, revoked: false })] }),
      ]);

      // Found by a part of the buyer's address in any case, by the order id, and among the repeated ones.
      expect((await orders({ filter: email.slice(0, 12).toUpperCase() })).items.map((item) => item.id)).toEqual([row.id]);
      expect((await orders({ filter: String(checkout.data.object.id) })).items.map((item) => item.id)).toEqual([row.id]);
      expect((await orders({ outcome: 'duplicate', connectionId: String(stripe.connection.id) })).items.map((item) => item.id)).toEqual([row.id]);
      expect((await orders({ outcome: 'duplicate', connectionId: String(shopify.connection.id) })).totalCount).toBe(0);
      const failedRows = await orders({ outcome: 'failed', connectionId: String(shopify.connection.id) });
      expect(failedRows.items).toEqual([expect.objectContaining({ provider: 'shopify', reason: `unknown-mapping:${variant}`, orderRef: String(shopifyOrder.id), tans: [] })]);
      const everything = await orders({ limit: '1000' });
      expect(everything.items.map((item) => item.connectionId)).toEqual(expect.arrayContaining([stripe.connection.id, shopify.connection.id]));
      const secondPage = await orders({ limit: '1', offset: '1' });
      expect(secondPage).toMatchObject({ totalCount: everything.totalCount, items: [everything.items[1]] });
      expectError(await s.admin.get('/api/shop-orders', { query: { outcome: 'lost' } }), 400, 'ERR_VALIDATION');

      // Fixed, then replayed from the page's row: it made its TAN.
      expect((await s.admin.put(`/api/shop-connections/${shopify.connection.id}`, { body: { mappings: [{ externalId: variant, productId: shopify.product.id }] } })).statusCode).toBe(200);
      const failedRow = failedRows.items[0];
      expect((await s.admin.post(`/api/shop-connections/${failedRow.connectionId}/events/${failedRow.id}/replay`)).json()).toMatchObject({ outcome: 'processed' });
      const [replayed] = (await orders({ connectionId: String(shopify.connection.id) })).items;
      expect(replayed).toMatchObject({ outcome: 'processed', reason: null, tans: [expect.objectContaining({ productName: shopify.product.name, licenses: [] })] });
    });

    it('are the administrators’: refused to a distributor, a customer, their API tokens and a visitor', async () => {
      const tokenOf = async (cookie: string) => {
        const created = await request(t.app, 'POST', '/api/api-tokens', { cookie, body: { name: 'orders' } });
        expect(created.statusCode, created.body).toBe(201);
        return { authorization: `Bearer ${created.json().token as string}` };
      };
      const distributor = await loggedIn(t.app, 'DISTRIBUTOR');
      const customer = await loggedIn(t.app, 'USER');
      const admin = await loggedIn(t.app, 'ADMIN');
      expectError(await client(t.app, distributor.cookie).get('/api/shop-orders'), 403, 'ERR_FORBIDDEN');
      expectError(await client(t.app, customer.cookie).get('/api/shop-orders'), 403, 'ERR_FORBIDDEN');
      expectError(await request(t.app, 'GET', '/api/shop-orders', { headers: await tokenOf(distributor.cookie) }), 403, 'ERR_FORBIDDEN');
      expectError(await request(t.app, 'GET', '/api/shop-orders', { headers: await tokenOf(customer.cookie) }), 403, 'ERR_FORBIDDEN');
      expectError(await s.as(null).get('/api/shop-orders'), 401, 'ERR_UNAUTHENTICATED');
      expect((await request(t.app, 'GET', '/api/shop-orders', { headers: await tokenOf(admin.cookie) })).statusCode).toBe(200);
    });
  });

  describe('events before their purchase', () => {
    // FastSpring (https://developer.fastspring.com/reference/webhooks): a renewal (subscription.charge.completed)
    // names no buyer, so before the order it cannot make the TAN; it waits, with the overdue payment.
    const fsEvent = (type: string, data: Record<string, unknown>, created: number) => ({ id: id(''), type, live: false, processed: false, created, data });

    async function fastSpringSubscription() {
      const productPath = id('pro-');
      const { product, connection } = await shop('fastspring', [{ externalId: productPath }]);
      const subscription = id('');
      const machineId = machine();
      const at = Date.now();
      const order = fsEvent(
        'order.completed',
        {
          order: id(''),
          id: id(''),
          reference: `FUR${at}`,
          completed: true,
          customer: { first: 'Ada', last: 'Lovelace', email: `${uniqueName('early')}@example.com` },
          tags: { machineId },
          items: [{ product: productPath, quantity: 1, subscription: { id: subscription, nextChargeDate: at - DAY } }],
        },
        at,
      );
      const overdue = fsEvent('subscription.payment.overdue', { subscription: { id: subscription } }, at + 1000);
      const nextChargeDate = at + 30 * DAY;
      const charge = fsEvent('subscription.charge.completed', { status: 'successful', subscription: { id: subscription, product: productPath, quantity: 1, nextChargeDate }, order: { order: id('') } }, at + 2000);
      const deliver = async (event: typeof order) => (await accepted(t.app, connection.id, sign('fastspring', SECRET, { events: [event] })))[0];
      return { product, connection, machineId, order, overdue, charge, nextChargeDate, deliver };
    }

    it('a renewal and a failed payment that come first wait, and the purchase applies them in the order they happened: the same end state as in order', async () => {
      const inOrder = await fastSpringSubscription();
      for (const event of [inOrder.order, inOrder.overdue, inOrder.charge]) expect((await inOrder.deliver(event)).outcome).toBe('processed');
      const reversed = await fastSpringSubscription();
      expect(await reversed.deliver(reversed.charge)).toMatchObject({ outcome: 'pending', reason: 'unknown-order', tanIds: [] });
      expect(await reversed.deliver(reversed.overdue)).toMatchObject({ outcome: 'pending', reason: 'unknown-order' });
      expect((await orders({ connectionId: String(reversed.connection.id), outcome: 'pending' })).totalCount).toBe(2);
      const [made] = (await reversed.deliver(reversed.order)).tanIds;

      const ends = async (run: typeof inOrder) => {
        const [line] = await s.db().selectFrom('shop_orders').select('tan_id').where('connection_id', '=', run.connection.id).execute();
        const row = await tan(line.tan_id);
        return { suspended: Boolean(row.suspended), revoked: Boolean(row.revoked), validUntil: row.valid_until, refresh: (await refresh(run.machineId, run.product.name)).statusCode };
      };
      // Renewed to the charge's next date plus three grace days, not suspended, as the desktop refresh sees it.
      const expected = (run: typeof inOrder) => ({ suspended: false, revoked: false, validUntil: todayOf(new Date(run.nextChargeDate + 3 * DAY)), refresh: 200 });
      expect(await ends(inOrder)).toEqual(expected(inOrder));
      expect(await ends(reversed)).toEqual(expected(reversed));
      const events = (await orders({ connectionId: String(reversed.connection.id) })).items;
      expect(events.map((event) => [event.type, event.outcome, event.tanIds])).toEqual([
        ['order.completed', 'processed', [made]],
        ['subscription.payment.overdue', 'processed', [made]],
        ['subscription.charge.completed', 'processed', [made]],
      ]);
      // Its suspension happened on the way, in the purchase's transaction, and was lifted by the later renewal.
      const changes = await s.db().selectFrom('change_log').select('new_values').where('model', '=', 'Tan').where('record_id', '=', made).where('operation', '=', 'update').execute();
      const suspensions = changes.map((change) => (JSON.parse(String(change.new_values)) as { suspended?: boolean }).suspended).filter((value) => value !== undefined);
      expect(suspensions).toEqual([true, false]);
      expect(await s.db().selectFrom('shop_pending_refs').select('ref').where('connection_id', '=', reversed.connection.id).execute()).toEqual([]);
    });

    it('a failure and a cancellation that come first suspend and end the subscription as in order, and a refund that comes first revokes at once', async () => {
      const price = id('price_');
      const run = async (order: 'purchase-first' | 'purchase-last') => {
        const { product, connection } = await shop('stripe', [{ externalId: price }]);
        const subscription = id('sub_');
        const machineId = machine();
        const periodEnd = unix(Date.now() - DAY);
        const bought = stripeInvoicePaid({ subscription, price, email: `${uniqueName('stripe')}@example.com`, machineId, periodEnd, created: unix() });
        const failure = stripeEvent('invoice.payment_failed', { id: id('in_'), object: 'invoice', subscription, status: 'open' }, unix() + 1);
        const cancel = stripeEvent('customer.subscription.deleted', { id: subscription, object: 'subscription', status: 'canceled', ended_at: unix() + 2 }, unix() + 2);
        const events = order === 'purchase-first' ? [bought.event, failure, cancel] : [failure, cancel, bought.event];
        for (const event of events) await accepted(t.app, connection.id, sign('stripe', SECRET, event));
        const [line] = await s.db().selectFrom('shop_orders').select('tan_id').where('connection_id', '=', connection.id).execute();
        const row = await tan(line.tan_id);
        return { suspended: Boolean(row.suspended), validUntil: row.valid_until, refresh: (await refresh(machineId, product.name)).json().error as string };
      };
      const first = await run('purchase-first');
      expect(first).toEqual({ suspended: true, validUntil: todayOf(new Date()), refresh: 'ERR_LICENSE_SUSPENDED' });
      expect(await run('purchase-last')).toEqual(first);

      const { product, connection } = await shop('stripe', [{ externalId: price }]);
      const machineId = machine();
      const checkout = stripeCheckout({ price, email: `${uniqueName('refund')}@example.com`, machineId });
      const refund = stripeEvent('charge.refunded', { id: id('ch_'), object: 'charge', refunded: true, payment_intent: checkout.data.object.payment_intent }, unix() + 5);
      expect((await accepted(t.app, connection.id, sign('stripe', SECRET, refund)))[0]).toMatchObject({ outcome: 'pending' });
      const [made] = await accepted(t.app, connection.id, sign('stripe', SECRET, checkout));
      expect((await tan(made.tanIds[0])).revoked).toBeTruthy();
      expectError(await refresh(machineId, product.name), 403, 'ERR_LICENSE_REVOKED');
      // The refund named a payment intent: the Orders page lists it by the order it refunded.
      const listed = (await orders({ connectionId: String(connection.id) })).items.find((item) => item.type === 'charge.refunded');
      expect(listed).toMatchObject({ outcome: 'processed', orderRef: String(checkout.data.object.id), tanIds: made.tanIds });
    });

    it(`${RACERS} failures delivered while their purchase is handled are each applied, none left waiting, whichever commits first`, async () => {
      const price = id('price_');
      const { connection } = await shop('stripe', [{ externalId: price }]);
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      for (let round = 0; round < 3; round++) {
        const subscription = id('sub_');
        const bought = sign('stripe', SECRET, stripeInvoicePaid({ subscription, price, email: `${uniqueName('race')}@example.com`, periodEnd: unix(Date.now() - DAY), created: unix() }).event);
        const failures = Array.from({ length: RACERS }, () => sign('stripe', SECRET, stripeEvent('invoice.payment_failed', { id: id('in_'), object: 'invoice', subscription }, unix() + 1)));
        // The purchase first, the failures spread over the time it takes (its password hash, then its transaction).
        const deliveries = [bought, ...failures];
        const responses = await s.race(deliveries.length, async (i) => {
          await pause(i * 15);
          return s.as(null, i).post(`/api/webhooks/shop/${connection.id}`, { body: deliveries[i].raw, headers: { 'content-type': 'application/json', ...deliveries[i].headers } });
        });
        expect(responses.map((response) => response.statusCode)).toEqual(Array(deliveries.length).fill(200));
        const lines = await s.db().selectFrom('shop_orders').select('tan_id').where('connection_id', '=', connection.id).where('subscription_ref', '=', subscription).execute();
        expect(lines).toHaveLength(1);
        expect((await tan(lines[0].tan_id)).suspended).toBeTruthy();
      }
      const events = await orders({ connectionId: String(connection.id), limit: '1000' });
      expect(events.items.filter((event) => event.outcome !== 'processed')).toEqual([]);
      expect(events.totalCount).toBe(3 * (RACERS + 1));
    });
  });

  describe('a Shopify refund', () => {
    it('revokes the TANs of the refunded line items only; a refund of no line item revokes nothing', async () => {
      const [one, two] = [String(Date.now()), String(Date.now() + 1)];
      const { product, connection } = await shop('shopify', [{ externalId: one }, { externalId: two }]);
      const machineId = machine();
      const email = `${uniqueName('lines')}@example.com`;
      const order = {
        id: Date.now() * 1000,
        email,
        financial_status: 'paid',
        line_items: [
          { id: 466157049, variant_id: Number(one), product_id: 632910392, sku: 'IPOD2008GREEN', quantity: 1 },
          { id: 518995019, variant_id: Number(two), product_id: 632910393, sku: 'IPOD2008RED', quantity: 2 },
        ],
      };
      const headers = (topic: string) => ({ 'x-shopify-topic': topic, 'x-shopify-event-id': id(''), 'x-shopify-webhook-id': id('') });
      const [made] = await accepted(t.app, connection.id, sign('shopify', SECRET, order, { headers: headers('orders/paid') }));
      expect(made.tanIds).toHaveLength(2);
      const tanOf = async (variant: string) => (await s.db().selectFrom('shop_orders').select('tan_id').where('connection_id', '=', connection.id).where('external_id', '=', variant).executeTakeFirstOrThrow()).tan_id;
      const [first, second] = [await tanOf(one), await tanOf(two)];
      const activated = await client(t.app, (await loggedIn(t.app)).cookie).post('/api/licenses/activate', { body: { tan: (await tan(second)).code, machineId } });
      expect(activated.statusCode, activated.body).toBe(201);

      // https://shopify.dev/docs/api/admin-rest/latest/resources/refund: refund_line_items name the line and carry it.
      const shipping = { id: 929361463, order_id: order.id, created_at: new Date().toISOString(), refund_line_items: [], order_adjustments: [{ kind: 'shipping_refund', amount: '5.00' }] };
      expect((await accepted(t.app, connection.id, sign('shopify', SECRET, shipping, { headers: headers('refunds/create') })))[0]).toMatchObject({ outcome: 'ignored', reason: 'no-refunded-items' });
      const refund = {
        id: 929361464,
        order_id: order.id,
        created_at: new Date().toISOString(),
        refund_line_items: [{ id: 104689539, quantity: 1, line_item_id: order.line_items[0].id, restock_type: 'no_restock', line_item: order.line_items[0] }],
      };
      const [refunded] = await accepted(t.app, connection.id, sign('shopify', SECRET, refund, { headers: headers('refunds/create') }));
      expect(refunded).toMatchObject({ outcome: 'processed', tanIds: [first] });
      expect((await tan(first)).revoked).toBeTruthy();
      expect((await tan(second)).revoked).toBeFalsy();
      expect((await refresh(machineId, product.name)).statusCode).toBe(200);

      // One of the two units of the other line: a partial refund, which keeps the TAN (the vendor decides by hand).
      const part = { id: 929361466, order_id: order.id, refund_line_items: [{ quantity: 1, line_item_id: order.line_items[1].id, line_item: order.line_items[1] }] };
      expect((await accepted(t.app, connection.id, sign('shopify', SECRET, part, { headers: headers('refunds/create') })))[0]).toMatchObject({ outcome: 'ignored', reason: 'partial-refund' });
      expect((await tan(second)).revoked).toBeFalsy();
      expect((await refresh(machineId, product.name)).statusCode).toBe(200);

      // The other line by its variant alone (a refund line without line_item_id): now that TAN goes too.
      const rest = { id: 929361465, order_id: order.id, refund_line_items: [{ quantity: 2, line_item: { variant_id: Number(two) } }] };
      expect((await accepted(t.app, connection.id, sign('shopify', SECRET, rest, { headers: headers('refunds/create') })))[0]).toMatchObject({ tanIds: [second] });
      expectError(await refresh(machineId, product.name), 403, 'ERR_LICENSE_REVOKED');
    });
  });
});
