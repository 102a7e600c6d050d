/** Webhook attempts say why they failed as a reason code (words for the web to translate), with the English detail beside it. */
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeBothDatabases, loggedIn } from './harness.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

// Only flush() and the wake after a change deliver: no poll runs in between. A short time limit
// for the receiver that never answers.
const CONFIG = { webhookWorker: { pollIntervalMs: 3_600_000, timeoutMs: 1_000 } };

interface Attempt {
  statusCode: number | null;
  reason: string | null;
  reasonParams: { status?: number; seconds?: number };
  error: string | null;
}

describeBothDatabases(
  'webhook failure reasons',
  (t) => {
    let cookie: string;
    const receivers: Receiver[] = [];
    const silent: net.Server[] = [];
    beforeAll(async () => {
      cookie = (await loggedIn(t.app, 'ADMIN')).cookie;
    });
    afterAll(async () => {
      for (const receiver of receivers) await receiver.close().catch(() => undefined);
      for (const server of silent) {
        server.close();
      }
    });

    async function endpointFor(url: string, receiver?: Receiver): Promise<number> {
      const created = await client(t.app, cookie).post('/api/webhook-endpoints', { body: { url, events: ['user.updated'] } });
      expect(created.statusCode, created.body).toBe(201);
      if (receiver) receiver.secret = created.json().secret;
      return created.json().id as number;
    }

    async function testAttempt(endpointId: number): Promise<{ status: string; attempts: Attempt[] }> {
      const sent = await client(t.app, cookie).post(`/api/webhook-endpoints/${endpointId}/test`);
      expect(sent.statusCode, sent.body).toBe(200);
      return sent.json();
    }

    async function newReceiver(): Promise<Receiver> {
      const receiver = await startReceiver();
      receivers.push(receiver);
      return receiver;
    }

    it('a delivered attempt has no reason', async () => {
      const receiver = await newReceiver();
      const endpointId = await endpointFor(receiver.url, receiver);
      const delivery = await testAttempt(endpointId);
      expect(delivery.status).toBe('delivered');
      expect(delivery.attempts).toEqual([expect.objectContaining({ statusCode: 200, reason: null, reasonParams: {}, error: null })]);
    });

    it('a closed port is connectionRefused, with the English detail beside it', async () => {
      const receiver = await newReceiver();
      const endpointId = await endpointFor(receiver.url);
      await receiver.down();
      const delivery = await testAttempt(endpointId);
      expect(delivery.status).toBe('failed');
      expect(delivery.attempts).toEqual([expect.objectContaining({ statusCode: null, reason: 'connectionRefused', reasonParams: {}, error: 'Connection refused' })]);
      // The log reads it back from the database, and the worker's attempts store it as well.
      const user = await loggedIn(t.app);
      expect((await client(t.app, user.cookie).put(`/api/users/${user.id}`, { body: { firstName: 'Refused' } })).statusCode).toBe(200);
      await t.app.webhooks.flush();
      const log = await client(t.app, cookie).get(`/api/webhook-endpoints/${endpointId}/deliveries`);
      expect(log.json().items.map((item: { eventType: string; attempts: Attempt[] }) => [item.eventType, item.attempts[0]?.reason])).toEqual([
        ['user.updated', 'connectionRefused'],
        ['webhook.test', 'connectionRefused'],
      ]);
    });

    it('a receiver answering 500 is httpStatus with the status as its parameter', async () => {
      const receiver = await newReceiver();
      receiver.status = 500;
      const endpointId = await endpointFor(receiver.url);
      const delivery = await testAttempt(endpointId);
      expect(delivery.status).toBe('failed');
      expect(delivery.attempts).toEqual([expect.objectContaining({ statusCode: 500, reason: 'httpStatus', reasonParams: { status: 500 }, error: 'The receiver answered 500' })]);
    });

    it('a receiver that never answers is timeout with the seconds waited', async () => {
      const server = net.createServer(() => undefined);
      silent.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const endpointId = await endpointFor(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hooks`);
      const delivery = await testAttempt(endpointId);
      expect(delivery.attempts).toEqual([expect.objectContaining({ statusCode: null, reason: 'timeout', reasonParams: { seconds: 1 }, error: 'No answer within 1 s' })]);
    });

    it('an attempt stored without a code (an older version) reads as httpStatus when answered, else other with its text', async () => {
      const receiver = await newReceiver();
      const endpointId = await endpointFor(receiver.url);
      await receiver.down();
      const deliveryId = (await client(t.app, cookie).post(`/api/webhook-endpoints/${endpointId}/test`)).json().id as number;
      const db = t.app.ctx.db;
      await db.updateTable('webhook_attempts').set({ reason: null, error: 'getaddrinfo EAI_AGAIN crm.example.com' }).where('delivery_id', '=', deliveryId).execute();
      const base = { delivery_id: deliveryId, duration_ms: 12, response: null, reason: null };
      await db.insertInto('webhook_attempts').values({ ...base, attempted_at: new Date().toISOString(), status_code: 502, error: 'The receiver answered 502' }).execute();
      await db.insertInto('webhook_attempts').values({ ...base, attempted_at: new Date().toISOString(), status_code: null, error: null, reason: 'somethingNew' }).execute();
      const log = await client(t.app, cookie).get(`/api/webhook-endpoints/${endpointId}/deliveries`);
      expect(log.statusCode, log.body).toBe(200);
      expect(log.json().items[0].attempts).toEqual([
        expect.objectContaining({ reason: 'other', reasonParams: {}, error: null }),
        expect.objectContaining({ statusCode: 502, reason: 'httpStatus', reasonParams: { status: 502 }, error: 'The receiver answered 502' }),
        expect.objectContaining({ statusCode: null, reason: 'other', reasonParams: {}, error: 'getaddrinfo EAI_AGAIN crm.example.com' }),
      ]);
    });
  },
  { config: { ...CONFIG, webhookPrivateAddresses: 'all' } },
);
