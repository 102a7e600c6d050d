import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { copyDistributors } from '../migrations/0018_license_distributor.ts';
import * as floatingSubscriptions from '../migrations/0021_floating_subscriptions.ts';
import * as licenseSearchIndexes from '../migrations/0022_license_search_indexes.ts';
import * as tanAttentionIndexes from '../migrations/0029_tan_attention_indexes.ts';
import { fillSortKeys } from '../migrations/0019_user_sort_keys.ts';
import { migrateToLatest } from '../src/platform/db/migrate.ts';
import { client, describeBothDatabases, loggedIn, withSchemaLock } from './harness.ts';
import { activate, createTans, insertProduct } from './licensing-test-data.ts';

describeBothDatabases('migrations', (t) => {
  it('create the three built-in license policies', async () => {
    const policies = await t.app.ctx.db.selectFrom('license_policies').select(['name', 'type', 'public_name']).orderBy('name').execute();
    expect(policies.map((policy) => policy.name)).toEqual(['FLOATING_DEFAULT', 'SINGLE_HOST_INDEFINITE', 'SINGLE_HOST_PERPETUAL']);
    const byName = Object.fromEntries(policies.map((policy) => [policy.name, policy]));
    expect(byName.SINGLE_HOST_INDEFINITE.type).toBe('INDEFINITE');
    expect(byName.SINGLE_HOST_PERPETUAL.type).toBe('PERPETUAL');
    expect(byName.FLOATING_DEFAULT.type).toBe('FLOATING');
    // INDEFINITE has no public name; the others have one per locale.
    expect(JSON.parse(byName.SINGLE_HOST_INDEFINITE.public_name)).toEqual({});
    expect(Object.keys(JSON.parse(byName.SINGLE_HOST_PERPETUAL.public_name)).sort()).toEqual(['de', 'en', 'es', 'fr', 'it']);
  });

  it('are idempotent: migrating again changes nothing', async () => {
    const migrate = () => migrateToLatest(t.app.ctx.db);
    await (t.kind === 'postgres' ? withSchemaLock(migrate) : migrate());
    const count = await t.app.ctx.db.selectFrom('license_policies').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    expect(Number(count.count)).toBe(3);
  });

  it('migrate a second database while another one exists (PostgreSQL: a second schema)', async () => {
    const second = await t.newApp();
    const policies = await second.ctx.db.selectFrom('license_policies').select('name').execute();
    expect(policies).toHaveLength(3);
    const health = await second.inject({ url: '/api/health' });
    expect(health.json()).toEqual({ status: 'ok', database: t.kind });
  });

  it("0018 gives the licenses activated before it their TAN's distributor, and no other license one", async () => {
    const app = await t.newApp();
    const admin = client(app, (await loggedIn(app, 'ADMIN')).cookie);
    const customer = client(app, (await loggedIn(app, 'USER')).cookie);
    const distributors = [await loggedIn(app, 'DISTRIBUTOR'), await loggedIn(app, 'DISTRIBUTOR')];
    const productId = (await insertProduct(app)).id;
    const tans = [
      ...(await createTans(admin, { productId, distributorId: distributors[0].id })),
      ...(await createTans(admin, { productId, distributorId: distributors[1].id })),
      ...(await createTans(admin, { productId })),
    ];
    const licenses = [];
    for (const tan of tans) licenses.push((await activate(customer, tan.code)).json().id as number);
    const stored = () => app.ctx.db.selectFrom('licenses').select(['id', 'distributor_id']).orderBy('id').execute();
    const expected = [
      { id: licenses[0], distributor_id: distributors[0].id },
      { id: licenses[1], distributor_id: distributors[1].id },
      { id: licenses[2], distributor_id: null },
    ];
    expect(await stored()).toEqual(expected);

    await sql`update licenses set distributor_id = null`.execute(app.ctx.db);
    await copyDistributors(app.ctx.db);
    expect(await stored()).toEqual(expected);
  });

  it('0021 keeps a floating TAN activated before it working, and from then on lets more machines join it', async () => {
    const app = await t.newApp();
    const admin = client(app, (await loggedIn(app, 'ADMIN')).cookie);
    const customer = client(app, (await loggedIn(app, 'USER')).cookie);
    const floating = await app.ctx.db.selectFrom('license_policies').select('id').where('name', '=', 'FLOATING_DEFAULT').executeTakeFirstOrThrow();
    const product = await insertProduct(app);
    const [tan] = await createTans(admin, { productId: product.id, licensePolicyId: floating.id, licenseCount: 2 });
    const first = (await activate(customer, tan.code, 'BEFORE-1')).json().id as number;
    expect((await activate(customer, tan.code, 'BEFORE-2')).statusCode).toBe(201);

    // As the database was before 0021 (and 0022 and 0029, whose indexes need its columns, on top of it), with the TAN used up, then migrated again.
    await tanAttentionIndexes.down(app.ctx.db);
    await licenseSearchIndexes.down(app.ctx.db);
    await floatingSubscriptions.down(app.ctx.db);
    await floatingSubscriptions.up(app.ctx.db);
    await licenseSearchIndexes.up(app.ctx.db);
    await tanAttentionIndexes.up(app.ctx.db);

    const stored = await app.ctx.db.selectFrom('licenses').select(['suspended', 'tan_valid_until']).where('id', '=', first).executeTakeFirstOrThrow();
    expect({ suspended: Boolean(stored.suspended), tanValidUntil: stored.tan_valid_until }).toEqual({ suspended: false, tanValidUntil: null });
    expect((await activate(customer, tan.code, 'AFTER-3')).statusCode).toBe(201);
    const fetchFile = (machineId: string) => client(app).post('/api/client/v1/license', { body: { machineId, product: product.name } });
    expect((await fetchFile('BEFORE-1')).statusCode).toBe(200);
    expect((await fetchFile('BEFORE-2')).statusCode).toBe(200);
    expect((await fetchFile('AFTER-3')).json().error).toBe('ERR_NO_SEAT');
  });

  it('0019 gives every account the sort keys of its names and company, the ASCII ones and the others alike', async () => {
    const app = await t.newApp();
    const admin = client(app, (await loggedIn(app, 'ADMIN')).cookie);
    const names = [
      { firstName: 'Ada', lastName: 'Lovelace', company: 'Analytical Engines' },
      { firstName: 'Ömer', lastName: 'Straße', company: null },
      { firstName: 'Zoë', lastName: 'Ærø', company: 'Éclair SA' },
    ];
    for (const [index, name] of names.entries()) {
      const created = await admin.post('/api/users', { body: { ...name, email: `keys-${index}@example.com`, accessRole: 'USER' } });
      expect(created.statusCode, created.body).toBe(201);
    }
    const stored = () =>
      app.ctx.db.selectFrom('users').select(['first_name_key', 'last_name_key', 'company_key']).where('email', 'like', 'keys-%').orderBy('email').execute();
    const expected = [
      { first_name_key: 'ada', last_name_key: 'lovelace', company_key: 'analytical engines' },
      { first_name_key: 'omer', last_name_key: 'strasse', company_key: null },
      { first_name_key: 'zoe', last_name_key: 'aero', company_key: 'eclair sa' },
    ];
    expect(await stored()).toEqual(expected);

    await sql`update users set first_name_key = '', last_name_key = '', company_key = 'x'`.execute(app.ctx.db);
    await fillSortKeys(app.ctx.db);
    expect(await stored()).toEqual(expected);
  });
});
