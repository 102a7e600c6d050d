/**
 * The statistics counters follow every kind of write the triggers watch, keep what happened when rows
 * are deleted later (history: docs/statistics.md), and an installation upgraded to migration 0006 gets
 * counters for the rows it already had.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { STATISTICS_CATEGORIES } from '@lm/contract';
import type { StatisticsResult } from '@lm/contract/statistics';
import type { App } from '../src/app.ts';
import { buildTestApp, client, createUser, describeBothDatabases, freshDatabase, loggedIn, testConfig } from './harness.ts';
import { migrateBefore } from './older-installation.ts';
import { expectedStatistics, seedStatistics } from './statistics-fixtures.ts';

const RANGES = [
  { from: '2024-01-01', to: '2025-12-31' },
  { from: '2024-05-10', to: '2025-02-20' },
];
const today = () => new Date().toISOString().slice(0, 10);

/** Every category, range and product as the API answers it equals the raw rows recounted in JavaScript. */
async function expectCountersMatchRows(app: App, cookie: string, products: number[]) {
  const caller = client(app, cookie);
  for (const category of STATISTICS_CATEGORIES) {
    for (const range of RANGES) {
      for (const productId of [undefined, ...products]) {
        const query: Record<string, string> = { ...range, ...(productId ? { productId: String(productId) } : {}) };
        const response = await caller.get(`/api/statistics/${category}`, { query });
        expect(response.statusCode, response.body).toBe(200);
        const actual = response.json() as StatisticsResult;
        const expected = await expectedStatistics(app, category, { ...range, productId, today: today() });
        const label = `${category} ${JSON.stringify(query)}`;
        expect(actual.months.map((month) => [month.month, month.values]), label).toEqual(
          expected.months.map((month) => [month.month, expect.objectContaining(Object.fromEntries(Object.entries(month.values).map(([key, value]) => [key, expect.closeTo(value, 10)])))]),
        );
      }
    }
  }
}

const dayFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** A TAN activated twice whose free updates end on the day, written straight into the table. */
async function insertTanEndingFreeUpdates(app: App, productId: number, freeUpdatesUntil: string): Promise<number> {
  const now = new Date().toISOString();
  const row = await app.ctx.db
    .insertInto('tans')
    .values({
      code: randomBytes(6).toString('hex'),
      product_id: productId,
      license_policy_id: null,
      license_count: 5,
      activated_count: 2,
      distributor_id: null,
      revoked: false,
      free_updates_until: freeUpdatesUntil,
      notes: null,
      created_by: null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

describeBothDatabases('statistics counters', (t) => {
  let cookie: string;
  let products: number[];
  let distributors: number[];

  beforeAll(async () => {
    cookie = (await loggedIn(t.app, 'ADMIN')).cookie;
    distributors = [(await createUser(t.app, { role: 'DISTRIBUTOR' })).id, (await createUser(t.app, { role: 'DISTRIBUTOR' })).id];
    products = (await seedStatistics(t.app, distributors, 11)).products;
  });

  it('follow updates of licenses, TANs, users and last-seen records, and count no free upgrade', async () => {
    const db = t.app.ctx.db;
    await expectCountersMatchRows(t.app, cookie, products);

    // A free upgrade: the new version's license continues the old one, whatever its kind.
    for (const kind of ['TAN', 'TEMPORARY'] as const) {
      const old = await db.selectFrom('licenses').selectAll().where('kind', '=', kind).where('upgraded_to_id', 'is', null).where('machine_id', 'is not', null).orderBy('id').executeTakeFirstOrThrow();
      const at = new Date(Date.parse(old.created_at) + 3 * 86400000).toISOString();
      const upgraded = await db
        .insertInto('licenses')
        .values({ ...old, id: undefined, product_id: products[1], upgraded_from_id: old.id, created_at: at, updated_at: at } as never)
        .returning('id')
        .executeTakeFirstOrThrow();
      await db.updateTable('licenses').set({ upgraded_to_id: upgraded.id }).where('id', '=', old.id).execute();
    }

    // TANs: another distributor, more activations; free updates planned for a day still ahead move
    // with the TAN (a day that has passed stays counted: see below).
    const tans = await db.selectFrom('tans').select(['id', 'distributor_id', 'activated_count']).orderBy('id').execute();
    await db.updateTable('tans').set({ distributor_id: distributors[1] }).where('id', '=', tans.find((tan) => tan.activated_count > 0 && tan.distributor_id !== distributors[1])!.id).execute();
    await db.updateTable('tans').set({ distributor_id: null }).where('id', '=', tans.find((tan) => tan.activated_count > 0 && tan.distributor_id !== null)!.id).execute();
    await db.updateTable('tans').set((eb) => ({ activated_count: eb('activated_count', '+', 2) })).where('id', '=', tans[6].id).execute();
    const planned = await Promise.all([0, 1, 2].map((n) => insertTanEndingFreeUpdates(t.app, products[0], dayFromToday(30 + n))));
    await db.updateTable('tans').set({ free_updates_until: '2024-07-15' }).where('id', '=', planned[0]).execute();
    await db.updateTable('tans').set({ free_updates_until: null }).where('id', '=', planned[1]).execute();
    await db.updateTable('tans').set({ product_id: products[2], free_updates_until: '2025-03-03' }).where('id', '=', planned[2]).execute();

    // Users: logins on another day, on the same day.
    const users = await db.selectFrom('users').select(['id', 'last_login_at']).where('email', 'like', 'stat-11-%').orderBy('id').execute();
    await db.updateTable('users').set({ last_login_at: '2025-02-03T10:00:00.000Z' }).where('id', '=', users[0].id).execute();
    await db.updateTable('users').set({ last_login_at: null }).where('id', '=', users[1].id).execute();
    const loggedInBefore = users.find((user) => user.last_login_at !== null && user.id !== users[0].id && user.id !== users[1].id)!;
    await db.updateTable('users').set({ last_login_at: `${loggedInBefore.last_login_at!.slice(0, 10)}T23:59:59.000Z` }).where('id', '=', loggedInBefore.id).execute();

    // Desktop contacts: later ones (one within the same day) and a new machine.
    const seen = await db.selectFrom('license_last_seen').selectAll().orderBy('license_id').execute();
    await db.updateTable('license_last_seen').set({ last_seen_at: '2025-11-30T08:00:00.000Z' }).where('license_id', '=', seen[0].license_id).where('machine_id', '=', seen[0].machine_id).execute();
    const sameDay = `${seen[1].last_seen_at.slice(0, 10)}T23:59:59.999Z`;
    await db.updateTable('license_last_seen').set({ last_seen_at: sameDay }).where('license_id', '=', seen[1].license_id).where('machine_id', '=', seen[1].machine_id).execute();
    const unseen = await db.selectFrom('licenses').select(['id']).where('machine_id', 'is not', null).where('id', 'not in', seen.map((row) => row.license_id)).executeTakeFirstOrThrow();
    await db.insertInto('license_last_seen').values({ license_id: unseen.id, machine_id: 'BRAND-NEW-MACHINE', last_seen_at: '2025-06-06T06:06:06.000Z' }).execute();

    // Trials: an unbound one gets its machine, and a TAN license converts a trial.
    const unbound = await db.selectFrom('licenses').select('id').where('kind', '=', 'TEMPORARY').where('machine_id', 'is', null).executeTakeFirst();
    if (unbound) await db.updateTable('licenses').set({ machine_id: 'BOUND-LATER' }).where('id', '=', unbound.id).execute();
    const trial = await db.selectFrom('licenses').selectAll().where('kind', '=', 'TEMPORARY').where('machine_id', 'is not', null).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    const tan = await db.selectFrom('tans').select('id').where('product_id', '=', trial.product_id).executeTakeFirstOrThrow();
    const bought = new Date(Date.parse(trial.created_at) + 86400000).toISOString();
    await db
      .insertInto('licenses')
      .values({ ...trial, id: undefined, kind: 'TAN', tan_id: tan.id, valid_until: null, permanent: true, created_at: bought, updated_at: bought } as never)
      .execute();

    await expectCountersMatchRows(t.app, cookie, products);
  });

  it('keep a distributor to the activations of its own TANs after a TAN changes hands', async () => {
    const distributor = await loggedIn(t.app, 'DISTRIBUTOR');
    const tan = await t.app.ctx.db.selectFrom('tans').select('id').where('activated_count', '>', 0).orderBy('id').executeTakeFirstOrThrow();
    const own = async () => (await client(t.app, distributor.cookie).get('/api/statistics/tan-activations', { query: RANGES[0] })).json().totals.activations as number;
    expect(await own()).toBe(0);
    await t.app.ctx.db.updateTable('tans').set({ distributor_id: distributor.id }).where('id', '=', tan.id).execute();
    const licenses = await t.app.ctx.db.selectFrom('licenses').select('created_at').where('tan_id', '=', tan.id).where('kind', '=', 'TAN').execute();
    expect(await own()).toBe(licenses.filter((license) => license.created_at >= '2024' && license.created_at < '2026').length);
  });

  it('keep a trial, its conversion and a machine contact when the licenses go', async () => {
    const db = t.app.ctx.db;
    const owner = await createUser(t.app);
    const now = new Date().toISOString();
    const policy = await db.selectFrom('license_policies').select('id').executeTakeFirstOrThrow();
    const tan = await db.selectFrom('tans').select(['id', 'product_id']).orderBy('id').executeTakeFirstOrThrow();
    const base = { owner_id: owner.id, product_id: tan.product_id, license_policy_id: policy.id, machine_id: 'HISTORY-MACHINE', permanent: false, revoked: false, updated_at: now };
    const trial = await db.insertInto('licenses').values({ ...base, kind: 'TEMPORARY', valid_until: '2099-01-01', created_at: now }).returning('id').executeTakeFirstOrThrow();
    const bought = await db.insertInto('licenses').values({ ...base, kind: 'TAN', tan_id: tan.id, created_at: now }).returning('id').executeTakeFirstOrThrow();
    await db.insertInto('license_last_seen').values({ license_id: bought.id, machine_id: 'HISTORY-MACHINE', last_seen_at: now }).execute();
    const caller = client(t.app, cookie);
    const totals = async (category: string) => (await caller.get(`/api/statistics/${category}`, { query: { productId: String(tan.product_id) } })).json().totals;
    const before = { trials: await totals('trial-licenses'), machines: await totals('active-machines'), activations: await totals('tan-activations') };
    await db.deleteFrom('licenses').where('id', 'in', [trial.id, bought.id]).execute();
    expect(await totals('trial-licenses')).toEqual(before.trials);
    expect(await totals('active-machines')).toEqual(before.machines);
    expect(await totals('tan-activations')).toEqual(before.activations);
  });

  it('keep free updates that ended on a day that has passed when the TAN changes', async () => {
    const caller = client(t.app, cookie);
    const ended = async (month: string) =>
      (await caller.get('/api/statistics/tan-free-updates-expired', { query: { from: `${month}-01`, to: `${month}-28`, productId: String(products[0]) } })).json().totals as {
        tans: number;
        licenses: number;
      };
    const tan = await insertTanEndingFreeUpdates(t.app, products[0], '2025-04-10');
    const april = await ended('2025-04');
    const june = await ended('2025-06');
    await t.app.ctx.db.updateTable('tans').set({ free_updates_until: '2025-06-10' }).where('id', '=', tan).execute();
    expect(await ended('2025-04')).toEqual(april);
    expect(await ended('2025-06')).toEqual({ tans: june.tans + 1, licenses: june.licenses + 2 });
    await t.app.ctx.db.updateTable('tans').set({ product_id: products[1] }).where('id', '=', tan).execute();
    expect(await ended('2025-06')).toEqual({ tans: june.tans + 1, licenses: june.licenses + 2 });
  });

  it('take nothing away when licenses, users and TANs whose free updates ended are deleted', async () => {
    const db = t.app.ctx.db;
    const caller = client(t.app, cookie);
    const everything = async () => {
      const answers: Record<string, unknown> = {};
      for (const category of STATISTICS_CATEGORIES) {
        for (const productId of [undefined, ...products]) {
          const query = { ...RANGES[0], ...(productId ? { productId: String(productId) } : {}) };
          answers[`${category} ${productId ?? ''}`] = (await caller.get(`/api/statistics/${category}`, { query })).json().months;
        }
      }
      return answers;
    };
    const before = await everything();
    expect((before['overage '] as { values: { grants: number } }[]).some((month) => month.values.grants > 0)).toBe(true);
    await db.deleteFrom('licenses').where('kind', '=', 'TEMPORARY').execute();
    await db.deleteFrom('licenses').where('upgraded_to_id', 'is', null).execute();
    await db.deleteFrom('licenses').execute();
    const ended = await db.selectFrom('tans').select('id').where('free_updates_until', '<', today()).execute();
    expect(ended.length).toBeGreaterThan(0);
    await db.deleteFrom('tans').where('id', 'in', ended.map((tan) => tan.id)).execute();
    await db.deleteFrom('users').where('email', 'like', 'stat-11-%').execute();
    // New users by product count the owners of the product's licenses now, not history: left out.
    const after = await everything();
    for (const [key, months] of Object.entries(before)) {
      if (/^(new|active)-users \d/.test(key)) continue;
      // Over-limit grants go with their license, as the TAN's true-up lines do (docs/statistics.md).
      if (key.startsWith('overage ')) {
        expect(after[key], key).toEqual((months as { month: string }[]).map(({ month }) => ({ month, values: { grants: 0, tans: 0 } })));
        continue;
      }
      expect(after[key], key).toEqual(months);
    }
  });

  describe('an installation upgraded to the statistics counters', () => {
    it('counts the rows it had before the migration', async () => {
      const fresh = await freshDatabase(t.kind);
      try {
        await migrateBefore(fresh, '0006');
        // The rows exist before migration 0006: its backfill, not the triggers, must count them.
        const old = await fresh.database.db.selectFrom('users').select('id').execute();
        expect(old).toEqual([]);
        const distributor = await fresh.database.db
          .insertInto('users')
          .values({ email: 'old-distributor@example.com', password_hash: null, first_name: 'Old', last_name: 'Distributor', access_role: 'DISTRIBUTOR', opt_in_email: false, confirmed: true, created_at: '2024-02-02T00:00:00.000Z', updated_at: '2024-02-02T00:00:00.000Z' })
          .returning('id')
          .executeTakeFirstOrThrow();
        const seeded = await seedStatistics({ ctx: { db: fresh.database.db } } as unknown as App, [distributor.id], 23);
        // A free upgrade made before migration 0007, which counted it as an activation of its own.
        const db = fresh.database.db;
        const upgradedFrom = await db.selectFrom('licenses').selectAll().where('kind', '=', 'TAN').orderBy('id').executeTakeFirstOrThrow();
        const { id: _id, upgraded_from_id: _from, ...copy } = upgradedFrom;
        const upgraded = await db.insertInto('licenses').values({ ...copy, product_id: seeded.products[1] }).returning('id').executeTakeFirstOrThrow();
        await db.updateTable('licenses').set({ upgraded_to_id: upgraded.id }).where('id', '=', upgradedFrom.id).execute();
        const app = await buildTestApp(testConfig(fresh.config), fresh.database);
        try {
          const admin = await loggedIn(app, 'ADMIN');
          await expectCountersMatchRows(app, admin.cookie, seeded.products.slice(0, 2));
          const stored = await app.ctx.db.selectFrom('licenses').select('upgraded_from_id').where('id', '=', upgraded.id).executeTakeFirstOrThrow();
          expect(stored.upgraded_from_id).toBe(upgradedFrom.id);
        } finally {
          await app.close();
        }
      } finally {
        await fresh.dispose();
      }
    });
  });
});
