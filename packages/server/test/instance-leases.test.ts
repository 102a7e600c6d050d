/**
 * Instance leases (DESIGN.md section 6h): an INSTANCE policy's TAN is the key processes lease seats
 * with; never more live leases than seats, racers on both databases (two instances on PostgreSQL).
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { parseLicenseFile, verifyLicenseFile, type PublicKeyInfo } from '@lm/contract/license-file';
import { licenseEvents } from '../src/modules/license-events/recorder.ts';
import { describeBothDatabases, expectError } from './harness.ts';
import { invariantsSetup, outcomes, RACERS } from './invariants-support.ts';

const instance = () => `i-${randomBytes(8).toString('hex')}`;

describeBothDatabases('instance leases', (t) => {
  const s = invariantsSetup(t);
  let keys: PublicKeyInfo[];
  let product: { id: number; name: string };
  let instancePolicy: number;
  beforeAll(async () => {
    keys = (await s.as(null).get('/api/client/v1/keys')).json().keys;
    instancePolicy = await s.policy({ type: 'FLOATING', leaseMode: 'INSTANCE', leaseTtlSeconds: 60 });
    product = await s.product({ policyId: instancePolicy });
  });
  const lease = (i: number, key: string, instanceId: string, headers: Record<string, string> = {}) =>
    s.as(null, i).post('/api/client/v1/lease', { body: { key, product: product.name, instanceId }, headers });
  const release = (key: string, instanceId: string) => s.as(null).delete('/api/client/v1/lease', { body: { key, product: product.name, instanceId } });
  const live = async (tanId: number) =>
    Number(
      (
        await s
          .db()
          .selectFrom('instance_leases')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('tan_id', '=', tanId)
          .where('leased_until', '>', new Date().toISOString())
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('the policy keeps its lease mode and time to live; INSTANCE is for FLOATING policies only, with a time to live', async () => {
    const policy = (await s.admin.get(`/api/license-policies/${instancePolicy}`)).json();
    expect(policy).toMatchObject({ type: 'FLOATING', leaseMode: 'INSTANCE', leaseTtlSeconds: 60 });
    const base = { name: 'INSTANCE_POLICY_X', publicName: { en: 'Instances' }, licenseMaxValidDays: 30, refetchIntervalSeconds: 3600, refetchBeforeExpirySeconds: 900, maxDifferentMachinesCount: 1, maxDifferentMachinesIntervalHours: 720 };
    const perpetual = expectError(await s.admin.post('/api/license-policies', { body: { ...base, type: 'PERPETUAL', leaseMode: 'INSTANCE', leaseTtlSeconds: 60 } }), 400, 'ERR_VALIDATION');
    expect(perpetual.details?.map((detail) => detail.path)).toEqual(['leaseMode']);
    const noTtl = expectError(await s.admin.post('/api/license-policies', { body: { ...base, type: 'FLOATING', leaseMode: 'INSTANCE' } }), 400, 'ERR_VALIDATION');
    expect(noTtl.details?.map((detail) => detail.path)).toEqual(['leaseTtlSeconds']);
    const tooShort = expectError(await s.admin.post('/api/license-policies', { body: { ...base, type: 'FLOATING', leaseMode: 'INSTANCE', leaseTtlSeconds: 59 } }), 400, 'ERR_VALIDATION');
    expect(tooShort.details?.map((detail) => detail.path)).toEqual(['leaseTtlSeconds']);
  });

  it(`gives ${RACERS} racing instances at most the seats (3), never more live leases, and renews with the conditional refresh`, async () => {
    const [tan] = await s.tans({ productId: product.id, licenseCount: 3 });
    const instances = Array.from({ length: RACERS }, instance);
    const answers = await s.race(RACERS, (i) => lease(i, tan.code, instances[i]));
    expect(outcomes(answers)).toEqual({ '200': 3, [`409 ERR_NO_SEAT`]: RACERS - 3 });
    expect(await live(tan.id)).toBe(3);
    const winner = answers.findIndex((answer) => answer.statusCode === 200);
    const payload = await verifyLicenseFile(parseLicenseFile(answers[winner].body), keys);
    expect(payload).toMatchObject({ machineId: instances[winner], leaseMode: 'INSTANCE', licenseId: null, product: { id: product.id } });
    expect(Date.parse(payload.expiresAt!) - Date.parse(payload.issuedAt)).toBe(60_000);

    // The heartbeat: the file held is still right, so 304; the lease stays and no seat is added.
    const etag = answers[winner].headers.etag as string;
    const refreshed = await lease(0, tan.code, instances[winner], { 'if-none-match': etag });
    expect(refreshed.statusCode).toBe(304);
    expect(await live(tan.id)).toBe(3);

    // A clean exit frees the seat at once; the next racers again get no more than the seats.
    expect((await release(tan.code, instances[winner])).statusCode).toBe(204);
    expect(await live(tan.id)).toBe(2);
    const again = await s.race(RACERS, (i) => lease(i, tan.code, instance()));
    expect(outcomes(again)).toEqual({ '200': 1, [`409 ERR_NO_SEAT`]: RACERS - 1 });
    expect(await live(tan.id)).toBe(3);
  });

  it('a container started 50 times in a row, each start a new instance and a clean exit, never holds more than its one seat', async () => {
    const [tan] = await s.tans({ productId: product.id, licenseCount: 1 });
    for (let start = 0; start < 50; start++) {
      const instanceId = instance();
      // Alternating instances (two on PostgreSQL): a start never depends on which one answers.
      expect((await lease(start, tan.code, instanceId)).statusCode, `start ${start}`).toBe(200);
      expect(await live(tan.id)).toBe(1);
      expect((await release(tan.code, instanceId)).statusCode, `exit ${start}`).toBe(204);
    }
    expect(await live(tan.id)).toBe(0);
  });

  it('frees the seat of an instance killed without DELETE once its lease lapses, with no job', async () => {
    const [tan] = await s.tans({ productId: product.id, licenseCount: 1 });
    const killed = instance();
    expect((await lease(0, tan.code, killed)).statusCode).toBe(200);
    expectError(await lease(1, tan.code, instance()), 409, 'ERR_NO_SEAT');
    // The lease's time to live passes (moved back instead of waited for).
    await s.db().updateTable('instance_leases').set({ leased_until: new Date(Date.now() - 1000).toISOString() }).where('tan_id', '=', tan.id).execute();
    expect(await live(tan.id)).toBe(0);
    expect((await lease(1, tan.code, instance())).statusCode).toBe(200);
    expect(await live(tan.id)).toBe(1);
    // The lapsed lease leaves its runtime event, under the TAN, naming the instance (DESIGN.md 6j).
    // Each instance writes its own events behind (the second lease went to the second instance on PostgreSQL).
    for (const app of s.apps()) await licenseEvents(app.ctx).flush();
    const events = await s.db().selectFrom('license_events').select(['type', 'machine_id', 'license_id']).where('tan_id', '=', tan.id).execute();
    expect(events).toEqual([{ type: 'lease.expired', machine_id: killed, license_id: null }]);
  });

  it('refuses a machine-bound TAN, an unknown key or product, and a revoked key, changing nothing', async () => {
    const machinePolicy = await s.policy({ type: 'FLOATING' });
    const machineProduct = await s.product({ policyId: machinePolicy });
    const [bound] = await s.tans({ productId: machineProduct.id, licenseCount: 2 });
    expectError(await s.as(null).post('/api/client/v1/lease', { body: { key: bound.code, product: machineProduct.name, instanceId: instance() } }), 422, 'ERR_NOT_INSTANCE_KEY');
    expect(await live(bound.id)).toBe(0);

    const [tan] = await s.tans({ productId: product.id, licenseCount: 1 });
    expectError(await s.as(null).post('/api/client/v1/lease', { body: { key: tan.code, product: 'no such product', instanceId: instance() } }), 404, 'ERR_NO_LICENSE');
    expectError(await s.as(null).post('/api/client/v1/lease', { body: { key: 'AAAAAAAAAAAA', product: product.name, instanceId: instance() } }), 404, 'ERR_NO_LICENSE');
    expectError(await s.as(null).post('/api/client/v1/lease', { body: { key: tan.code, product: product.name, instanceId: 'x' } }), 400, 'ERR_VALIDATION');
    expect((await s.admin.put(`/api/tans/${tan.id}`, { body: { revoked: true } })).statusCode).toBe(200);
    expectError(await lease(0, tan.code, instance()), 403, 'ERR_LICENSE_REVOKED');
    expect(await live(tan.id)).toBe(0);
  });
});
