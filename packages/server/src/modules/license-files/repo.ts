import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.ts';
import type { Dialect } from '../../platform/db/database.ts';

/** A license with everything its file needs: product, policy, owner and TAN. */
export interface LicenseForFile {
  id: number;
  kind: 'TAN' | 'TEMPORARY';
  ownerId: number;
  productId: number;
  tanId: number | null;
  machineId: string | null;
  validUntil: string | null;
  permanent: boolean;
  revoked: boolean;
  freeUpdatesUntil: string | null;
  upgradedToId: number | null;
  createdAt: string;
  product: { name: string; version: string; releaseDate: string | null };
  policy: {
    type: 'INDEFINITE' | 'PERPETUAL' | 'FLOATING';
    licenseMaxValidDays: number;
    refetchIntervalSeconds: number;
    refetchBeforeExpirySeconds: number;
    maxDifferentMachinesCount: number;
    maxDifferentMachinesIntervalHours: number;
  };
  owner: { firstName: string; lastName: string; company: string | null };
  tan: { licenseCount: number; distributorId: number | null } | null;
}

/** The joined select of a license and what its file needs; client-protocol narrows it by machine. */
export function selectLicensesForFile(db: Executor) {
  return db
    .selectFrom('licenses as l')
    .innerJoin('products as p', 'p.id', 'l.product_id')
    .innerJoin('license_policies as pol', 'pol.id', 'l.license_policy_id')
    .innerJoin('users as u', 'u.id', 'l.owner_id')
    .leftJoin('tans as t', 't.id', 'l.tan_id')
    .select([
      'l.id',
      'l.kind',
      'l.owner_id',
      'l.product_id',
      'l.tan_id',
      'l.machine_id',
      'l.valid_until',
      'l.permanent',
      'l.revoked',
      'l.free_updates_until',
      'l.upgraded_to_id',
      'l.created_at',
      'p.name as product_name',
      'p.version as product_version',
      'p.release_date as product_release_date',
      'pol.type as policy_type',
      'pol.license_max_valid_days',
      'pol.refetch_interval_seconds',
      'pol.refetch_before_expiry_seconds',
      'pol.max_different_machines_count',
      'pol.max_different_machines_interval_hours',
      'u.first_name',
      'u.last_name',
      'u.company',
      't.license_count as tan_license_count',
      't.distributor_id as tan_distributor_id',
    ]);
}

type JoinedRow = Awaited<ReturnType<ReturnType<typeof selectLicensesForFile>['executeTakeFirstOrThrow']>>;

export function toLicenseForFile(row: JoinedRow): LicenseForFile {
  return {
    id: row.id,
    kind: row.kind,
    ownerId: row.owner_id,
    productId: row.product_id,
    tanId: row.tan_id,
    machineId: row.machine_id,
    validUntil: row.valid_until,
    permanent: Boolean(row.permanent),
    revoked: Boolean(row.revoked),
    freeUpdatesUntil: row.free_updates_until,
    upgradedToId: row.upgraded_to_id,
    createdAt: row.created_at,
    product: { name: row.product_name, version: row.product_version, releaseDate: row.product_release_date },
    policy: {
      type: row.policy_type,
      licenseMaxValidDays: row.license_max_valid_days,
      refetchIntervalSeconds: row.refetch_interval_seconds,
      refetchBeforeExpirySeconds: row.refetch_before_expiry_seconds,
      maxDifferentMachinesCount: row.max_different_machines_count,
      maxDifferentMachinesIntervalHours: row.max_different_machines_interval_hours,
    },
    owner: { firstName: row.first_name, lastName: row.last_name, company: row.company },
    tan: row.tan_id === null || row.tan_license_count === null ? null : { licenseCount: row.tan_license_count, distributorId: row.tan_distributor_id },
  };
}

export async function findLicenseForFile(db: Executor, id: number): Promise<LicenseForFile | undefined> {
  const row = await selectLicensesForFile(db).where('l.id', '=', id).executeTakeFirst();
  return row && toLicenseForFile(row);
}

export async function findProduct(db: Executor, id: number): Promise<{ id: number; name: string; version: string } | undefined> {
  return db.selectFrom('products').select(['id', 'name', 'version']).where('id', '=', id).executeTakeFirst();
}

