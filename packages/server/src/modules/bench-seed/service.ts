/**
 * `npm run cli -- seed:bench`: the licensing benchmark's data set (DESIGN.md section 9): 200,000
 * users, 1,000,000 TANs and 1,000,000 licenses, written with multi-row inserts. Deterministic (a
 * seeded generator), so that every run and both databases see the same data. Benchmark data, not
 * user actions: no change-log rows. Seeding an already seeded database does nothing.
 *
 * On PostgreSQL the whole load is one transaction that first drops the secondary indexes of the
 * loaded tables and at its end builds them again from their own definitions: building an index once
 * from sorted rows is far cheaper than updating twenty of them for every row inserted in random
 * order. Dropping an index is transactional there, so a load that fails or whose process dies rolls
 * back as a whole, indexes included, and a rerun starts again from empty tables.
 */
import { generateTanCode } from '@lm/contract/tan';
import { hashPassword } from '../../platform/auth/secrets.ts';
import type { Kysely } from 'kysely';
import type { Executor } from '../../platform/db/database.ts';
import type { DB } from '../../platform/db/schema.ts';
import { isPostgres } from '../../platform/db/dialect.ts';
import { nameKeys } from '../users/sort-keys.ts';
import { analyze, bulkLoadSettings, countRows, createIndexes, dropIndexes, firstIdAfter, idsOfEmails, insertMany, maxId, productIdsNamed, secondaryIndexes, tanIdsFrom } from './repo.ts';
import { seededRandom } from '../../platform/seeded-random.ts';

export interface BenchSizes {
  users: number;
  distributors: number;
  products: number;
  tans: number;
  licenses: number;
  /** Licenses of one account, the heaviest license list. */
  heavyUserLicenses: number;
}

export const BENCH_SIZES: BenchSizes = { users: 200_000, distributors: 20, products: 50, tans: 1_000_000, licenses: 1_000_000, heavyUserLicenses: 10_000 };

export const BENCH_ACCOUNTS = {
  admin: { email: 'bench-admin@bench.invalid', password: 'bench-admin-secret' },
  distributor: { email: 'bench-distributor-0@bench.invalid', password: 'bench-distributor-secret' },
  heavyUser: { email: 'bench-user-0@bench.invalid', password: 'bench-user-secret' },
};

const USER_PREFIX = 'bench-user-';
const DISTRIBUTOR_PREFIX = 'bench-distributor-';
const PRODUCT_PREFIX = 'Bench Product ';
const BATCH = 50_000;
const DAY_MS = 86_400_000;
/** The tables the load fills, whose secondary indexes PostgreSQL builds after it. */
const LOADED_TABLES = ['users', 'tans', 'tan_tags', 'licenses'];
/** Indexes the load itself reads: the statistics trigger looks up each trial license's conversion by machine and product. */
const KEPT_DURING_LOAD = ['licenses_machine_product_kind'];

export interface SeedReport {
  skipped: boolean;
  users: number;
  tans: number;
  licenses: number;
  seconds: number;
}

