/**
 * Soft limits (issue 51, DESIGN.md section 6g): a floating TAN with 10 seats and 10 % overage serves
 * 11 machines asking at once and refuses the others, on SQLite and on PostgreSQL (two app instances
 * there); the 11th file is marked `overage`, and the month's true-up CSV of the TAN lists it.
 */
import { beforeAll, expect, it } from 'vitest';
import { parseLicenseFile, verifyLicenseFile, type PublicKeyInfo } from '@lm/contract/license-file';
import { client, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { invariantsSetup, machine, outcomes } from './invariants-support.ts';

const SEATS = 10;
const RACERS = 14;

describeBothDatabases('soft limits of floating seats', (t) => {
  const s = invariantsSetup(t);
  let keys: PublicKeyInfo[];
  beforeAll(async () => {
    keys = (await s.as(null).get('/api/client/v1/keys')).json().keys;
  });

  it(`serves ${SEATS} seats plus 10 % to ${RACERS} machines asking at once, marks the one over the count, and lists it in the true-up`, async () => {
    const policyId = await s.policy({ type: 'FLOATING' });
    expect((await s.admin.put(`/api/license-policies/${policyId}`, { body: { overagePercent: 10 } })).json()).toMatchObject({ overagePercent: 10 });
    const product = await s.product({ policyId });
    const [tan] = await s.tans({ productId: product.id, licensePolicyId: policyId, licenseCount: SEATS });
    const owner = await s.customer();
    const machines = Array.from({ length: RACERS }, () => machine());
    for (const machineId of machines) expect((await owner.api.post('/api/licenses/activate', { body: { tan: tan.code, machineId } })).statusCode).toBe(201);

    const answers = await s.race(RACERS, (i) => s.as(null, i).post('/api/client/v1/license', { body: { machineId: machines[i], product: product.name } }));
    expect(outcomes(answers)).toEqual({ '200': SEATS + 1, '409 ERR_NO_SEAT': RACERS - SEATS - 1 });
    const payloads = await Promise.all(answers.filter((answer) => answer.statusCode === 200).map((answer) => verifyLicenseFile(parseLicenseFile(answer.body), keys)));
    const over = payloads.filter((payload) => payload.overage === true);
    expect(over).toHaveLength(1);
    const seats = await s.db().selectFrom('floating_seats').select(['machine_id', 'overage']).where('pool', '=', `tan:${tan.id}`).where('leased_until', '>', new Date().toISOString()).execute();
    expect(seats).toHaveLength(SEATS + 1);
    expect(seats.filter((seat) => Boolean(seat.overage)).map((seat) => seat.machine_id)).toEqual([over[0].machineId]);

    // The held over-limit file is still right: a conditional refresh answers 304.
    const held = answers[machines.indexOf(over[0].machineId)];
    const again = await s.as(null).post('/api/client/v1/license', { body: { machineId: over[0].machineId, product: product.name }, headers: { 'if-none-match': held.headers.etag as string } });
    expect(again.statusCode, again.body).toBe(304);

    const month = new Date().toISOString().slice(0, 7);
    const csv = await s.admin.get(`/api/tans/${tan.id}/overage?month=${month}`);
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.body.trim().split(/\r?\n/);
    expect(lines[0]).toBe('day,licenseId,machineId,email');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(over[0].machineId);
    expect(lines[1]).toContain(owner.email);

    // Customers and other distributors may not read a TAN's true-up; a bad month is a field error.
    expectError(await owner.api.get(`/api/tans/${tan.id}/overage?month=${month}`), 404, 'ERR_NOT_FOUND');
    const distributor = await loggedIn(t.app, 'DISTRIBUTOR');
    expectError(await client(t.app, distributor.cookie).get(`/api/tans/${tan.id}/overage?month=${month}`), 404, 'ERR_NOT_FOUND');
    expectError(await s.admin.get(`/api/tans/${tan.id}/overage?month=2026-13`), 400, 'ERR_VALIDATION');
  });
});
