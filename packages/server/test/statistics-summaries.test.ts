/**
 * The summaries of migration 0039: the accounts holding a product's licenses now (new and active
 * users of one product) and the over-limit grants per TAN and month. They follow every write,
 * parallel ones included, and always equal what the raw rows say.
 */
import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { buildTestApp, client, createUser, describeBothDatabases, freshDatabase, loggedIn, testConfig } from './harness.ts';
import { migrateBefore } from './older-installation.ts';
import { expectedStatistics, seedStatistics } from './statistics-fixtures.ts';

/** Every summary row equals the raw rows recounted, and no summary row is left without them. */
async function expectSummariesMatchRows(app: App) {
  const db = app.ctx.db;
  const holders = await sql<{ user_id: number; product_id: number; licenses: number; created_day: string; login_day: string | null }>`
    select l.owner_id as user_id, l.product_id, count(*) as licenses, substr(min(u.created_at), 1, 10) as created_day, substr(min(u.last_login_at), 1, 10) as login_day
    from licenses l join users u on u.id = l.owner_id group by l.owner_id, l.product_id order by 1, 2`.execute(db);
  const held = await db.selectFrom('statistics_user_products').selectAll().orderBy('user_id').orderBy('product_id').execute();
  expect(held.map((row) => ({ ...row, licenses: Number(row.licenses) }))).toEqual(holders.rows.map((row) => ({ ...row, licenses: Number(row.licenses) })));
  const grants = await sql<{ tan_id: number; month: string; grants: number }>`
    select tan_id, substr(day, 1, 7) as month, count(*) as grants from license_overages group by tan_id, substr(day, 1, 7) order by 1, 2`.execute(db);
  const summed = await db.selectFrom('license_overage_months').selectAll().orderBy('tan_id').orderBy('month').execute();
  expect(summed.map((row) => ({ ...row, grants: Number(row.grants) }))).toEqual(grants.rows.map((row) => ({ ...row, grants: Number(row.grants) })));
}