export async function seedBench(db: Kysely<DB>, sizes: BenchSizes = BENCH_SIZES, log: (text: string) => void = () => undefined): Promise<SeedReport> {
  const started = performance.now();
  if ((await countRows(db, 'tans')) >= sizes.tans && (await countRows(db, 'licenses')) >= sizes.licenses) {
    return { skipped: true, users: await countRows(db, 'users'), tans: await countRows(db, 'tans'), licenses: await countRows(db, 'licenses'), seconds: 0 };
  }
  const postgres = isPostgres(db);
  if (postgres) {
    await db.transaction().execute(async (trx) => {
      await bulkLoadSettings(trx);
      const indexes = (await secondaryIndexes(trx, LOADED_TABLES)).filter((index) => !KEPT_DURING_LOAD.includes(index.name));
      log(`dropping ${indexes.length} indexes for the load`);
      await dropIndexes(trx, indexes);
      await load(trx, sizes, log);
      log(`building the ${indexes.length} indexes`);
      await createIndexes(trx, indexes, log);
    });
  } else {
    await load(db, sizes, log);
  }
  log('analyze');
  await analyze(db, postgres);
  return {
    skipped: false,
    users: await countRows(db, 'users'),
    tans: await countRows(db, 'tans'),
    licenses: await countRows(db, 'licenses'),
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}

/** Writes the data set: through `db`'s own short transactions on SQLite, in the caller's one on PostgreSQL. */
async function load(db: Executor, sizes: BenchSizes, log: (text: string) => void): Promise<void> {
  const random = seededRandom(20260131);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const now = Date.now();
  const isoAgo = (maxDays: number) => new Date(now - Math.floor(random() * maxDays * DAY_MS)).toISOString();

  const [adminHash, distributorHash, userHash] = await Promise.all([
    hashPassword(BENCH_ACCOUNTS.admin.password),
    hashPassword(BENCH_ACCOUNTS.distributor.password),
    hashPassword(BENCH_ACCOUNTS.heavyUser.password),
  ]);
  const person = (email: string, role: 'ADMIN' | 'DISTRIBUTOR' | 'USER', index: number, passwordHash: string | null) => {
    const createdAt = isoAgo(1095);
    const names = {
      firstName: `Bench${index}`,
      lastName: role === 'USER' ? 'Customer' : role === 'ADMIN' ? 'Administrator' : 'Distributor',
      company: index % 7 === 0 ? `Company ${index % 1000}` : null,
    };
    return {
      email,
      password_hash: passwordHash,
      first_name: names.firstName,
      last_name: names.lastName,
      company: names.company,
      ...nameKeys(names),
      access_role: role,
      opt_in_email: index % 3 === 0,
      confirmed: true,
      created_at: createdAt,
      updated_at: createdAt,
    };
  };

  log('users');
  await insertMany(db, 'users', [person(BENCH_ACCOUNTS.admin.email, 'ADMIN', 0, adminHash)]);
  await insertMany(
    db,
    'users',
    Array.from({ length: sizes.distributors }, (_, i) => person(`${DISTRIBUTOR_PREFIX}${i}@bench.invalid`, 'DISTRIBUTOR', i, i === 0 ? distributorHash : null)),
  );
  for (let start = 0; start < sizes.users; start += BATCH) {
    const count = Math.min(BATCH, sizes.users - start);
    await insertMany(
      db,
      'users',
      Array.from({ length: count }, (_, i) => person(`${USER_PREFIX}${start + i}@bench.invalid`, 'USER', start + i, start + i === 0 ? userHash : null)),
    );
  }
  const distributorIds = await idsOfEmails(db, DISTRIBUTOR_PREFIX);
  const userIds = await idsOfEmails(db, USER_PREFIX);
  const heavyUserId = userIds[0];

  log('products');
  const productNow = new Date(now).toISOString();
  await insertMany(
    db,
    'products',
    Array.from({ length: sizes.products }, (_, i) => ({
      name: `${PRODUCT_PREFIX}${Math.floor(i / 2)}`,
      version: `${(i % 2) + 1}.0`,
      active: true,
      trial_days: 30,
      release_date: new Date(now - (i % 2 ? 100 : 800) * DAY_MS).toISOString().slice(0, 10),
      created_at: productNow,
      updated_at: productNow,
    })),
  );
  const productIds = await productIdsNamed(db, PRODUCT_PREFIX);

  log('TANs');
  const randomBytes = (length: number) => Uint8Array.from({ length }, () => Math.floor(random() * 256));
  const codes = new Set<string>();
  const tansBefore = await maxId(db, 'tans');
  // The licenses made from TANs take the first ones, one each: those TANs are written activated.
  const tanLicenses = Math.min(sizes.tans, Math.floor(sizes.licenses * 0.9));
  let firstTanId = 0;
  for (let start = 0; start < sizes.tans; start += BATCH) {
    const count = Math.min(BATCH, sizes.tans - start);
    const rows = [];
    const tags = [];
    for (let i = 0; i < count; i++) {
      let code = generateTanCode(randomBytes);
      while (codes.has(code)) code = generateTanCode(randomBytes);
      codes.add(code);
      const createdAt = isoAgo(1095);
      const freeUpdatesUntil = random() < 0.5 ? new Date(Date.parse(createdAt) + 365 * DAY_MS).toISOString().slice(0, 10) : null;
      rows.push({
        code,
        product_id: pick(productIds),
        license_policy_id: null,
        license_count: 1 + Math.floor(random() * 5),
        activated_count: start + i < tanLicenses ? 1 : 0,
        distributor_id: random() < 0.3 ? pick(distributorIds) : null,
        revoked: random() < 0.02,
        free_updates_until: freeUpdatesUntil,
        notes: null,
        created_by: null,
        created_at: createdAt,
        updated_at: createdAt,
      });
    }
    await insertMany(db, 'tans', rows);
    firstTanId ||= await firstIdAfter(db, 'tans', tansBefore);
    // One TAN in ten carries a batch tag.
    for (let i = 0; i < count; i += 10) tags.push({ tan_id: firstTanId + start + i, tag: `bench:batch-${Math.floor((start + i) / 1000)}` });
    await insertMany(db, 'tan_tags', tags);
    log(`  ${start + count} TANs`);
  }

  log('licenses');
  const policyId = 1;
  for (let start = 0; start < sizes.licenses; start += BATCH) {
    const count = Math.min(BATCH, sizes.licenses - start);
    const fromTans = start < tanLicenses ? await tanIdsFrom(db, firstTanId + start, Math.min(count, tanLicenses - start)) : [];
    const rows = [];
    for (let i = 0; i < count; i++) {
      const index = start + i;
      const tan = fromTans[i];
      const owner = index < sizes.heavyUserLicenses ? heavyUserId : pick(userIds);
      const createdAt = tan ? new Date(Math.min(now, Date.parse(tan.created_at) + Math.floor(random() * 30 * DAY_MS))).toISOString() : isoAgo(1095);
      rows.push({
        kind: tan ? ('TAN' as const) : ('TEMPORARY' as const),
        owner_id: owner,
        product_id: tan ? tan.product_id : pick(productIds),
        license_policy_id: policyId,
        tan_id: tan ? tan.id : null,
        tan_code: tan ? tan.code : null,
        distributor_id: tan ? tan.distributor_id : null,
        machine_id: `BENCH-${index.toString(36).toUpperCase().padStart(6, '0')}-${Math.floor(random() * 1e6).toString(36).toUpperCase()}`,
        valid_until: tan ? null : new Date(Date.parse(createdAt) + 30 * DAY_MS).toISOString().slice(0, 10),
        permanent: false,
        revoked: random() < 0.01,
        free_updates_until: tan ? new Date(Date.parse(createdAt) + 366 * DAY_MS).toISOString().slice(0, 10) : null,
        upgraded_to_id: null,
        created_at: createdAt,
        updated_at: createdAt,
      });
    }
    await insertMany(db, 'licenses', rows);
    log(`  ${start + count} licenses`);
  }
}
