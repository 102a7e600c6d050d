import { expect, it } from 'vitest';
import { migrateToLatest } from '../src/platform/db/migrate.ts';
import { describeBothDatabases, withSchemaLock } from './harness.ts';

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
});
