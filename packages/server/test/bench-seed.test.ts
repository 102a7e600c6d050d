/**
 * `seed:bench`'s load (modules/bench-seed): on PostgreSQL it drops the loaded tables' secondary
 * indexes and builds them again; after a seed, and after a load that failed half-way, every index
 * of the migrations is there as it was. The data is the same on both databases.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/platform/db/migrate.ts';
import { seedBench, BENCH_SIZES, type BenchSizes } from '../src/modules/bench-seed/service.ts';
import { DATABASE_KINDS, freshDatabase, postgresReachable, withSchemaLock, type TestDatabase } from './harness.ts';
import { IN_CI } from './processes.ts';

const SIZES: BenchSizes = { ...BENCH_SIZES, users: 300, distributors: 3, products: 4, tans: 1_000, licenses: 1_200, heavyUserLicenses: 50 };

async function migrated(kind: (typeof DATABASE_KINDS)[number]): Promise<TestDatabase> {
  const test = await freshDatabase(kind);
  if (kind === 'postgres') await withSchemaLock(() => migrateToLatest(test.database.db));
  else await migrateToLatest(test.database.db);
  return test;
}

async function indexesOf(test: TestDatabase): Promise<string[]> {
  const result = await sql<{ definition: string }>`
    select indexdef as definition from pg_indexes where schemaname = current_schema() order by indexname`.execute(test.database.db);
  return result.rows.map((row) => row.definition);
}

let current: TestDatabase | undefined;
afterEach(async () => {
  await current?.dispose();
  current = undefined;
});

describe.skipIf(!postgresReachable && !IN_CI)('seed:bench on PostgreSQL', () => {
  it('ends with every index the migrations made, exactly as they made it', async () => {
    current = await migrated('postgres');
    const before = await indexesOf(current);
    expect(before.some((definition) => definition.includes('gin_trgm_ops'))).toBe(true);
    const lines: string[] = [];
    const report = await seedBench(current.database.db, SIZES, (text) => lines.push(text));
    expect(report).toMatchObject({ skipped: false, users: 1 + SIZES.distributors + SIZES.users, tans: SIZES.tans, licenses: SIZES.licenses });
    expect(lines.find((line) => line.startsWith('dropping'))).toMatch(/^dropping [1-9]\d+ indexes for the load$/);
    expect(await indexesOf(current)).toEqual(before);
  });

  it('keeps every index when the load fails half-way, and a rerun seeds the whole set', async () => {
    current = await migrated('postgres');
    const before = await indexesOf(current);
    const failing = (text: string) => {
      if (text === 'licenses') throw new Error('the process dies');
    };
    await expect(seedBench(current.database.db, SIZES, failing)).rejects.toThrow('the process dies');
    expect(await indexesOf(current)).toEqual(before);
    const tans = await current.database.db.selectFrom('tans').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    expect(Number(tans.count)).toBe(0);
    const report = await seedBench(current.database.db, SIZES);
    expect(report).toMatchObject({ skipped: false, tans: SIZES.tans, licenses: SIZES.licenses });
    expect(await indexesOf(current)).toEqual(before);
  });
});

/** What the seed wrote, without the times (taken from the clock) and the ids (a sequence may skip). */
async function contents(test: TestDatabase) {
  const db = test.database.db;
  const tans = await db
    .selectFrom('tans')
    .leftJoin('users', 'users.id', 'tans.distributor_id')
    .select(['tans.code', 'tans.license_count', 'tans.activated_count', 'tans.revoked', 'users.email'])
    .orderBy('tans.id')
    .execute();
  const licenses = await db
    .selectFrom('licenses')
    .innerJoin('users', 'users.id', 'licenses.owner_id')
    .select(['licenses.kind', 'licenses.tan_code', 'licenses.machine_id', 'licenses.revoked', 'users.email'])
    .orderBy('licenses.id')
    .execute();
  const tags = await db.selectFrom('tan_tags').innerJoin('tans', 'tans.id', 'tan_tags.tan_id').select(['tans.code', 'tan_tags.tag']).orderBy('tans.code').execute();
  return { tans: tans.map((row) => ({ ...row, revoked: Boolean(row.revoked) })), licenses: licenses.map((row) => ({ ...row, revoked: Boolean(row.revoked) })), tags };
}

describe.skipIf(!postgresReachable && !IN_CI)('seed:bench on both databases', () => {
  it('writes the same data set, each TAN with a license activated once', async () => {
    const seen = [];
    for (const kind of DATABASE_KINDS) {
      current = await migrated(kind);
      await seedBench(current.database.db, SIZES);
      const data = await contents(current);
      const activated = data.tans.filter((tan) => tan.activated_count === 1).map((tan) => tan.code);
      expect(activated).toEqual(data.licenses.filter((license) => license.kind === 'TAN').map((license) => license.tan_code));
      seen.push(data);
      await current.dispose();
      current = undefined;
    }
    expect(seen[1]).toEqual(seen[0]);
  });
});