describeBothDatabases('statistics summaries', (t) => {
  let cookie: string;
  let products: number[];
  let policyId: number;

  beforeAll(async () => {
    cookie = (await loggedIn(t.app, 'ADMIN')).cookie;
    products = (await seedStatistics(t.app, [], 17)).products;
    policyId = (await t.app.ctx.db.selectFrom('license_policies').select('id').where('name', '=', 'SINGLE_HOST_PERPETUAL').executeTakeFirstOrThrow()).id;
  });

  /** Users of one product per month of 2025 as the API answers. */
  const usersByMonth = async (category: 'new-users' | 'active-users', productId: number) => {
    const response = await client(t.app, cookie).get(`/api/statistics/${category}`, { query: { from: '2025-01-01', to: '2025-12-31', productId: String(productId) } });
    expect(response.statusCode, response.body).toBe(200);
    return Object.fromEntries((response.json().months as { month: string; values: { users: number } }[]).map((month) => [month.month, month.values.users]));
  };

  const account = async (createdAt: string, lastLoginAt: string | null) => {
    const user = await createUser(t.app);
    await t.app.ctx.db.updateTable('users').set({ created_at: createdAt, last_login_at: lastLoginAt }).where('id', '=', user.id).execute();
    return user.id;
  };

  const addLicense = async (ownerId: number, productId: number) => {
    const now = new Date().toISOString();
    const row = await t.app.ctx.db
      .insertInto('licenses')
      .values({ kind: 'TEMPORARY', owner_id: ownerId, product_id: productId, license_policy_id: policyId, valid_until: '2099-01-01', permanent: false, revoked: false, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  };

  it('count an account for a product while it holds one of its licenses, in the months of its creation and latest login', async () => {
    const db = t.app.ctx.db;
    const [product, other] = products;
    const before = { created: await usersByMonth('new-users', product), active: await usersByMonth('active-users', product), other: await usersByMonth('new-users', other) };
    const changed = (base: Record<string, number>, changes: Record<string, number>) => ({ ...base, ...Object.fromEntries(Object.entries(changes).map(([month, by]) => [month, base[month] + by])) });

    const first = await account('2025-03-10T09:00:00.000Z', '2025-04-02T09:00:00.000Z');
    const licenses = [await addLicense(first, product), await addLicense(first, product)];
    expect(await usersByMonth('new-users', product)).toEqual(changed(before.created, { '2025-03': 1 }));
    expect(await usersByMonth('active-users', product)).toEqual(changed(before.active, { '2025-04': 1 }));

    // One of two licenses gone: still a holder. A login on a later day moves the account.
    await db.deleteFrom('licenses').where('id', '=', licenses[0]).execute();
    await db.updateTable('users').set({ last_login_at: '2025-06-15T10:00:00.000Z' }).where('id', '=', first).execute();
    expect(await usersByMonth('new-users', product)).toEqual(changed(before.created, { '2025-03': 1 }));
    expect(await usersByMonth('active-users', product)).toEqual(changed(before.active, { '2025-06': 1 }));

    // The license moves to another account, then to another product.
    const second = await account('2025-05-20T09:00:00.000Z', null);
    await db.updateTable('licenses').set({ owner_id: second }).where('id', '=', licenses[1]).execute();
    expect(await usersByMonth('new-users', product)).toEqual(changed(before.created, { '2025-05': 1 }));
    expect(await usersByMonth('active-users', product)).toEqual(before.active);
    await db.updateTable('licenses').set({ product_id: other }).where('id', '=', licenses[1]).execute();
    expect(await usersByMonth('new-users', product)).toEqual(before.created);
    expect(await usersByMonth('new-users', other)).toEqual(changed(before.other, { '2025-05': 1 }));

    // A deleted account keeps its licenses without an owner: it holds nothing any more.
    await db.deleteFrom('users').where('id', '=', second).execute();
    expect(await usersByMonth('new-users', other)).toEqual(before.other);
    await expectSummariesMatchRows(t.app);
  });

  it('stay exact when twelve writers add and remove licenses of one account and product at once', async () => {
    const db = t.app.ctx.db;
    const product = products[2];
    const owner = await account('2025-07-07T07:00:00.000Z', '2025-08-08T08:00:00.000Z');
    const existing = await Promise.all(Array.from({ length: 6 }, () => addLicense(owner, product)));
    const created = (await usersByMonth('new-users', product))['2025-07'];
    // Six writers add a license while six others each delete one, all in their own transactions.
    await Promise.all([
      ...Array.from({ length: 6 }, () => db.transaction().execute(async (trx) => {
        const now = new Date().toISOString();
        await trx
          .insertInto('licenses')
          .values({ kind: 'TEMPORARY', owner_id: owner, product_id: product, license_policy_id: policyId, valid_until: '2099-01-01', permanent: false, revoked: false, created_at: now, updated_at: now })
          .execute();
      })),
      ...existing.map((id) => db.transaction().execute((trx) => trx.deleteFrom('licenses').where('id', '=', id).execute())),
    ]);
    await expectSummariesMatchRows(t.app);
    expect((await usersByMonth('new-users', product))['2025-07']).toBe(created);
    // Then all at once, the last three in one statement: the last license going takes the account out.
    const left = await db.selectFrom('licenses').select('id').where('owner_id', '=', owner).orderBy('id').execute();
    await Promise.all(left.slice(3).map((row) => db.deleteFrom('licenses').where('id', '=', row.id).execute()));
    expect((await usersByMonth('new-users', product))['2025-07']).toBe(created);
    await db.deleteFrom('licenses').where('owner_id', '=', owner).execute();
    expect((await usersByMonth('new-users', product))['2025-07']).toBe(created - 1);
    await expectSummariesMatchRows(t.app);
  });

  it('sum the over-limit grants of a TAN per month while twelve writers grant and a license goes', async () => {
    const db = t.app.ctx.db;
    const tan = await db.selectFrom('tans').select(['id', 'product_id']).orderBy('id').executeTakeFirstOrThrow();
    const owner = await account('2025-01-01T00:00:00.000Z', null);
    const licenses = await Promise.all(Array.from({ length: 3 }, () => addLicense(owner, tan.product_id)));
    await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        db.transaction().execute((trx) =>
          trx.insertInto('license_overages').values({ tan_id: tan.id, license_id: licenses[n % 3], machine_id: `RACE-${n}`, day: `2025-0${1 + (n % 2)}-1${n % 3}` }).execute(),
        ),
      ),
    );
    await expectSummariesMatchRows(t.app);
    const grants = async (from: string, to: string) =>
      (await client(t.app, cookie).get('/api/statistics/overage', { query: { from, to, productId: String(tan.product_id) } })).json().totals as { grants: number; tans: number };
    const whole = await grants('2025-01-01', '2025-02-28');
    const raw = async (from: string, to: string) => {
      const row = await sql<{ grants: number; tans: number }>`select count(*) as grants, count(distinct o.tan_id) as tans from license_overages o join tans t on t.id = o.tan_id
        where o.day >= ${from} and o.day <= ${to} and t.product_id = ${tan.product_id}`.execute(db);
      return { grants: Number(row.rows[0].grants), tans: Number(row.rows[0].tans) };
    };
    expect(whole).toEqual(await raw('2025-01-01', '2025-02-28'));
    // A range that starts and ends inside a month reads those days from the grants themselves.
    expect(await grants('2025-01-11', '2025-02-11')).toEqual(await raw('2025-01-11', '2025-02-11'));
    expect(await grants('2025-01-11', '2025-03-31')).toEqual(await raw('2025-01-11', '2025-03-31'));
    await db.deleteFrom('licenses').where('id', '=', licenses[0]).execute();
    expect((await grants('2025-01-01', '2025-02-28')).grants).toBe(whole.grants - 4);
    await expectSummariesMatchRows(t.app);
  });

  it('are filled from the rows an installation had before migration 0039', async () => {
    const fresh = await freshDatabase(t.kind);
    try {
      await migrateBefore(fresh, '0039');
      const seeded = await seedStatistics({ ctx: { db: fresh.database.db } } as unknown as App, [], 29);
      expect(await fresh.database.db.selectFrom('license_overages').select('tan_id').limit(1).executeTakeFirst()).toBeDefined();
      const app = await buildTestApp(testConfig(fresh.config), fresh.database);
      try {
        await expectSummariesMatchRows(app);
        const admin = await loggedIn(app, 'ADMIN');
        for (const category of ['new-users', 'active-users', 'overage'] as const) {
          const range = { from: '2024-01-01', to: '2025-12-31' };
          const answer = await client(app, admin.cookie).get(`/api/statistics/${category}`, { query: { ...range, productId: String(seeded.products[0]) } });
          const expected = await expectedStatistics(app, category, { ...range, productId: seeded.products[0], today: new Date().toISOString().slice(0, 10) });
          expect(answer.json().totals, category).toEqual(expected.totals);
        }
      } finally {
        await app.close();
      }
    } finally {
      await fresh.dispose();
    }
  });
});
