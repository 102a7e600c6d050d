/**
 * The statistics benchmark's data set (DESIGN.md section 9): 200,000 users, 1,000,000 TANs and
 * 1,000,000 licenses (800,000 activated from TANs, 200,000 temporary) spread over three years, and
 * 300,000 last-seen records of the desktop protocol. Written with batched multi-row inserts, the same
 * code on SQLite and PostgreSQL; the rows follow a fixed pseudo-random sequence.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../packages/server/src/platform/db/schema.ts';

export const SIZES = { users: 200_000, distributors: 50, products: 20, tans: 1_000_000, tanLicenses: 800_000, temporaryLicenses: 200_000, lastSeen: 300_000 };
const DAY_MS = 86_400_000;
const SPAN_DAYS = 3 * 365;

/** A deterministic stream of numbers in [0, 1). */
function generator(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function insertBatches<T>(db: Kysely<DB>, table: keyof DB, count: number, row: (index: number) => T, batch: number, progress: (text: string) => void): Promise<void> {
  const started = Date.now();
  for (let start = 0; start < count; start += batch * 20) {
    // Twenty batches per transaction: one commit per 10,000-odd rows keeps both databases quick.
    await db.transaction().execute(async (trx) => {
      for (let offset = start; offset < Math.min(count, start + batch * 20); offset += batch) {
        const rows = Array.from({ length: Math.min(batch, count - offset) }, (_, index) => row(offset + index));
        await trx.insertInto(table).values(rows as never).execute();
      }
    });
  }
  progress(`${String(table)}: ${count.toLocaleString('en')} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Seeds the data set into a migrated, otherwise empty database. `now` is the end of the three years. */
export async function seedStatisticsData(db: Kysely<DB>, now: Date, progress: (text: string) => void): Promise<void> {
  const random = generator(42);
  const end = now.getTime();
  const at = (daysBack: number) => new Date(end - daysBack * DAY_MS - Math.floor(random() * DAY_MS)).toISOString();
  const anyTime = () => at(Math.floor(random() * SPAN_DAYS));
  const nowText = now.toISOString();
  const policy = await db.selectFrom('license_policies').select('id').where('name', '=', 'SINGLE_HOST_PERPETUAL').executeTakeFirstOrThrow();

  const firstUser = ((await db.selectFrom('users').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst())?.id ?? 0) + 1;
  await insertBatches(
    db,
    'users',
    SIZES.users,
    (index) => {
      const created = anyTime();
      return {
        email: `bench-${index}@example.com`,
        password_hash: null,
        first_name: 'Bench',
        last_name: `User ${index}`,
        access_role: index < SIZES.distributors ? 'DISTRIBUTOR' : 'USER',
        opt_in_email: index % 3 === 0,
        confirmed: true,
        created_at: created,
        updated_at: created,
        last_login_at: random() < 0.6 ? at(Math.floor(random() * 730)) : null,
      };
    },
    1000,
    progress,
  );

  const products: number[] = [];
  for (let index = 0; index < SIZES.products; index++) {
    const row = await db
      .insertInto('products')
      .values({ name: `Bench Product ${index}`, version: '1.0', active: true, default_license_policy_id: policy.id, created_at: nowText, updated_at: nowText })
      .returning('id')
      .executeTakeFirstOrThrow();
    products.push(row.id);
  }

  const firstTan = ((await db.selectFrom('tans').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst())?.id ?? 0) + 1;
  const tanProduct = (index: number) => products[index % products.length];
  const tanCreated: string[] = [];
  await insertBatches(
    db,
    'tans',
    SIZES.tans,
    (index) => {
      const created = anyTime();
      tanCreated[index] = created;
      const used = index < SIZES.tanLicenses ? 1 : 0;
      return {
        code: index.toString(36).padStart(12, '0'),
        product_id: tanProduct(index),
        license_policy_id: null,
        license_count: 1,
        activated_count: used,
        distributor_id: index % 5 === 0 ? null : firstUser + (index % SIZES.distributors),
        revoked: false,
        free_updates_until: new Date(Date.parse(created) + 365 * DAY_MS).toISOString().slice(0, 10),
        notes: null,
        created_by: null,
        created_at: created,
        updated_at: created,
      };
    },
    1000,
    progress,
  );

  const machine = () => `MACHINE-${Math.floor(random() * 600_000)}`;
  const owner = () => firstUser + SIZES.distributors + Math.floor(random() * (SIZES.users - SIZES.distributors));
  const license = (kind: 'TAN' | 'TEMPORARY', productId: number, tanId: number | null, created: string, machineId: string) => ({
    kind,
    owner_id: owner(),
    product_id: productId,
    license_policy_id: policy.id,
    tan_id: tanId,
    machine_id: machineId,
    valid_until: kind === 'TEMPORARY' ? new Date(Date.parse(created) + 30 * DAY_MS).toISOString().slice(0, 10) : null,
    permanent: kind === 'TAN',
    revoked: false,
    free_updates_until: null,
    upgraded_to_id: null,
    created_at: created,
    updated_at: created,
  });
  const trialMachines = new Map<number, string[]>(products.map((id) => [id, []]));
  await insertBatches(
    db,
    'licenses',
    SIZES.temporaryLicenses,
    () => {
      const productId = products[Math.floor(random() * products.length)];
      const machineId = machine();
      trialMachines.get(productId)!.push(machineId);
      return license('TEMPORARY', productId, null, anyTime(), machineId);
    },
    1000,
    progress,
  );
  // Each TAN license comes after its TAN was made; a third of them on a machine that tried the product.
  await insertBatches(
    db,
    'licenses',
    SIZES.tanLicenses,
    (index) => {
      const created = new Date(Math.min(end, Date.parse(tanCreated[index]) + Math.floor(random() * 60 * DAY_MS))).toISOString();
      const tried = trialMachines.get(tanProduct(index))!;
      const machineId = random() < 1 / 3 ? tried[Math.floor(random() * tried.length)] : machine();
      return license('TAN', tanProduct(index), firstTan + index, created, machineId);
    },
    1000,
    progress,
  );

  const licenseIds = await db.selectFrom('licenses').select(['id', 'machine_id']).where('kind', '=', 'TAN').orderBy('id').limit(SIZES.lastSeen).execute();
  await insertBatches(
    db,
    'license_last_seen',
    licenseIds.length,
    (index) => ({ license_id: licenseIds[index].id, machine_id: licenseIds[index].machine_id!, last_seen_at: at(Math.floor(random() * 365)) }),
    1000,
    progress,
  );
}
