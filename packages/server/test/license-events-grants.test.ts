/**
 * Runtime events of grants (DESIGN.md section 6j): a floating seat granted beyond the TAN's count
 * (overage) and a desktop sign-in are kept on the license's and TAN's timeline, written behind the
 * request; the overage's webhook event reaches the queue.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeBothDatabases, loggedIn, request } from './harness.ts';
import { insertLicense, insertPolicy, insertProduct, insertTan, unique } from './licensing-fixtures.ts';
import { seatTan } from './organizations-support.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';
import { licenseEvents } from '../src/modules/license-events/recorder.ts';

describeBothDatabases('runtime events of grants', (t) => {
  let admin: Awaited<ReturnType<typeof loggedIn>>;
  let receiver: Receiver;
  const protocol = (path: string, body: unknown) => t.app.inject({ method: 'POST', url: `/api/client/v1/${path}`, payload: body as object });
  const eventsOf = async (query: Record<string, string>) =>
    ((await request(t.app, 'GET', '/api/license-events', { cookie: admin.cookie, query })).json() as { items: Record<string, unknown>[] }).items;

  beforeAll(async () => {
    admin = await loggedIn(t.app, 'ADMIN');
    receiver = await startReceiver();
    const endpoint = await request(t.app, 'POST', '/api/webhook-endpoints', { cookie: admin.cookie, body: { url: receiver.url, events: ['license.overage'] } });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    receiver.secret = (endpoint.json() as { secret: string }).secret;
  });
  afterAll(() => receiver?.close());

  it('keeps a seat granted beyond the count as overage.granted, once per grant, and sends license.overage', async () => {
    const customer = await loggedIn(t.app, 'USER');
    const product = await insertProduct(t.app);
    const policy = await insertPolicy(t.app, { type: 'FLOATING', licenseMaxValidDays: 1, refetchIntervalSeconds: 900, refetchBeforeExpirySeconds: 3600 });
    await t.app.ctx.db.updateTable('license_policies').set({ overage_percent: 100 }).where('id', '=', policy).execute();
    const tanId = await insertTan(t.app, { productId: product.id, policyId: policy, licenseCount: 1 });
    const machines = [unique('within'), unique('over')];
    const licenses = [];
    for (const machineId of machines) licenses.push(await insertLicense(t.app, { ownerId: customer.id, productId: product.id, policyId: policy, machineId, tanId, permanent: true }));
    for (const machineId of machines) expect((await protocol('license', { machineId, product: product.name })).statusCode).toBe(200);
    // The seat held is renewed: no second grant.
    expect((await protocol('license', { machineId: machines[1], product: product.name })).statusCode).toBe(200);
    // Nothing was written on the protocol's path for it.
    expect(await t.app.ctx.db.selectFrom('license_events').select('id').where('tan_id', '=', tanId).execute()).toEqual([]);
    await licenseEvents(t.app.ctx).flush();

    const events = await eventsOf({ tanId: String(tanId), type: 'overage.granted' });
    expect(events).toMatchObject([{ type: 'overage.granted', machineId: machines[1], licenseId: licenses[1], tanId, ownerId: customer.id, repeats: 0 }]);
    await t.app.webhooks.flush();
    expect(receiver.received.find((delivery) => delivery.payload.type === 'license.overage')?.payload.data).toMatchObject({ licenseId: licenses[1], tanId, machineId: machines[1] });
  });

  it('keeps a completed desktop sign-in with its person, machine and seat’s TAN; an approval not yet collected is none', async () => {
    const owner = await loggedIn(t.app);
    const org = (await client(t.app, owner.cookie).post('/api/organizations', { body: { name: 'Acme' } })).json() as { id: number };
    const person = await loggedIn(t.app);
    await t.app.ctx.db.insertInto('organization_members').values({ organization_id: org.id, user_id: person.id, role: 'member', created_at: new Date().toISOString() }).execute();
    const tan = await seatTan(t.app, 3);
    await client(t.app, owner.cookie).post(`/api/organizations/${org.id}/tans`, { body: { tan: tan.code } });
    await client(t.app, owner.cookie).post(`/api/organizations/${org.id}/seats`, { body: { tanId: tan.id, userId: person.id } });
    const machineId = unique('desk');

    const started = (await protocol('device/authorize', { product: tan.productName, machineId })).json() as { device_code: string; user_code: string };
    expect((await client(t.app, person.cookie).post('/api/device/approve', { body: { userCode: started.user_code } })).statusCode).toBe(204);
    await licenseEvents(t.app.ctx).flush();
    expect(await eventsOf({ machine: machineId })).toEqual([]);
    await t.app.ctx.db.updateTable('device_authorizations').set({ last_polled_at: '2000-01-01T00:00:00.000Z' }).execute();
    const token = await protocol('device/token', { device_code: started.device_code });
    expect(token.statusCode, token.body).toBe(200);
    await licenseEvents(t.app.ctx).flush();
    expect(await eventsOf({ machine: machineId })).toMatchObject([{ type: 'desktop.signin', code: null, machineId, licenseId: null, tanId: tan.id, ownerId: person.id }]);
  });
});
