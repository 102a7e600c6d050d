import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { App } from '../src/app.ts';
import { openDatabase } from '../src/platform/db/database.ts';
import { buildTestApp, callersOfEachRole, client, describeBothDatabases, expectError, loggedIn, request, testConfig } from './harness.ts';
import { insertProduct } from './licensing-fixtures.ts';
import { mailsTo } from './mail-helpers.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

// Only flush() and the wake after a change deliver: no poll runs in between.
const QUIET_WORKER = { webhookWorker: { pollIntervalMs: 3_600_000 } };

interface CreatedEndpoint {
  id: number;
  secret: string;
  ownerId: number;
  enabled: boolean;
}

async function addEndpoint(app: App, cookie: string, receiver: Receiver, events: string[]): Promise<CreatedEndpoint> {
  const response = await request(app, 'POST', '/api/webhook-endpoints', { cookie, body: { url: receiver.url, events, description: 'CRM' } });
  expect(response.statusCode, response.body).toBe(201);
  const endpoint = response.json() as CreatedEndpoint;
  expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  receiver.secret = endpoint.secret;
  return endpoint;
}

async function deliveries(app: App, cookie: string, endpointId: number) {
  const response = await request(app, 'GET', `/api/webhook-endpoints/${endpointId}/deliveries`, { cookie, query: { sort: 'createdAt', limit: '1000' } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().items as {
    id: number;
    eventId: string;
    eventType: string;
    status: string;
    nextAttemptAt: string | null;
    attempts: { attemptedAt: string; statusCode: number | null; durationMs: number; response: string | null; error: string | null }[];
  }[];
}

function receivers() {
  const list: Receiver[] = [];
  afterAll(async () => {
    for (const receiver of list) await receiver.close().catch(() => undefined);
  });
  return async () => {
    const receiver = await startReceiver();
    list.push(receiver);
    return receiver;
  };
}

describeBothDatabases(
  'outbound webhooks',
  (t) => {
    const as = callersOfEachRole(t);
    const newReceiver = receivers();
    let admin: Awaited<ReturnType<typeof loggedIn>>;
    beforeAll(async () => {
      admin = await loggedIn(t.app, 'ADMIN');
    });

    it('delivers signed events carrying the object as the API returns it, never a secret', async () => {
      const receiver = await newReceiver();
      await addEndpoint(t.app, admin.cookie, receiver, ['user.created', 'license.created', 'tan.created', 'tan.updated']);
      const product = await insertProduct(t.app);
      const tans = await client(t.app, admin.cookie).post('/api/tans', { query: { count: '1' }, body: { productId: product.id, licenseCount: 2 } });
      const tan = tans.json().items[0] as { id: number; code: string };
      const customer = await loggedIn(t.app);
      const activated = await client(t.app, customer.cookie).post('/api/licenses/activate', { body: { tan: tan.code, machineId: 'CRM-MACHINE' } });
      expect(activated.statusCode, activated.body).toBe(201);
      await t.app.webhooks.flush();

      expect(receiver.rejected).toEqual([]);
      const types = receiver.received.map((delivery) => delivery.payload.type);
      expect(types).toEqual(['tan.created', 'user.created', 'license.created', 'tan.updated']);
      const byType = Object.fromEntries(receiver.received.map((delivery) => [delivery.payload.type, delivery]));
      expect(byType['tan.created'].payload.data).toEqual({ ...(await client(t.app, admin.cookie).get(`/api/tans/${tan.id}`)).json(), activatedCount: 0, updatedAt: expect.any(String) });
      expect(byType['license.created'].payload.data).toEqual(JSON.parse(activated.body));
      expect(byType['tan.updated'].payload.data).toMatchObject({ id: tan.id, activatedCount: 1 });
      expect(byType['user.created'].payload.data).toMatchObject({ id: customer.id, email: customer.email });
      for (const delivery of receiver.received) {
        expect(delivery.body).not.toMatch(/password|hash|secret|whsec_/i);
        expect(delivery.headers['webhook-id']).toBe(delivery.payload.id);
        expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
        expect(delivery.headers['content-type']).toBe('application/json');
      }
      const log = await deliveries(t.app, admin.cookie, (await client(t.app, admin.cookie).get('/api/webhook-endpoints')).json().items.at(-1).id);
      expect(log.map((delivery) => delivery.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
      expect(log[0].attempts[0]).toMatchObject({ statusCode: 200, response: 'thanks', error: null });
    });

    it('retries a receiver that is down, in order per endpoint, until it comes back', async () => {
      const receiver = await newReceiver();
      const endpoint = await addEndpoint(t.app, admin.cookie, receiver, ['user.updated']);
      const user = await loggedIn(t.app);
      await receiver.down();
      for (const name of ['First', 'Second', 'Third']) {
        expect((await client(t.app, user.cookie).put(`/api/users/${user.id}`, { body: { firstName: name } })).statusCode).toBe(200);
      }
      await t.app.webhooks.flush();
      let log = await deliveries(t.app, admin.cookie, endpoint.id);
      // Only the head of the line was tried (the pass woken by the change may have tried it too).
      expect(log.map((delivery) => delivery.status)).toEqual(['pending', 'pending', 'pending']);
      expect(log[0].attempts.length).toBeGreaterThanOrEqual(1);
      expect(log.slice(1).map((delivery) => delivery.attempts.length)).toEqual([0, 0]);
      const failed = log[0].attempts[0];
      expect(failed).toMatchObject({ statusCode: null, error: 'Connection refused' });
      // The first retry comes within 30 seconds of the first failure, each later one waits twice as
      // long: after the woken pass and the flush both failed, the next try is 40 seconds away.
      const wait = Date.parse(log[0].nextAttemptAt!) - Date.parse(failed.attemptedAt);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(30_000 * 2 ** (log[0].attempts.length - 1));

      // Back, but answering 503: a failure with its status and excerpt, and the line still waits.
      await receiver.up();
      receiver.status = 503;
      await t.app.webhooks.flush();
      log = await deliveries(t.app, admin.cookie, endpoint.id);
      expect(log[0].attempts[0]).toMatchObject({ statusCode: 503, response: 'receiver unavailable', error: 'The receiver answered 503' });
      expect(log.map((delivery) => delivery.status)).toEqual(['pending', 'pending', 'pending']);
      const endpointState = (await client(t.app, admin.cookie).get(`/api/webhook-endpoints/${endpoint.id}`)).json();
      expect(endpointState).toMatchObject({ enabled: true, pendingCount: 3 });
      expect(endpointState.failingSince).not.toBeNull();

      receiver.status = 200;
      await t.app.webhooks.flush();
      expect(receiver.rejected).toEqual([]);
      expect(receiver.received.map((delivery) => delivery.payload.data.firstName)).toEqual(['First', 'Second', 'Third']);
      log = await deliveries(t.app, admin.cookie, endpoint.id);
      expect(log.map((delivery) => delivery.status)).toEqual(['delivered', 'delivered', 'delivered']);
      expect(log[0].attempts.length).toBeGreaterThanOrEqual(3);
      expect(log[0].attempts[0]).toMatchObject({ statusCode: 200 });
      expect(log.slice(1).map((delivery) => delivery.attempts.length)).toEqual([1, 1]);
      expect((await client(t.app, admin.cookie).get(`/api/webhook-endpoints/${endpoint.id}`)).json()).toMatchObject({ failingSince: null, pendingCount: 0 });
    });

    it('switches off an endpoint failing for 3 days, mails its creator, and sends what waited once it is on again', async () => {
      const receiver = await newReceiver();
      const endpoint = await addEndpoint(t.app, admin.cookie, receiver, ['user.updated']);
      const user = await loggedIn(t.app);
      await receiver.down();
      for (const name of ['Lost', 'Kept']) await client(t.app, user.cookie).put(`/api/users/${user.id}`, { body: { firstName: name } });
      await t.app.webhooks.flush();
      // Three days pass: the stored times say so.
      const threeDaysAgo = new Date(Date.now() - 72 * 3_600_000 - 60_000).toISOString();
      await t.app.ctx.db.updateTable('webhook_endpoints').set({ failing_since: threeDaysAgo }).where('id', '=', endpoint.id).execute();
      await t.app.ctx.db.updateTable('webhook_deliveries').set({ first_attempt_at: threeDaysAgo }).where('endpoint_id', '=', endpoint.id).where('attempts', '>', 0).execute();
      await t.app.webhooks.flush();

      const state = (await client(t.app, admin.cookie).get(`/api/webhook-endpoints/${endpoint.id}`)).json();
      expect(state).toMatchObject({ enabled: false, disabledReason: 'failing', pendingCount: 1 });
      expect((await deliveries(t.app, admin.cookie, endpoint.id)).map((delivery) => delivery.status)).toEqual(['failed', 'pending']);
      const mails = await mailsTo(t.app, admin.email);
      const mail = mails.find((candidate) => candidate.subject.includes('Webhook endpoint switched off'));
      expect(mail?.text).toContain(receiver.url);
      expect(mail?.text).toContain('http://localhost:3000/tools/webhooks');

      // Nothing is sent while it is off…
      await receiver.up();
      await t.app.webhooks.flush();
      expect(receiver.received).toEqual([]);
      // …and what waited goes out when it is switched on again.
      const on = await client(t.app, admin.cookie).put(`/api/webhook-endpoints/${endpoint.id}`, { body: { enabled: true } });
      expect(on.json()).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
      await t.app.webhooks.flush();
      expect(receiver.received.map((delivery) => delivery.payload.data.firstName)).toEqual(['Kept']);
    });

    it('sends a test event at once, redelivers with the same webhook-id, and signs with both secrets for a day after a rotation', async () => {
      const receiver = await newReceiver();
      const endpoint = await addEndpoint(t.app, admin.cookie, receiver, ['user.updated']);
      const test = await client(t.app, admin.cookie).post(`/api/webhook-endpoints/${endpoint.id}/test`);
      expect(test.statusCode, test.body).toBe(200);
      expect(test.json()).toMatchObject({ eventType: 'webhook.test', status: 'delivered', attempts: [expect.objectContaining({ statusCode: 200 })] });
      expect(receiver.received.map((delivery) => delivery.payload.type)).toEqual(['webhook.test']);

      const redelivered = await client(t.app, admin.cookie).post(`/api/webhook-deliveries/${test.json().id}/redeliver`);
      expect(redelivered.statusCode, redelivered.body).toBe(202);
      expect(redelivered.json()).toMatchObject({ status: 'pending', eventId: test.json().eventId });
      await t.app.webhooks.flush();
      expect(receiver.received.map((delivery) => delivery.headers['webhook-id'])).toEqual([test.json().eventId, test.json().eventId]);

      const oldSecret = endpoint.secret;
      const rotated = await client(t.app, admin.cookie).post(`/api/webhook-endpoints/${endpoint.id}/secret`);
      expect(rotated.statusCode).toBe(200);
      const newSecret = rotated.json().secret as string;
      expect(newSecret).not.toBe(oldSecret);
      receiver.secret = newSecret;
      const user = await loggedIn(t.app);
      await client(t.app, user.cookie).put(`/api/users/${user.id}`, { body: { firstName: 'Rotated' } });
      await t.app.webhooks.flush();
      const last = receiver.received.at(-1)!;
      expect(last.payload.data.firstName).toBe('Rotated');
      expect(last.headers['webhook-signature'].split(' ')).toHaveLength(2);
      expect(new Webhook(oldSecret).verify(last.body, last.headers)).toMatchObject({ type: 'user.updated' });
      // The stored secret is never listed.
      const listed = await client(t.app, admin.cookie).get('/api/webhook-endpoints');
      expect(listed.body).not.toContain('whsec_');

      await receiver.down();
      const failedTest = await client(t.app, admin.cookie).post(`/api/webhook-endpoints/${endpoint.id}/test`);
      expect(failedTest.json()).toMatchObject({ status: 'failed', attempts: [expect.objectContaining({ statusCode: null, error: 'Connection refused' })] });
    });

    it('announces order.processed to the endpoints that asked for it', async () => {
      const receiver = await newReceiver();
      await addEndpoint(t.app, admin.cookie, receiver, ['order.processed']);
      const secret = 'order-secret-for-the-webhook-test';
      expect((await as.admin.put('/api/settings/webhook.secret', { body: { value: secret } })).statusCode).toBe(204);
      expect((await as.admin.put('/api/settings/order.autoCreateAccount', { body: { value: true } })).statusCode).toBe(204);
      const body = JSON.stringify({ orderId: `A-${Date.now()}`, timestamp: new Date().toISOString(), email: `order-${Date.now()}@example.com`, firstName: 'Ada', lastName: 'Lovelace' });
      const signature = createHmac('sha256', secret).update(body).digest('hex');
      const order = await t.app.inject({ method: 'POST', url: '/api/webhooks/orders', headers: { 'content-type': 'application/json', 'x-signature': signature }, payload: body });
      expect(order.statusCode, order.body).toBe(200);
      await t.app.webhooks.flush();
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0].payload).toMatchObject({ type: 'order.processed', data: { orderId: JSON.parse(body).orderId, account: 'created', userId: order.json().userId } });
    });

    it('refuses non-http addresses and events nobody knows', async () => {
      for (const url of ['ftp://example.com/hook', 'file:///etc/passwd', 'javascript:alert(1)', 'gopher://127.0.0.1:25/', 'not a url']) {
        const body = expectError(await as.admin.post('/api/webhook-endpoints', { body: { url, events: ['license.created'] } }), 400, 'ERR_VALIDATION');
        expect(body.details).toContainEqual(expect.objectContaining({ path: 'url', code: 'url', message: 'Enter a web address starting with http:// or https://' }));
      }
      expectError(await as.admin.post('/api/webhook-endpoints', { body: { url: 'https://example.com', events: ['license.exploded'] } }), 400, 'ERR_VALIDATION');
      expectError(await as.admin.post('/api/webhook-endpoints', { body: { url: 'https://example.com', events: [] } }), 400, 'ERR_VALIDATION');
      // Loopback and private addresses are fine for an administrator (self-hosted systems).
      for (const url of ['http://127.0.0.1:9/x', 'http://10.1.2.3/x', 'http://[::1]:8080/x']) {
        expect((await as.admin.post('/api/webhook-endpoints', { body: { url, events: ['license.created'], enabled: false } })).statusCode).toBe(201);
      }
    });

    it('refuses every endpoint call to a role without the right and to another account', async () => {
      const receiver = await newReceiver();
      const endpoint = await addEndpoint(t.app, admin.cookie, receiver, ['user.updated']);
      const test = (await client(t.app, admin.cookie).post(`/api/webhook-endpoints/${endpoint.id}/test`)).json();
      const calls: [string, string, unknown?][] = [
        ['GET', `/api/webhook-endpoints/${endpoint.id}`],
        ['PUT', `/api/webhook-endpoints/${endpoint.id}`, { enabled: false }],
        ['DELETE', `/api/webhook-endpoints/${endpoint.id}`],
        ['POST', `/api/webhook-endpoints/${endpoint.id}/secret`],
        ['GET', `/api/webhook-endpoints/${endpoint.id}/deliveries`],
        ['POST', `/api/webhook-endpoints/${endpoint.id}/test`],
        ['POST', `/api/webhook-deliveries/${test.id}/redeliver`],
      ];
      for (const [method, url, body] of calls) {
        const call = { cookie: as.cookies.USER, body } as const;
        expectError(await request(t.app, method as 'GET', url, call), 404, 'ERR_NOT_FOUND');
        // A distributor (who may have endpoints of its own) does not see an administrator's.
        expectError(await request(t.app, method as 'GET', url, { cookie: as.cookies.DISTRIBUTOR, body }), 404, 'ERR_NOT_FOUND');
        expectError(await request(t.app, method as 'GET', url, { body }), 401, 'ERR_UNAUTHENTICATED');
      }
      expectError(await as.user.get('/api/webhook-endpoints'), 403, 'ERR_FORBIDDEN');
      expectError(await as.user.post('/api/webhook-endpoints', { body: { url: receiver.url, events: ['user.updated'] } }), 403, 'ERR_FORBIDDEN');
      expectError(await as.anonymous.get('/api/webhook-endpoints'), 401, 'ERR_UNAUTHENTICATED');
      expect((await as.distributor.get('/api/webhook-endpoints')).json().items.map((item: { ownerId: number }) => item.ownerId)).not.toContain(admin.id);
      // By default a distributor's endpoint must be a public address.
      const inner = expectError(await as.distributor.post('/api/webhook-endpoints', { body: { url: receiver.url, events: ['tan.created'] } }), 400, 'ERR_VALIDATION');
      expect(inner.details).toContainEqual(expect.objectContaining({ path: 'url', code: 'notPublic' }));
      expect((await client(t.app, admin.cookie).get(`/api/webhook-endpoints/${endpoint.id}`)).statusCode).toBe(200);
    });

    it('reports its outbox in /metrics', async () => {
      const metrics = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
      expect(metrics.body).toContain('license_manager_outbox_messages{outbox="webhook",state="pending"}');
      expect(metrics.body).toContain('license_manager_outbox_oldest_pending_age_seconds{outbox="webhook"}');
    });

    it('never sends a delivery twice when two instances work the same outbox', async () => {
      const second = await buildTestApp(testConfig(t.config.database, { config: QUIET_WORKER }), openDatabase(t.config.database));
      try {
        const receiver = await newReceiver();
        const endpoint = await addEndpoint(t.app, admin.cookie, receiver, ['user.updated']);
        const user = await loggedIn(t.app);
        for (let i = 1; i <= 12; i++) await client(t.app, user.cookie).put(`/api/users/${user.id}`, { body: { firstName: `Name ${i}` } });
        await Promise.all([t.app.webhooks.flush(), second.webhooks.flush(), t.app.webhooks.flush(), second.webhooks.flush()]);
        await Promise.all([t.app.webhooks.flush(), second.webhooks.flush()]);
        const ids = receiver.received.map((delivery) => delivery.payload.id);
        expect(new Set(ids).size).toBe(12);
        expect(ids).toHaveLength(12);
        expect(receiver.received.map((delivery) => delivery.payload.data.firstName)).toEqual(Array.from({ length: 12 }, (_, i) => `Name ${i + 1}`));
        expect((await deliveries(t.app, admin.cookie, endpoint.id)).every((delivery) => delivery.attempts.length === 1)).toBe(true);
      } finally {
        await second.close();
      }
    });
  },
  { config: QUIET_WORKER },
);

describeBothDatabases(
  'outbound webhooks of distributors',
  (t) => {
    const as = callersOfEachRole(t);
    const newReceiver = receivers();

    it('receive only the events of their own TANs and their licenses', async () => {
      const mine = await loggedIn(t.app, 'DISTRIBUTOR');
      const theirs = await loggedIn(t.app, 'DISTRIBUTOR');
      const myReceiver = await newReceiver();
      const theirReceiver = await newReceiver();
      const adminReceiver = await newReceiver();
      const events = ['tan.created', 'tan.updated', 'license.created', 'user.created'];
      // A distributor cannot subscribe to other accounts' creation: it would never be told of one.
      const distributorEvents = events.filter((event) => event !== 'user.created');
      await addEndpoint(t.app, mine.cookie, myReceiver, distributorEvents);
      await addEndpoint(t.app, theirs.cookie, theirReceiver, distributorEvents);
      await addEndpoint(t.app, as.cookies.ADMIN, adminReceiver, events);
      const product = await insertProduct(t.app);
      const create = async (cookie: string) => (await client(t.app, cookie).post('/api/tans', { query: { count: '1' }, body: { productId: product.id, licenseCount: 1 } })).json().items[0] as { id: number; code: string };
      const myTan = await create(mine.cookie);
      const theirTan = await create(theirs.cookie);
      const adminTan = await create(as.cookies.ADMIN);
      const customer = await loggedIn(t.app);
      for (const tan of [myTan, theirTan, adminTan]) {
        const activated = await client(t.app, customer.cookie).post('/api/licenses/activate', { body: { tan: tan.code, machineId: `M-${tan.id}` } });
        expect(activated.statusCode, activated.body).toBe(201);
      }
      await t.app.webhooks.flush();
      const seen = (receiver: Receiver) => receiver.received.map((delivery) => `${delivery.payload.type}:${String(delivery.payload.data.tanId ?? delivery.payload.data.id)}`);
      expect(myReceiver.rejected).toEqual([]);
      expect(seen(myReceiver)).toEqual([`tan.created:${myTan.id}`, `license.created:${myTan.id}`, `tan.updated:${myTan.id}`]);
      expect(seen(theirReceiver)).toEqual([`tan.created:${theirTan.id}`, `license.created:${theirTan.id}`, `tan.updated:${theirTan.id}`]);
      expect(adminReceiver.received.filter((delivery) => delivery.payload.type !== 'user.created')).toHaveLength(9);
      // The distributors' lists hold their own endpoints only.
      const listed = (await client(t.app, mine.cookie).get('/api/webhook-endpoints')).json().items as { ownerId: number; id: number }[];
      expect(listed.map((endpoint) => endpoint.ownerId)).toEqual([mine.id]);
      // Their delivery logs give the status, not what answered: this server may reach what they cannot.
      const attempts = (await deliveries(t.app, mine.cookie, listed[0].id)).flatMap((delivery) => delivery.attempts);
      expect(attempts.length).toBe(3);
      for (const attempt of attempts) expect(attempt).toMatchObject({ statusCode: 200, response: null });
      const adminEndpoint = (await client(t.app, as.cookies.ADMIN).get('/api/webhook-endpoints', { query: { limit: '1000' } })).json().items.find((endpoint: { url: string }) => endpoint.url === adminReceiver.url);
      expect((await deliveries(t.app, as.cookies.ADMIN, adminEndpoint.id))[0].attempts[0]).toMatchObject({ statusCode: 200, response: 'thanks' });
    });

    it('cannot subscribe to events they would never receive: other accounts and the shop\'s orders', async () => {
      const distributor = await loggedIn(t.app, 'DISTRIBUTOR');
      const receiver = await newReceiver();
      for (const event of ['user.created', 'user.deleted', 'order.processed']) {
        const refused = expectError(await client(t.app, distributor.cookie).post('/api/webhook-endpoints', { body: { url: receiver.url, events: ['tan.created', event] } }), 400, 'ERR_VALIDATION');
        expect(refused.details).toMatchObject([{ path: 'events', code: 'notAnOption' }]);
      }
      const endpoint = await addEndpoint(t.app, distributor.cookie, receiver, ['tan.created', 'license.created', 'user.updated']);
      expectError(await client(t.app, distributor.cookie).put(`/api/webhook-endpoints/${endpoint.id}`, { body: { events: ['order.processed'] } }), 400, 'ERR_VALIDATION');
      // Administrators subscribe to everything.
      expect((await client(t.app, as.cookies.ADMIN).post('/api/webhook-endpoints', { body: { url: receiver.url, events: ['user.created', 'order.processed'] } })).statusCode).toBe(201);
    });

    it("receive their own account's changes without the administrators' notes, which the administrators' endpoint carries", async () => {
      const distributor = await loggedIn(t.app, 'DISTRIBUTOR');
      const ownReceiver = await newReceiver();
      const adminReceiver = await newReceiver();
      await addEndpoint(t.app, distributor.cookie, ownReceiver, ['user.updated']);
      await addEndpoint(t.app, as.cookies.ADMIN, adminReceiver, ['user.updated']);
      const noted = await client(t.app, as.cookies.ADMIN).put(`/api/users/${distributor.id}`, { body: { notes: 'Pays late', city: 'Graz' } });
      expect(noted.statusCode, noted.body).toBe(200);
      await t.app.webhooks.flush();
      const own = ownReceiver.received.find((delivery) => delivery.payload.data.id === distributor.id);
      expect(own?.payload.data).toMatchObject({ id: distributor.id, city: 'Graz' });
      expect(own?.payload.data).not.toHaveProperty('notes');
      expect(adminReceiver.received.find((delivery) => delivery.payload.data.id === distributor.id)?.payload.data).toMatchObject({ city: 'Graz', notes: 'Pays late' });
    });
  },
  { config: { ...QUIET_WORKER, webhookPrivateAddresses: 'all' } },
);
