/**
 * Selling without glue (issue 40, DESIGN.md section 6c): shop connections, Stripe's signed events
 * becoming TANs and licenses, a subscription's lifecycle seen by the desktop refresh, failed events
 * replayed, and exactly once under parallel deliveries. On SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { todayOf } from '@lm/contract/license';
import { client, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { invariantsSetup, machine, RACERS, uniqueName } from './invariants-support.ts';
import { mailsTo } from './mail-helpers.ts';
import { findLicenseView } from '../src/modules/licenses/repo.ts';
import { accepted, connect, DAY, id, post, sign, stripeCheckout, stripeEvent, stripeInvoicePaid, unix } from './shop-support.ts';

const SECRET = 'whsec_test_0123456789abcdef';

describeBothDatabases(
  'shop connections and Stripe',
  (t) => {
    const s = invariantsSetup(t);
    const refresh = (machineId: string, product: string) => s.as(null).post('/api/client/v1/license', { body: { machineId, product } });
    const tan = (tanId: number) => s.db().selectFrom('tans').selectAll().where('id', '=', tanId).executeTakeFirstOrThrow();
    const countTans = async (productId: number) => Number((await s.db().selectFrom('tans').select((eb) => eb.fn.countAll<number>().as('n')).where('product_id', '=', productId).executeTakeFirstOrThrow()).n);

    async function stripeShop(seats = 1) {
      const product = await s.product();
      const price = id('price_');
      const connection = await connect(s.admin, { provider: 'stripe', secret: SECRET, mappings: [{ externalId: price, productId: product.id, seats }] });
      return { product, price, connection };
    }

    describe('connections', () => {
      it('are the administrators’: the secret is stored encrypted and never shown, and a mapping naming an unknown or inactive product is refused by name', async () => {
        const { product, connection } = await stripeShop();
        const shown = await s.admin.get(`/api/shop-connections/${connection.id}`);
        expect(shown.statusCode).toBe(200);
        expect(shown.body).not.toContain(SECRET);
        expect(shown.json()).toMatchObject({ provider: 'stripe', graceDays: 3, webhookPath: `/api/webhooks/shop/${connection.id}`, failedEvents: 0 });
        // With SECRET_KEY set, the secret is stored encrypted like the signing key.
        const sealed = await t.newApp({ env: { SECRET_KEY: 'a-secret-key-for-the-shop-tests-0123456789' } });
        const sealedAdmin = client(sealed, (await loggedIn(sealed, 'ADMIN')).cookie);
        const sealedConnection = await connect(sealedAdmin, { provider: 'shopify', secret: SECRET });
        const stored = await sealed.ctx.db.selectFrom('shop_connections').select('secret').where('id', '=', sealedConnection.id).executeTakeFirstOrThrow();
        expect(stored.secret).not.toContain(SECRET);
        const order = { id: 820982911946154500, email: 'jon@example.com', financial_status: 'paid', line_items: [] };
        expect((await post(sealed, sealedConnection.id, sign('shopify', SECRET, order, { headers: { 'x-shopify-topic': 'orders/paid', 'x-shopify-event-id': id('') } }))).statusCode).toBe(200);
        expect((await s.admin.get('/api/shop-connections')).body).not.toContain(SECRET);

        const unknown = await s.admin.post('/api/shop-connections', { body: { provider: 'paddle', name: 'P', secret: 'pdl_ntfset_0123456789', mappings: [{ externalId: 'pri_1', productId: 999_999 }] } });
        expectError(unknown, 400, 'ERR_VALIDATION');
        expect(unknown.json().details[0]).toMatchObject({ path: 'mappings.0.productId', code: 'unknownProduct' });
        await s.db().updateTable('products').set({ active: false }).where('id', '=', product.id).execute();
        const inactive = await s.admin.put(`/api/shop-connections/${connection.id}`, { body: { mappings: [{ externalId: 'x', productId: product.id }] } });
        expect(inactive.json().details[0]).toMatchObject({ path: 'mappings.0.productId', code: 'inactiveProduct' });

        const customer = await s.customer();
        expectError(await customer.api.get('/api/shop-connections'), 403, 'ERR_FORBIDDEN');
        expectError(await s.as(null).get('/api/shop-connections'), 401, 'ERR_UNAUTHENTICATED');
        expect((await s.admin.put(`/api/shop-connections/${connection.id}`, { body: { name: 'Renamed', graceDays: 5 } })).json()).toMatchObject({ name: 'Renamed', graceDays: 5 });
        expect((await s.admin.delete(`/api/shop-connections/${connection.id}`)).statusCode).toBe(204);
        expectError(await s.admin.get(`/api/shop-connections/${connection.id}`), 404, 'ERR_NOT_FOUND');
      });
    });

    describe('Stripe-Signature', () => {
      it('refuses a wrong secret, a changed body, a stale timestamp and an unknown connection (401) and changes nothing', async () => {
        const { product, price, connection } = await stripeShop();
        const event = stripeCheckout({ price, email: `${uniqueName('b')}@example.com` });
        expectError(await post(t.app, connection.id, sign('stripe', 'whsec_wrong', event)), 401, 'ERR_INVALID_SIGNATURE');
        expectError(await post(t.app, connection.id, sign('stripe', SECRET, event, { at: unix() - 301 })), 401, 'ERR_INVALID_SIGNATURE');
        const signed = sign('stripe', SECRET, event);
        expectError(await post(t.app, connection.id, { ...signed, raw: signed.raw.replace('"paid"', '"unpaid"') }), 401, 'ERR_INVALID_SIGNATURE');
        expectError(await post(t.app, connection.id, { raw: signed.raw, headers: {} }), 401, 'ERR_INVALID_SIGNATURE');
        expectError(await post(t.app, 999_999, signed), 401, 'ERR_INVALID_SIGNATURE');
        expect(await countTans(product.id)).toBe(0);
        // A second v1 (a rolled secret) may be the one that matches; within 300 s is fresh.
        const rolled = sign('stripe', SECRET, event, { at: unix() - 250 });
        rolled.headers['stripe-signature'] += `,v1=${'0'.repeat(64)}`;
        expect((await post(t.app, connection.id, rolled)).statusCode).toBe(200);
      });
    });

    describe('purchases', () => {
      it('a paid checkout makes a TAN of quantity × seats for the buyer, activated on the order’s machine, mailed in the order’s language; a repeat changes nothing', async () => {
        const { product, price, connection } = await stripeShop(5);
        const email = `${uniqueName('buyer')}@example.com`;
        const machineId = machine();
        const delivery = sign('stripe', SECRET, stripeCheckout({ price, quantity: 2, email, machineId, locale: 'de' }));
        const [result] = await accepted(t.app, connection.id, delivery);
        expect(result).toMatchObject({ duplicate: false, outcome: 'processed', reason: null });
        expect(result.tanIds).toHaveLength(1);
        const made = await tan(result.tanIds[0]);
        expect(made).toMatchObject({ product_id: product.id, license_count: 10, activated_count: 1, valid_until: null });
        const owner = await s.db().selectFrom('users').select(['id', 'confirmed']).where('email', '=', email).executeTakeFirstOrThrow();
        const license = await s.db().selectFrom('licenses').selectAll().where('tan_id', '=', made.id).executeTakeFirstOrThrow();
        expect(license).toMatchObject({ owner_id: owner.id, machine_id: machineId, kind: 'TAN' });
        // A one-time purchase is no subscription: its license is not said to renew with each payment.
        expect(Boolean((await findLicenseView(s.db(), license.id))!.tan_subscription)).toBe(false);
        expect((await refresh(machineId, product.name)).statusCode).toBe(200);

        const mails = await mailsTo(t.app, email);
        const codeMail = mails.find((mail) => mail.subject.startsWith('Ihre Lizenz'));
        expect(codeMail?.text).toContain(made.code.slice(0, 4));
        expect(codeMail?.text).toContain(machineId);

        const [again] = await accepted(t.app, connection.id, sign('stripe', SECRET, JSON.parse(delivery.raw)));
        expect(again).toMatchObject({ duplicate: true, outcome: 'processed', tanIds: result.tanIds });
        expect(await countTans(product.id)).toBe(1);
        const changes = await s.db().selectFrom('change_log').select('operation').where('model', '=', 'Tan').where('record_id', '=', made.id).execute();
        expect(changes.map((change) => change.operation)).toContain('insert');
      });

      it('a purchase by an existing customer without a machine id is theirs, ready to activate, and nobody else’s', async () => {
        const { product, price, connection } = await stripeShop(2);
        const buyer = await s.customer();
        const other = await s.customer();
        const [result] = await accepted(t.app, connection.id, sign('stripe', SECRET, stripeCheckout({ price, email: buyer.email.toUpperCase() })));
        const purchases = (await buyer.api.get('/api/shop-purchases')).json().items;
        expect(purchases).toEqual([expect.objectContaining({ tanId: result.tanIds[0], productName: product.name, licenseCount: 2, activatedCount: 0, suspended: false })]);
        expect((await other.api.get('/api/shop-purchases')).json().items).toEqual([]);
        expectError(await s.as(null).get('/api/shop-purchases'), 401, 'ERR_UNAUTHENTICATED');
        const activated = await buyer.api.post('/api/licenses/activate', { body: { tan: purchases[0].code, machineId: machine() } });
        expect(activated.statusCode, activated.body).toBe(201);
        expect((await buyer.api.get('/api/shop-purchases')).json().items[0].activatedCount).toBe(1);
      });

      it('announces order.processed for a purchase and tan.updated with license.updated for its refund to webhook receivers', async () => {
        const endpoint = await s.admin.post('/api/webhook-endpoints', { body: { url: 'http://127.0.0.1:9/shop-events', events: ['order.processed', 'tan.updated', 'license.updated'] } });
        expect(endpoint.statusCode, endpoint.body).toBe(201);
        const { price, connection } = await stripeShop();
        const since = (await s.db().selectFrom('webhook_events').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst())?.id ?? 0;
        const checkout = stripeCheckout({ price, email: `${uniqueName('hooked')}@example.com`, machineId: machine() });
        const [bought] = await accepted(t.app, connection.id, sign('stripe', SECRET, checkout));
        const refund = stripeEvent('charge.refunded', { id: id('ch_'), object: 'charge', refunded: true, payment_intent: checkout.data.object.payment_intent });
        expect((await accepted(t.app, connection.id, sign('stripe', SECRET, refund)))[0]).toMatchObject({ outcome: 'processed', tanIds: bought.tanIds });
        const events = await s.db().selectFrom('webhook_events').select(['type', 'body']).where('id', '>', Number(since)).orderBy('id').execute();
        const types = events.map((event) => event.type);
        expect(types).toEqual(expect.arrayContaining(['order.processed', 'tan.updated', 'license.updated']));
        expect(events.find((event) => event.type === 'order.processed')?.body).toContain(String(bought.tanIds[0]));
        expect((await s.admin.delete(`/api/webhook-endpoints/${endpoint.json().id}`)).statusCode).toBe(204);
      });

      it(`${RACERS} parallel deliveries of one event make exactly one TAN`, async () => {
        const { product, price, connection } = await stripeShop();
        const delivery = sign('stripe', SECRET, stripeCheckout({ price, email: `${uniqueName('racer')}@example.com` }));
        const responses = await s.race(RACERS, (i) => s.as(null, i).post(`/api/webhooks/shop/${connection.id}`, { body: delivery.raw, headers: { 'content-type': 'application/json', ...delivery.headers } }));
        expect(responses.map((response) => response.statusCode)).toEqual(Array(RACERS).fill(200));
        const results = responses.map((response) => response.json().events[0]);
        expect(results.filter((result) => !result.duplicate)).toHaveLength(1);
        expect(new Set(results.map((result) => result.tanIds.join()))).toEqual(new Set([results[0].tanIds.join()]));
        expect(await countTans(product.id)).toBe(1);
        expect(await s.db().selectFrom('shop_events').select('id').where('connection_id', '=', connection.id).execute()).toHaveLength(1);
      });

      it('an unknown price is kept as a failed event with its reason, and replayed once the mapping is fixed', async () => {
        const { product, connection } = await stripeShop();
        const unknownPrice = id('price_');
        const email = `${uniqueName('late')}@example.com`;
        const [failed] = await accepted(t.app, connection.id, sign('stripe', SECRET, stripeCheckout({ price: unknownPrice, email })));
        expect(failed).toMatchObject({ outcome: 'failed', reason: `unknown-mapping:${unknownPrice}`, tanIds: [] });
        expect((await s.admin.get(`/api/shop-connections/${connection.id}`)).json().failedEvents).toBe(1);
        const listed = (await s.admin.get(`/api/shop-connections/${connection.id}/events`, { query: { outcome: 'failed' } })).json();
        expect(listed.items).toHaveLength(1);
        const eventRow = listed.items[0] as { id: number };
        // Replayed before the fix, it fails again for the same reason.
        expect((await s.admin.post(`/api/shop-connections/${connection.id}/events/${eventRow.id}/replay`)).json()).toMatchObject({ outcome: 'failed', reason: `unknown-mapping:${unknownPrice}` });

        expect((await s.admin.put(`/api/shop-connections/${connection.id}`, { body: { mappings: [{ externalId: unknownPrice, productId: product.id, seats: 3 }] } })).statusCode).toBe(200);
        const replayed = await s.admin.post(`/api/shop-connections/${connection.id}/events/${eventRow.id}/replay`);
        expect(replayed.statusCode, replayed.body).toBe(200);
        expect(replayed.json()).toMatchObject({ outcome: 'processed', reason: null });
        expect((await tan(replayed.json().tanIds[0])).license_count).toBe(3);
        expectError(await s.admin.post(`/api/shop-connections/${connection.id}/events/${eventRow.id}/replay`), 409, 'ERR_CONFLICT');
        expect(await countTans(product.id)).toBe(1);
      });
    });

    describe('a subscription', () => {
      it(`${RACERS} different invoices of one new subscription at once, in any order, make one TAN valid to the latest period`, async () => {
        const { product, price, connection } = await stripeShop();
        const subscription = id('sub_');
        const email = `${uniqueName('burst')}@example.com`;
        const ends = Array.from({ length: RACERS }, (_, i) => unix(Date.now() + (i + 1) * 30 * DAY)).reverse();
        const deliveries = ends.map((periodEnd) => sign('stripe', SECRET, stripeInvoicePaid({ subscription, price, email, periodEnd }).event));
        const responses = await s.race(RACERS, (i) => s.as(null, i).post(`/api/webhooks/shop/${connection.id}`, { body: deliveries[i].raw, headers: { 'content-type': 'application/json', ...deliveries[i].headers } }));
        expect(responses.map((response) => response.statusCode)).toEqual(Array(RACERS).fill(200));
        expect(await countTans(product.id)).toBe(1);
        const [line] = await s.db().selectFrom('shop_orders').select('tan_id').where('subscription_ref', '=', subscription).execute();
        expect((await tan(line.tan_id)).valid_until).toBe(todayOf(new Date(Math.max(...ends) * 1000 + 3 * DAY)));
        expect(await s.db().selectFrom('users').select('id').where('email', '=', email).execute()).toHaveLength(1);
      });

      it('renews, is suspended by a failed payment, reinstated by the next, never shortened by an older invoice, cancelled to its period end and revoked by a refund, as the desktop refresh sees it', async () => {
        const { product, price, connection } = await stripeShop();
        const subscription = id('sub_');
        const email = `${uniqueName('subscriber')}@example.com`;
        const machineId = machine();
        // The paid period ended yesterday: three grace days keep it valid.
        const first = stripeInvoicePaid({ subscription, price, email, machineId, periodEnd: unix(Date.now() - DAY) });
        const [made] = await accepted(t.app, connection.id, sign('stripe', SECRET, first.event));
        const tanId = made.tanIds[0];
        expect((await tan(tanId)).valid_until).toBe(todayOf(new Date(Date.now() + 2 * DAY)));
        // Its license says its end is renewed with each payment (the web app's card), unlike an end set by hand.
        const subscribed = await s.db().selectFrom('licenses').select('id').where('tan_id', '=', tanId).executeTakeFirstOrThrow();
        expect(Boolean((await findLicenseView(s.db(), subscribed.id))!.tan_subscription)).toBe(true);
        expect((await refresh(machineId, product.name)).statusCode).toBe(200);

        const failure = stripeEvent('invoice.payment_failed', { id: id('in_'), object: 'invoice', subscription, status: 'open' });
        await accepted(t.app, connection.id, sign('stripe', SECRET, failure));
        expect((await tan(tanId)).suspended).toBeTruthy();
        expectError(await refresh(machineId, product.name), 403, 'ERR_LICENSE_SUSPENDED');

        const renewal = stripeInvoicePaid({ subscription, price, email, periodEnd: unix(Date.now() + 30 * DAY), created: unix() + 1 });
        await accepted(t.app, connection.id, sign('stripe', SECRET, renewal.event));
        const renewed = await tan(tanId);
        expect(renewed.suspended).toBeFalsy();
        expect(renewed.valid_until).toBe(todayOf(new Date(Date.now() + 33 * DAY)));
        expect((await refresh(machineId, product.name)).statusCode).toBe(200);

        // The first invoice delivered again under another event id, and an old failure arriving late: no change.
        await accepted(t.app, connection.id, sign('stripe', SECRET, { ...first.event, id: id('evt_') }));
        await accepted(t.app, connection.id, sign('stripe', SECRET, { ...failure, id: id('evt_'), created: unix() - 3600 }));
        expect(await tan(tanId)).toMatchObject({ valid_until: renewed.valid_until, suspended: renewed.suspended });

        const periodEnd = unix(Date.now() + 30 * DAY);
        const cancel = stripeEvent('customer.subscription.updated', { id: subscription, object: 'subscription', status: 'active', cancel_at_period_end: true, current_period_end: periodEnd }, unix() + 2);
        await accepted(t.app, connection.id, sign('stripe', SECRET, cancel));
        expect((await tan(tanId)).valid_until).toBe(todayOf(new Date(periodEnd * 1000)));
        expect((await refresh(machineId, product.name)).statusCode).toBe(200);

        const refund = stripeEvent('charge.refunded', { id: id('ch_'), object: 'charge', refunded: true, invoice: renewal.invoice, payment_intent: id('pi_') }, unix() + 3);
        const [revoked] = await accepted(t.app, connection.id, sign('stripe', SECRET, refund));
        expect(revoked).toMatchObject({ outcome: 'processed', tanIds: [tanId] });
        expect((await tan(tanId)).revoked).toBeTruthy();
        expectError(await refresh(machineId, product.name), 403, 'ERR_LICENSE_REVOKED');
        const tanChanges = await s.db().selectFrom('change_log').select('new_values').where('model', '=', 'Tan').where('record_id', '=', tanId).where('operation', '=', 'update').execute();
        expect(tanChanges.some((change) => String(change.new_values).includes('"suspended":true'))).toBe(true);
      });
    });
  },
);