/** The product's feature names, each replaced by its expand-to-features (transitively), sorted. */
export async function resolvedFeatureNames(db: Executor, productId: number): Promise<string[]> {
  const direct = await db
    .selectFrom('product_features as pf')
    .innerJoin('features as f', 'f.id', 'pf.feature_id')
    .select(['f.id', 'f.name'])
    .where('pf.product_id', '=', productId)
    .execute();
  const names = new Set<string>();
  const seen = new Set<number>();
  let frontier = direct;
  while (frontier.length) {
    const fresh = frontier.filter((feature) => !seen.has(feature.id));
    fresh.forEach((feature) => seen.add(feature.id));
    if (!fresh.length) break;
    const expansions = await db
      .selectFrom('feature_expansions as e')
      .innerJoin('features as f', 'f.id', 'e.expands_to_id')
      .select(['e.feature_id', 'f.id', 'f.name'])
      .where(
        'e.feature_id',
        'in',
        fresh.map((feature) => feature.id),
      )
      .execute();
    const expanded = new Set(expansions.map((row) => row.feature_id));
    for (const feature of fresh) if (!expanded.has(feature.id)) names.add(feature.name);
    frontier = expansions.map((row) => ({ id: row.id, name: row.name }));
  }
  return [...names].sort();
}

// ---------------------------------------------------------------------------------------------
// Floating seats

export interface SeatRow {
  machine_id: string;
  license_id: number;
  leased_until: string;
  renewed_at: string;
}

/** Serializes seat decisions of one pool across app instances (PostgreSQL); SQLite has one writer. */
export async function lockSeatPool(trx: Executor, dialect: Dialect, pool: string): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${`seat:${pool}`}))`.execute(trx);
}

export async function findSeat(db: Executor, pool: string, machineId: string): Promise<SeatRow | undefined> {
  return db.selectFrom('floating_seats').select(['machine_id', 'license_id', 'leased_until', 'renewed_at']).where('pool', '=', pool).where('machine_id', '=', machineId).executeTakeFirst();
}

export async function countLeasedSeats(db: Executor, pool: string, now: string, exceptMachineId: string): Promise<number> {
  const row = await db
    .selectFrom('floating_seats')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('pool', '=', pool)
    .where('leased_until', '>', now)
    .where('machine_id', '<>', exceptMachineId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function countMachinesSince(db: Executor, pool: string, since: string, exceptMachineId: string): Promise<number> {
  const row = await db
    .selectFrom('floating_seats')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('pool', '=', pool)
    .where('renewed_at', '>=', since)
    .where('machine_id', '<>', exceptMachineId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function upsertSeat(db: Executor, pool: string, seat: SeatRow): Promise<void> {
  await db
    .insertInto('floating_seats')
    .values({ pool, ...seat })
    .onConflict((conflict) =>
      conflict.columns(['pool', 'machine_id']).doUpdateSet({ license_id: seat.license_id, leased_until: seat.leased_until, renewed_at: seat.renewed_at }),
    )
    .execute();
}

/** Ends the lease of a machine now (released, or its license revoked). */
export async function endSeatLeases(db: Executor, where: { pool?: string; machineId?: string; licenseId?: number }, now: string): Promise<void> {
  let query = db.updateTable('floating_seats').set({ leased_until: now }).where('leased_until', '>', now);
  if (where.pool !== undefined) query = query.where('pool', '=', where.pool);
  if (where.machineId !== undefined) query = query.where('machine_id', '=', where.machineId);
  if (where.licenseId !== undefined) query = query.where('license_id', '=', where.licenseId);
  await query.execute();
}

// ---------------------------------------------------------------------------------------------
// Last seen

export interface LastSeen {
  licenseId: number;
  machineId: string;
  at: string;
}

/** Upserts many last-seen times in one statement; never moves a time backwards. */
export async function upsertLastSeen(db: Executor, rows: LastSeen[]): Promise<void> {
  if (!rows.length) return;
  await db
    .insertInto('license_last_seen')
    .values(rows.map((row) => ({ license_id: row.licenseId, machine_id: row.machineId, last_seen_at: row.at })))
    .onConflict((conflict) =>
      conflict
        .columns(['license_id', 'machine_id'])
        .doUpdateSet({ last_seen_at: (eb) => eb.ref('excluded.last_seen_at') })
        .whereRef('license_last_seen.last_seen_at', '<', 'excluded.last_seen_at'),
    )
    .execute();
}

export async function findLastSeen(db: Executor, licenseId: number): Promise<{ machine_id: string; last_seen_at: string }[]> {
  return db.selectFrom('license_last_seen').select(['machine_id', 'last_seen_at']).where('license_id', '=', licenseId).orderBy('machine_id').execute();
}
