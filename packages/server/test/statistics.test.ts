import { beforeAll, describe, expect, it } from 'vitest';
import { STATISTICS_CATEGORIES, type StatisticsCategory } from '@lm/contract';
import { STATISTICS_METRICS, type StatisticsResult } from '@lm/contract/statistics';
import { client, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { expectedStatistics, seedStatistics, type Expected, type SeededIds } from './statistics-fixtures.ts';

type Client = ReturnType<typeof client>;

const today = () => new Date().toISOString().slice(0, 10);

/** Counts must match exactly; the conversion rate to floating-point precision. */
function expectSameNumbers(actual: StatisticsResult, expected: Expected) {
  expect(actual.months.map((month) => month.month)).toEqual(expected.months.map((month) => month.month));
  actual.months.forEach((month, index) => {
    for (const [metric, value] of Object.entries(expected.months[index].values)) {
      expect(month.values[metric], `${month.month} ${metric}`).toBeCloseTo(value, 10);
    }
    expect(Object.keys(month.values).sort()).toEqual(Object.keys(expected.months[index].values).sort());
  });
  for (const [metric, value] of Object.entries(expected.totals)) expect(actual.totals[metric], `total ${metric}`).toBeCloseTo(value, 10);
}

describeBothDatabases('statistics', (t) => {
  let admin: Client;
  let distributor: Client & { id: number };
  let seeded: SeededIds;

  beforeAll(async () => {
    admin = client(t.app, (await loggedIn(t.app, 'ADMIN')).cookie);
    const first = await loggedIn(t.app, 'DISTRIBUTOR');
    const second = await loggedIn(t.app, 'DISTRIBUTOR');
    distributor = Object.assign(client(t.app, first.cookie), { id: first.id });
    seeded = await seedStatistics(t.app, [first.id, second.id]);
  });

  const fetchStatistics = async (caller: Client, category: string, query: Record<string, string> = {}) => {
    const response = await caller.get(`/api/statistics/${category}`, { query });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as StatisticsResult;
  };

  describe('GET /api/statistics/{category}', () => {
    const ranges = [
      { name: 'two whole years', from: '2024-01-01', to: '2025-12-31' },
      { name: 'a range starting and ending mid-month', from: '2024-03-15', to: '2024-11-10' },
      { name: 'a range reaching into the future', from: '2025-06-01', to: '2026-12-31' },
    ];
    for (const category of STATISTICS_CATEGORIES) {
      for (const range of ranges) {
        it(`${category}: counts ${range.name} as the raw rows say`, async () => {
          const actual = await fetchStatistics(admin, category, { from: range.from, to: range.to });
          expect(actual).toMatchObject({ category, from: range.from, to: range.to, productId: null });
          expectSameNumbers(actual, await expectedStatistics(t.app, category, { ...range, today: today() }));
        });
      }

      it(`${category}: narrows to one product`, async () => {
        const productId = seeded.products[1];
        const range = { from: '2024-01-01', to: '2025-12-31' };
        const actual = await fetchStatistics(admin, category, { ...range, productId: String(productId) });
        expect(actual.productId).toBe(productId);
        expectSameNumbers(actual, await expectedStatistics(t.app, category, { ...range, productId, today: today() }));
      });
    }

    it('has numbers to compare: the seeded data set is not empty', async () => {
      const range = { from: '2024-01-01', to: '2025-12-31' };
      for (const category of STATISTICS_CATEGORIES) {
        const totals = (await fetchStatistics(admin, category, range)).totals;
        const counted = Object.entries(totals).filter(([metric]) => metric !== 'conversionRate');
        expect(counted.some(([, value]) => value > 0), `${category}: ${JSON.stringify(totals)}`).toBe(true);
      }
      const trials = (await fetchStatistics(admin, 'trial-licenses', range)).totals;
      expect(trials.converted).toBeGreaterThan(0);
      expect(trials.converted).toBeLessThan(trials.machines);
    });

    it('defaults to the twelve months up to today', async () => {
      const result = await fetchStatistics(admin, 'new-users');
      const now = new Date();
      const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1)).toISOString().slice(0, 10);
      expect(result).toMatchObject({ from: first, to: today() });
      expect(result.months).toHaveLength(12);
      expectSameNumbers(result, await expectedStatistics(t.app, 'new-users', { from: first, to: today(), today: today() }));
      // The accounts of this suite were created just now.
      expect(result.totals.users).toBeGreaterThanOrEqual(3);
    });

    it('counts only the ended free updates: not those ending today or later', async () => {
      const tomorrow = new Date(Date.now() + 86400000).toISOString().slice(0, 10);
      const before = (await fetchStatistics(admin, 'tan-free-updates-expired', { from: today(), to: tomorrow })).totals.tans;
      const now = new Date().toISOString();
      const product = seeded.products[0];
      for (const [index, date] of [today(), tomorrow].entries()) {
        await t.app.ctx.db
          .insertInto('tans')
          .values({ code: `fresh${index}${Date.now()}`.slice(0, 12), product_id: product, license_count: 1, activated_count: 0, revoked: false, free_updates_until: date, created_at: now, updated_at: now })
          .execute();
      }
      expect((await fetchStatistics(admin, 'tan-free-updates-expired', { from: today(), to: tomorrow })).totals.tans).toBe(before);
    });

    it('gives a distributor the activations of its own TANs only', async () => {
      const range = { from: '2024-01-01', to: '2025-12-31' };
      const own = await fetchStatistics(distributor, 'tan-activations', range);
      const expected = await expectedStatistics(t.app, 'tan-activations', { ...range, distributorId: distributor.id, today: today() });
      expectSameNumbers(own, expected);
      const everything = await fetchStatistics(admin, 'tan-activations', range);
      expect(own.totals.activations).toBeGreaterThan(0);
      expect(own.totals.activations).toBeLessThan(everything.totals.activations);
    });

    it('gives a distributor the over-limit grants of its own TANs only, also of one product', async () => {
      const range = { from: '2024-01-01', to: '2025-12-31' };
      for (const productId of [undefined, ...seeded.products]) {
        const query = { ...range, ...(productId ? { productId: String(productId) } : {}) };
        const own = await fetchStatistics(distributor, 'overage', query);
        expectSameNumbers(own, await expectedStatistics(t.app, 'overage', { ...range, productId, distributorId: distributor.id, today: today() }));
      }
      const own = (await fetchStatistics(distributor, 'overage', range)).totals;
      const everything = (await fetchStatistics(admin, 'overage', range)).totals;
      expect(own.grants).toBeGreaterThan(0);
      expect(own.grants).toBeLessThan(everything.grants);
      expect(own.tans).toBeLessThan(everything.tans);
    });

    it('counts a TAN over its count in several months once in the totals', async () => {
      const result = await fetchStatistics(admin, 'overage', { from: '2024-01-01', to: '2025-12-31' });
      const monthly = result.months.reduce((sum, month) => sum + month.values.tans, 0);
      expect(result.totals.tans).toBeGreaterThan(0);
      expect(result.totals.tans).toBeLessThan(monthly);
    });

    it('refuses a distributor every category but tan-activations and overage (field rules)', async () => {
      for (const category of STATISTICS_CATEGORIES.filter((name) => name !== 'tan-activations' && name !== 'overage')) {
        expectError(await distributor.get(`/api/statistics/${category}`), 403, 'ERR_FORBIDDEN');
      }
    });

    it('refuses customers every category, and anonymous callers with 401', async () => {
      const customer = client(t.app, (await loggedIn(t.app, 'USER')).cookie);
      for (const category of STATISTICS_CATEGORIES) {
        expectError(await customer.get(`/api/statistics/${category}`), 403, 'ERR_FORBIDDEN');
        expectError(await client(t.app).get(`/api/statistics/${category}`), 401, 'ERR_UNAUTHENTICATED');
      }
    });

    it('answers every metric of each category', async () => {
      for (const category of STATISTICS_CATEGORIES as readonly StatisticsCategory[]) {
        const result = await fetchStatistics(admin, category, { from: '2025-01-01', to: '2025-03-31' });
        expect(Object.keys(result.totals).sort()).toEqual([...STATISTICS_METRICS[category]].sort());
        expect(result.months.map((month) => month.month)).toEqual(['2025-01', '2025-02', '2025-03']);
      }
    });

    it('answers the last months a date can name, and the turn of a year, month by month', async () => {
      for (const query of [{ from: '9999-12-01' }, { from: '9999-12-31' }, { from: '9999-11-15', to: '9999-12-31' }] as Record<string, string>[]) {
        const response = await admin.get('/api/statistics/new-users', { query });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json().months.at(-1).month).toBe('9999-12');
      }
      const turn = (await admin.get('/api/statistics/new-users', { query: { from: '2025-11-20', to: '2026-02-03' } })).json();
      expect(turn.months.map((month: { month: string }) => month.month)).toEqual(['2025-11', '2025-12', '2026-01', '2026-02']);
    });

    it('refuses unknown categories and bad ranges or products (400)', async () => {
      expectError(await admin.get('/api/statistics/revenue'), 400, 'ERR_VALIDATION');
      expectError(await admin.get('/api/statistics/new-users', { query: { from: '2025-02-01', to: '2025-01-31' } }), 400, 'ERR_VALIDATION');
      expectError(await admin.get('/api/statistics/new-users', { query: { from: '2025-02-30' } }), 400, 'ERR_VALIDATION');
      expectError(await admin.get('/api/statistics/new-users', { query: { to: 'yesterday' } }), 400, 'ERR_VALIDATION');
      expectError(await admin.get('/api/statistics/new-users', { query: { from: '1990-01-01', to: '2025-01-01' } }), 400, 'ERR_VALIDATION');
      // One end given: the range runs from it to today, and is as bounded as one given whole.
      const tooLong = expectError(await admin.get('/api/statistics/new-users', { query: { from: '1900-01-01' } }), 400, 'ERR_VALIDATION');
      expect(tooLong.details).toEqual([expect.objectContaining({ path: 'from', code: 'rangeTooLong', params: { months: 240 } })]);
      expectError(await admin.get('/api/statistics/new-users', { query: { productId: 'abc' } }), 400, 'ERR_VALIDATION');
      expectError(await admin.get('/api/statistics/new-users', { query: { productId: '0' } }), 400, 'ERR_VALIDATION');
    });

    it('refuses a product that does not exist (404) instead of answering zeros', async () => {
      const unknown = Math.max(...seeded.products) + 1000;
      for (const category of ['new-users', 'overage', 'tan-activations'] as const) {
        const refused = expectError(await admin.get(`/api/statistics/${category}`, { query: { productId: String(unknown) } }), 404, 'ERR_NOT_FOUND');
        expect(refused.message).toBe('Product not found');
      }
      expect((await admin.get('/api/statistics/new-users', { query: { productId: String(seeded.products[0]) } })).statusCode).toBe(200);
    });
  });
});
