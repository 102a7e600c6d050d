/**
 * The licensing model's guarantees under parallel requests (issue 37): never more floating seats in
 * use than the TAN's count, borrowed ones included, however machines refresh, borrow and release; a
 * trial's end never past its start plus the limit, whatever the extensions; a suspended TAN's
 * licenses hold no seat and get no file once the suspension has committed; revoking a TAN with its
 * licenses is all or nothing. RACERS requests at once, on SQLite and on PostgreSQL (two instances).
 */
import { expect, it } from 'vitest';
import { describeBothDatabases } from './harness.ts';
import { daysFromToday, invariantsSetup, machine, outcomes, RACERS, today } from './invariants-support.ts';

describeBothDatabases('licensing model invariants', (t) => {
  const s = invariantsSetup(t);
  const fetchFile = (i: number, machineId: string, product: string, borrowDays?: number) =>
    s.as(null, i).post('/api/client/v1/license', { body: { machineId, product, ...(borrowDays ? { borrowDays } : {}) } });
  const release = (i: number, machineId: string, product: string) => s.as(null, i).delete('/api/client/v1/license', { body: { machineId, product } });

  /** The leases of a pool that lie ahead now. */
  async function liveLeases(pool: string): Promise<string[]> {
    const rows = await s.db().selectFrom('floating_seats').select('machine_id').where('pool', '=', pool).where('leased_until', '>', new Date().toISOString()).execute();
    return rows.map((row) => row.machine_id);
  }

  async function floatingTan(seats: number, machines: number) {
    const policyId = await s.policy({ type: 'FLOATING', maxDifferentMachinesCount: 1000, maxBorrowDays: 30 });
    const product = await s.product({ policyId });
    const [tan] = await s.tans({ productId: product.id, licensePolicyId: policyId, licenseCount: seats });
    const owner = await s.customer();
    const ids: string[] = [];
    for (let i = 0; i < machines; i++) {
      const machineId = machine();
      const response = await owner.api.post('/api/licenses/activate', { body: { tan: tan.code, machineId } });
      expect(response.statusCode, response.body).toBe(201);
      ids.push(machineId);
    }
    return { product, tan, owner, machines: ids, pool: `tan:${tan.id}` };
  }

  it('never lease more floating seats than the TAN’s count while machines refresh, borrow and release at once', async () => {
    const { product, machines, pool } = await floatingTan(3, RACERS + 2);
    for (let round = 0; round < 3; round++) {
      const responses = await s.race(RACERS + 2, (i) => {
        if (i % 4 === 3) return release(i, machines[i], product.name);
        return fetchFile(i, machines[i], product.name, i % 4 === 1 ? 5 : undefined);
      });
      for (const response of responses) expect([200, 204, 409]).toContain(response.statusCode);
      const granted = responses.filter((response) => response.statusCode === 200).length;
      expect(granted).toBeLessThanOrEqual(3);
      expect((await liveLeases(pool)).length).toBeLessThanOrEqual(3);
    }
    // Borrowed seats count: with every seat borrowed, no other machine gets one.
    for (const machineId of machines) await release(0, machineId, product.name);
    const borrowed = await s.race(RACERS, (i) => fetchFile(i, machines[i], product.name, 7));
    expect(outcomes(borrowed)).toEqual({ '200': 3, '409 ERR_NO_SEAT': RACERS - 3 });
    expect(outcomes(await s.race(2, (i) => fetchFile(i, machines[RACERS + i], product.name)))).toEqual({ '409 ERR_NO_SEAT': 2 });
  });

  it('never extend a trial past its start plus the limit, whatever extensions race', async () => {
    const product = await s.product({ trialDays: 30 });
    const owner = await s.customer();
    const created = await owner.api.post('/api/licenses/temporary', { body: { productId: product.id, machineId: machine(), validUntil: today() } });
    const id = created.json().id as number;
    const responses = await s.race(RACERS, (i) => s.as(owner.cookie, i).post(`/api/licenses/${id}/extend`, { body: { amount: 4, unit: 'days' } }));
    // 30 days from its start in steps of 4: seven extensions fit (28 days), the others are refused.
    expect(outcomes(responses)).toEqual({ '200': 7, '422 ERR_EXTEND_TOO_FAR': RACERS - 7 });
    expect((await owner.api.get(`/api/licenses/${id}`)).json().validUntil).toBe(daysFromToday(28));
  });

  it('give a suspended TAN’s licenses neither seat nor file once the suspension has committed', async () => {
    const { product, tan, machines, pool } = await floatingTan(RACERS, RACERS);
    const responses = await s.race(RACERS + 1, (i) =>
      i === RACERS ? s.as(s.cookies.admin, i).put(`/api/tans/${tan.id}`, { body: { suspended: true } }) : fetchFile(i, machines[i], product.name),
    );
    expect(responses[RACERS].statusCode).toBe(200);
    for (const response of responses.slice(0, RACERS)) expect([200, 403]).toContain(response.statusCode);
    expect(await liveLeases(pool)).toEqual([]);
    expect(outcomes(await s.race(RACERS, (i) => fetchFile(i, machines[i], product.name)))).toEqual({ '403 ERR_LICENSE_SUSPENDED': RACERS });
  });

  it('revoke a TAN with its licenses all or nothing while machines join it', async () => {
    const { tan, owner } = await floatingTan(2, 2);
    const responses = await s.race(RACERS + 1, (i) =>
      i === 5
        ? s.as(s.cookies.admin, i).put(`/api/tans/${tan.id}`, { body: { revoked: true, revokeLicenses: true } })
        : s.as(owner.cookie, i).post('/api/licenses/activate', { body: { tan: tan.code, machineId: machine() } }),
    );
    expect(responses[5].statusCode).toBe(200);
    const activations = responses.filter((_, i) => i !== 5);
    for (const response of activations) expect([201, 422]).toContain(response.statusCode);
    const licenses = await s.db().selectFrom('licenses').select(['revoked']).where('tan_id', '=', tan.id).execute();
    expect(licenses.length).toBe(2 + activations.filter((response) => response.statusCode === 201).length);
    expect(licenses.every((license) => Boolean(license.revoked))).toBe(true);
  });
});
