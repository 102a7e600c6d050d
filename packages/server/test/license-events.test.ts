import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeBothDatabases, expectError, loggedIn, request } from './harness.ts';
import { insertLicense, insertPolicy, insertProduct, insertTan, unique } from './licensing-fixtures.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';
import { licenseEvents } from '../src/modules/license-events/recorder.ts';
import { pruneLicenseEvents } from '../src/modules/license-events/retention.ts';

describeBothDatabases('runtime events of licenses', (t) => {
  let admin: Awaited<ReturnType<typeof loggedIn>>;
  let distributor: Awaited<ReturnType<typeof loggedIn>>;
  let customer: Awaited<ReturnType<typeof loggedIn>>;
  let receiver: Receiver;
  /** A floating license of one seat from the distributor's TAN, held by the first machine; the customer's. */
  let pool: { product: string; tanId: number; first: { machineId: string; licenseId: number }; second: { machineId: string; licenseId: number } };
  const fetchLicense = (body: Record<string, unknown>) => client(t.app).post('/api/client/v1/license', { body });

  beforeAll(async () => {
    admin = await loggedIn(t.app, 'ADMIN');
    distributor = await loggedIn(t.app, 'DISTRIBUTOR');
    customer = await loggedIn(t.app, 'USER');
    receiver = await startReceiver();
    const endpoint = await request(t.app, 'POST', '/api/webhook-endpoints', { cookie: admin.cookie, body: { url: receiver.url, events: ['seat.denied', 'license.activation_refused', 'license.clock_tampered'] } });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    receiver.secret = (endpoint.json() as { secret: string }).secret;

    const product = await insertProduct(t.app);
    const policy = await insertPolicy(t.app, { type: 'FLOATING', licenseMaxValidDays: 1, refetchIntervalSeconds: 900, refetchBeforeExpirySeconds: 3600 });
    const tanId = await insertTan(t.app, { productId: product.id, policyId: policy, licenseCount: 1, distributorId: distributor.id });
    const machine = async () => {
      const machineId = unique('events-machine');
      const licenseId = await insertLicense(t.app, { ownerId: customer.id, productId: product.id, policyId: policy, machineId, tanId, permanent: true });
      await t.app.ctx.db.updateTable('licenses').set({ distributor_id: distributor.id }).where('id', '=', licenseId).execute();
      return { machineId, licenseId };
    };
    pool = { product: product.name, tanId, first: await machine(), second: await machine() };
    expect((await fetchLicense({ machineId: pool.first.machineId, product: pool.product })).statusCode).toBe(200);
  });
  afterAll(() => receiver?.close());

  it("keeps a refusal for no seat with its time and machine on the license's timeline, and the vendor's webhook gets it", async () => {
    const before = new Date().toISOString();
    const refusals = await Promise.all(Array.from({ length: 10 }, () => fetchLicense({ machineId: pool.second.machineId, product: pool.product })));
    for (const refusal of refusals) expectError(refusal, 409, 'ERR_NO_SEAT');
    // Nothing is written on the protocol's path: the events wait in memory until the next flush.
    expect(await t.app.ctx.db.selectFrom('license_events').select('id').where('license_id', '=', pool.second.licenseId).execute()).toEqual([]);

    const timeline = await request(t.app, 'GET', `/api/licenses/${pool.second.licenseId}/events`, { cookie: customer.cookie });
    expect(timeline.statusCode, timeline.body).toBe(200);
    // Ten refusals of the same machine within seconds are one event with nine repeats.
    expect(timeline.json()).toMatchObject({ totalCount: 1, items: [{ type: 'seat.denied', code: 'ERR_NO_SEAT', machineId: pool.second.machineId, licenseId: pool.second.licenseId, tanId: pool.tanId, repeats: 9 }] });
    expect(timeline.json().items[0].at >= before).toBe(true);
    const ofTan = await request(t.app, 'GET', `/api/tans/${pool.tanId}/events`, { cookie: distributor.cookie });
    expect(ofTan.json()).toMatchObject({ totalCount: 1, items: [{ type: 'seat.denied' }] });

    await t.app.webhooks.flush();
    expect(receiver.received.map((delivery) => delivery.payload.type)).toContain('seat.denied');
    expect(receiver.received.find((delivery) => delivery.payload.type === 'seat.denied')?.payload.data).toMatchObject({ code: 'ERR_NO_SEAT', machineId: pool.second.machineId, licenseId: pool.second.licenseId });
  });

  it('keeps a lease that ran out, other refusals with their code, clock tampering the client reports, and offline deactivation', async () => {
    // The first machine's lease ran out an hour ago; it comes back and takes the seat again.
    const expiredAt = new Date(Date.now() - 3600_000).toISOString();
    await t.app.ctx.db.updateTable('floating_seats').set({ leased_until: expiredAt }).where('machine_id', '=', pool.first.machineId).execute();
    expect((await fetchLicense({ machineId: pool.first.machineId, product: pool.product })).statusCode).toBe(200);
    const tamperedAt = new Date(Date.now() - 60_000).toISOString();
    expect((await fetchLicense({ machineId: pool.first.machineId, product: pool.product, clockTamperedAt: tamperedAt })).statusCode).toBe(200);
    expect((await client(t.app).delete('/api/client/v1/license', { body: { machineId: pool.first.machineId, product: pool.product } })).statusCode).toBe(204);
    await t.app.ctx.db.updateTable('licenses').set({ revoked: true }).where('id', '=', pool.first.licenseId).execute();
    expectError(await fetchLicense({ machineId: pool.first.machineId, product: pool.product }), 403, 'ERR_LICENSE_REVOKED');
    const events = (await request(t.app, 'GET', `/api/licenses/${pool.first.licenseId}/events`, { cookie: admin.cookie, query: { sort: 'at' } })).json() as { items: { type: string; code: string | null; at: string }[] };
    expect(events.items.map((event) => [event.type, event.code])).toEqual([
      ['lease.expired', null],
      ['clock.tampered', null],
      ['offline.deactivated', null],
      ['activation.refused', 'ERR_LICENSE_REVOKED'],
    ]);
    expect(events.items.slice(0, 2).map((event) => event.at)).toEqual([expiredAt, tamperedAt]);
    expectError(await fetchLicense({ machineId: pool.first.machineId, product: pool.product, clockTamperedAt: 'yesterday' }), 400, 'ERR_VALIDATION');
  });

  it('lets staff search and export them; customers and other distributors are refused', async () => {
    const list = await request(t.app, 'GET', '/api/license-events', { cookie: admin.cookie, query: { type: 'seat.denied', machine: pool.second.machineId } });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json()).toMatchObject({ totalCount: 1, items: [{ code: 'ERR_NO_SEAT' }] });
    const own = await request(t.app, 'GET', '/api/license-events', { cookie: distributor.cookie, query: { tanId: String(pool.tanId) } });
    expect(own.json().totalCount).toBe(5);
    const byCode = await request(t.app, 'GET', '/api/license-events', { cookie: distributor.cookie, query: { code: 'ERR_LICENSE_REVOKED' } });
    expect(byCode.json()).toMatchObject({ totalCount: 1, items: [{ licenseId: pool.first.licenseId }] });

    const csv = await request(t.app, 'GET', '/api/license-events.csv', { cookie: admin.cookie, query: { licenseId: String(pool.second.licenseId) } });
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.body.replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[0]).toBe('at,type,code,machineId,licenseId,tanId,ownerId,repeats');
    expect(lines.slice(1)).toEqual([expect.stringContaining(`,seat.denied,ERR_NO_SEAT,${pool.second.machineId},${pool.second.licenseId},`)]);

    const other = await loggedIn(t.app, 'DISTRIBUTOR');
    expect((await request(t.app, 'GET', '/api/license-events', { cookie: other.cookie })).json().totalCount).toBe(0);
    expectError(await request(t.app, 'GET', `/api/tans/${pool.tanId}/events`, { cookie: other.cookie }), 404, 'ERR_NOT_FOUND');
    expectError(await request(t.app, 'GET', `/api/licenses/${pool.second.licenseId}/events`, { cookie: other.cookie }), 404, 'ERR_NOT_FOUND');
    expectError(await request(t.app, 'GET', '/api/license-events', { cookie: customer.cookie }), 403, 'ERR_FORBIDDEN');
    expectError(await request(t.app, 'GET', '/api/license-events.csv', { cookie: customer.cookie }), 403, 'ERR_FORBIDDEN');
    expectError(await request(t.app, 'GET', '/api/license-events'), 401, 'ERR_UNAUTHENTICATED');
    expectError(await request(t.app, 'GET', '/api/license-events', { query: { type: 'nonsense' }, cookie: admin.cookie }), 400, 'ERR_VALIDATION');
    expectError(await request(t.app, 'GET', '/api/license-events', { query: { from: 'monday' }, cookie: admin.cookie }), 400, 'ERR_VALIDATION');
  });

  it('forgets events older than the retention setting', async () => {
    const at = new Date(Date.now() - 40 * 86400_000).toISOString();
    licenseEvents(t.app.ctx).record({ type: 'lease.expired', licenseId: pool.second.licenseId, machineId: 'old-machine', at });
    await licenseEvents(t.app.ctx).flush();
    expect((await request(t.app, 'PUT', '/api/settings/events.retentionDays', { cookie: admin.cookie, body: { value: 30 } })).statusCode).toBe(204);
    expect(await pruneLicenseEvents(t.app.ctx)).toBe(1);
    const left = await t.app.ctx.db.selectFrom('license_events').select('machine_id').where('machine_id', '=', 'old-machine').execute();
    expect(left).toEqual([]);
  });
});
