import type { Executor } from '../../platform/db/database.ts';

/** What an installation holds besides its administrators and built-in policies: the demo goes only where all of it is zero. */
export async function installationContents(db: Executor): Promise<{ products: number; features: number; tans: number; licenses: number; accounts: number }> {
  const count = async (table: 'products' | 'features' | 'tans' | 'licenses') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow()).count);
  const accounts = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('access_role', '<>', 'ADMIN')
    .executeTakeFirstOrThrow();
  return { products: await count('products'), features: await count('features'), tans: await count('tans'), licenses: await count('licenses'), accounts: Number(accounts.count) };
}

/** The administrator the demo acts as: the first one. */
export async function firstAdministrator(db: Executor): Promise<{ id: number; email: string } | undefined> {
  return db.selectFrom('users').select(['id', 'email']).where('access_role', '=', 'ADMIN').where('closed_at', 'is', null).orderBy('id').limit(1).executeTakeFirst();
}

/** The policies by name (the built-in ones and the demo's own), for products and TANs. */
export async function policyIdsByName(db: Executor): Promise<Map<string, number>> {
  const rows = await db.selectFrom('license_policies').select(['id', 'name']).execute();
  return new Map(rows.map((row) => [row.name, row.id]));
}
