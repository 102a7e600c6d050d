/**
 * The statistics' `overage` category (issue 51, DESIGN.md section 6g) counts the over-limit grants
 * that the desktop protocol makes: two floating TANs of 10 seats with 10 % overage, each asked for by
 * 11 machines, make one grant each. The category counts them in their month, narrows to a product,
 * gives a distributor only its own TAN's, agrees with the TAN's true-up, and is refused to customers.
 */
import { beforeAll, expect, it } from 'vitest';
import type { StatisticsResult } from '@lm/contract/statistics';
import { client, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { invariantsSetup, machine, type Client } from './invariants-support.ts';

const SEATS = 10;

describeBothDatabases('statistics of over-limit grants', (t) => {
  const s = invariantsSetup(t);
  let distributor: Client;
  let products: { id: number; name: string }[];
  let tans: { id: number; code: string }[];
  /** The machine each TAN's 11th seat went to. */
  const overLimit: string[] = [];
  /** From the first day of last month to today: the grants of this test, even made at a month's turn. */
  let range: { from: string; to: string };

  beforeAll(async () => {
    const distributorUser = await loggedIn(t.app, 'DISTRIBUTOR');
    distributor = client(t.app, distributorUser.cookie);
    const policyId = await s.policy({ type: 'FLOATING' });
    expect((await s.admin.put(`/api/license-policies/${policyId}`, { body: { overagePercent: 10 } })).statusCode).toBe(200);
    products = [await s.product({ policyId }), await s.product({ policyId })];
    tans = [];
    for (const [index, product] of products.entries()) {
      const body = { productId: product.id, licensePolicyId: policyId, licenseCount: SEATS, ...(index === 0 ? { distributorId: distributorUser.id } : {}) };
      const response = await s.admin.post('/api/tans', { query: { count: '1' }, body });
      expect(response.statusCode, response.body).toBe(201);
      tans.push(response.json().items[0]);
    }
    const owner = await s.customer();
    for (const [index, product] of products.entries()) {
      const machines = Array.from({ length: SEATS + 1 }, () => machine());
      for (const machineId of machines) expect((await owner.api.post('/api/licenses/activate', { body: { tan: tans[index].code, machineId } })).statusCode).toBe(201);
      // One after another: the first ten take the seats, the eleventh one beyond the count.
      for (const machineId of machines) {
        const answer = await s.as(null).post('/api/client/v1/license', { body: { machineId, product: product.name } });
        expect(answer.statusCode, answer.body).toBe(200);
      }
      overLimit.push(machines[SEATS]);
      // The over-limit machine asks again: it holds its seat, no new grant.
      expect((await s.as(null).post('/api/client/v1/license', { body: { machineId: machines[SEATS], product: product.name } })).statusCode).toBe(200);
    }
    const now = new Date();
    range = { from: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 10), to: now.toISOString().slice(0, 10) };
  });

  const overage = async (caller: Client, query: Record<string, string> = {}) => {
    const response = await caller.get('/api/statistics/overage', { query: { ...range, ...query } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as StatisticsResult;
  };
  const grantsOfMonths = (result: StatisticsResult) => result.months.reduce((sum, month) => sum + month.values.grants, 0);

  it('counts each TAN’s one grant beyond its count, in the month it was made', async () => {
    const rows = await s.db().selectFrom('license_overages').selectAll().execute();
    expect(rows.map((row) => row.machine_id).sort()).toEqual([...overLimit].sort());
    const result = await overage(s.admin);
    expect(result.totals).toEqual({ grants: 2, tans: 2 });
    expect(result.months).toHaveLength(2);
    expect(grantsOfMonths(result)).toBe(2);
    for (const month of result.months) {
      const made = rows.filter((row) => row.day.startsWith(month.month));
      expect(month.values, month.month).toEqual({ grants: made.length, tans: new Set(made.map((row) => row.tan_id)).size });
    }
  });

  it('narrows to the TANs of one product', async () => {
    for (const product of products) {
      const result = await overage(s.admin, { productId: String(product.id) });
      expect(result.productId).toBe(product.id);
      expect(result.totals).toEqual({ grants: 1, tans: 1 });
    }
  });

  it('gives a distributor the grants of its own TANs only', async () => {
    expect((await overage(distributor)).totals).toEqual({ grants: 1, tans: 1 });
    expect((await overage(distributor, { productId: String(products[0].id) })).totals).toEqual({ grants: 1, tans: 1 });
    expect((await overage(distributor, { productId: String(products[1].id) })).totals).toEqual({ grants: 0, tans: 0 });
    const other = client(t.app, (await loggedIn(t.app, 'DISTRIBUTOR')).cookie);
    expect((await overage(other)).totals).toEqual({ grants: 0, tans: 0 });
  });

  it('agrees with the TAN’s monthly true-up', async () => {
    const rows = await s.db().selectFrom('license_overages').select(['tan_id', 'day']).where('tan_id', '=', tans[0].id).execute();
    const month = rows[0].day.slice(0, 7);
    const csv = await s.admin.get(`/api/tans/${tans[0].id}/overage`, { query: { month } });
    expect(csv.statusCode, csv.body).toBe(200);
    const lines = csv.body.trim().split(/\r?\n/).slice(1);
    const result = await overage(s.admin, { productId: String(products[0].id) });
    expect(result.months.find((entry) => entry.month === month)?.values.grants).toBe(lines.length);
  });

  it('counts nothing outside the range', async () => {
    expect((await overage(s.admin, { from: '2024-01-01', to: '2024-12-31' })).totals).toEqual({ grants: 0, tans: 0 });
  });

  it('refuses customers (403) and anonymous callers (401)', async () => {
    const customer = await s.customer();
    expectError(await customer.api.get('/api/statistics/overage'), 403, 'ERR_FORBIDDEN');
    expectError(await client(t.app).get('/api/statistics/overage'), 401, 'ERR_UNAUTHENTICATED');
  });
});
