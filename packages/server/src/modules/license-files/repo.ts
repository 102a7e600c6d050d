import { sql } from 'kysely';
import { parseGrants, parseMetadata, type EntitlementGrant, type FeatureValue, type Metadata } from '@lm/contract/entitlement';
import type { Dialect, Executor } from '../../platform/db/database.ts';
import { PreparedQuery } from './prepared-query.ts';

export interface ProductRow {
  id: number;
  name: string;
  version: string;
  releaseDate: string | null;
  /** Default values of its features (migration 0033). */
  featureValues: Record<string, FeatureValue>;
}

export interface PolicyRow {
  id: number;
  type: 'INDEFINITE' | 'PERPETUAL' | 'FLOATING';
  licenseMaxValidDays: number;
  refetchIntervalSeconds: number;
  refetchBeforeExpirySeconds: number;
  maxDifferentMachinesCount: number;
  maxDifferentMachinesIntervalHours: number;
  maxBorrowDays: number;
  /** Migration 0033: grants over the product's features, and the soft limit in percent. */
  entitlements: EntitlementGrant[];
  overagePercent: number;
  /** INSTANCE: seats are leased by processes with the TAN (DESIGN.md section 6h), for leaseTtlSeconds. */
  leaseMode: 'MACHINE' | 'INSTANCE';
  leaseTtlSeconds: number | null;
}

/** A stored license and its owner's name. */
export interface LicenseRow {
  id: number;
  kind: 'TAN' | 'TEMPORARY';
  ownerId: number;
  productId: number;
  policyId: number;
  tanId: number | null;
  machineId: string | null;
  validUntil: string | null;
  permanent: boolean;
  revoked: boolean;
  freeUpdatesUntil: string | null;
  upgradedToId: number | null;
  /** Its TAN's suspension and validity (copies on the license, migration 0021). */
  suspended: boolean;
  tanValidUntil: string | null;
  /** The named-user seat a signed-in machine uses (migration 0028): its file names the licensee. */
  seatId: number | null;
  /** Bound to an install key by offline activation (DESIGN.md section 6h): its files name it. */
  installKeyId?: string | null;
  owner: { firstName: string; lastName: string; company: string | null };
  /**
   * A machine's lookup only: the end of the floating seat the machine holds for this license, live or
   * lapsed (null: none), read in the same statement so that a conditional refresh of a floating seat
   * needs no second round trip (seats.ts, renewSeatLater).
   */
  heldLeaseUntil?: string | null;
  /** Migration 0033: granted after the sale on the license, and its TAN's (copies). */
  grants: EntitlementGrant[];
  metadata: Metadata;
  tanGrants: EntitlementGrant[];
  tanMetadata: Metadata;
}

/** A license with everything its file needs. */
export interface LicenseForFile extends LicenseRow {
  product: ProductRow;
  policy: PolicyRow;
}

const LICENSE_COLUMNS = [
  'l.id',
  'l.kind',
  'l.owner_id',
  'l.product_id',
  'l.license_policy_id',
  'l.tan_id',
  'l.machine_id',
  'l.valid_until',
  'l.permanent',
  'l.revoked',
  'l.free_updates_until',
  'l.upgraded_to_id',
  'l.suspended',
  'l.tan_valid_until',
  'l.seat_id',
  'l.entitlements',
  'l.metadata',
  'l.tan_entitlements',
  'l.tan_metadata',
  'l.install_key_id',
  'u.first_name',
  'u.last_name',
  'u.company',
] as const;

const selectLicenseRows = (db: Executor) => db.selectFrom('licenses as l').innerJoin('users as u', 'u.id', 'l.owner_id').select(LICENSE_COLUMNS);
type RawLicenseRow = Awaited<ReturnType<ReturnType<typeof selectLicenseRows>['executeTakeFirstOrThrow']>>;

function toLicenseRow(row: RawLicenseRow, heldLeaseUntil?: string | null): LicenseRow {
  return {
    id: row.id,
    kind: row.kind,
    ownerId: row.owner_id,
    productId: row.product_id,
    policyId: row.license_policy_id,
    tanId: row.tan_id,
    machineId: row.machine_id,
    validUntil: row.valid_until,
    permanent: Boolean(row.permanent),
    revoked: Boolean(row.revoked),
    freeUpdatesUntil: row.free_updates_until,
    upgradedToId: row.upgraded_to_id,
    suspended: Boolean(row.suspended),
    tanValidUntil: row.tan_valid_until,
    seatId: row.seat_id,
    installKeyId: row.install_key_id,
    owner: { firstName: row.first_name, lastName: row.last_name, company: row.company },
    grants: parseGrants(row.entitlements),
    metadata: parseMetadata(row.metadata),
    tanGrants: parseGrants(row.tan_entitlements),
    tanMetadata: parseMetadata(row.tan_metadata),
    // Undefined when the query did not read the machine's lease (seats.ts then looks it up).
    heldLeaseUntil,
  };
}

const toProductRow = (row: { id: number; name: string; version: string; release_date: string | null; feature_values: string }): ProductRow => ({
  id: row.id,
  name: row.name,
  version: row.version,
  releaseDate: row.release_date,
  featureValues: parseMetadata(row.feature_values) as Record<string, FeatureValue>,
});

const POLICY_COLUMNS = [
  'id',
  'type',
  'license_max_valid_days',
  'refetch_interval_seconds',
  'refetch_before_expiry_seconds',
  'max_different_machines_count',
  'max_different_machines_interval_hours',
  'max_borrow_days',
  'entitlements',
  'overage_percent',
  'lease_mode',
  'lease_ttl_seconds',
] as const;

const toPolicyRow = (row: {
  id: number;
  type: PolicyRow['type'];
  license_max_valid_days: number;
  refetch_interval_seconds: number;
  refetch_before_expiry_seconds: number;
  max_different_machines_count: number;
  max_different_machines_interval_hours: number;
  max_borrow_days: number;
  entitlements: string;
  overage_percent: number;
  lease_mode: PolicyRow['leaseMode'];
  lease_ttl_seconds: number | null;
}): PolicyRow => ({
  id: row.id,
  type: row.type,
  licenseMaxValidDays: row.license_max_valid_days,
  refetchIntervalSeconds: row.refetch_interval_seconds,
  refetchBeforeExpirySeconds: row.refetch_before_expiry_seconds,
  maxDifferentMachinesCount: row.max_different_machines_count,
  maxDifferentMachinesIntervalHours: row.max_different_machines_interval_hours,
  maxBorrowDays: row.max_borrow_days,
  entitlements: parseGrants(row.entitlements),
  overagePercent: row.overage_percent,
  leaseMode: row.lease_mode,
  leaseTtlSeconds: row.lease_ttl_seconds === null ? null : Number(row.lease_ttl_seconds),
});

/** One license with its product, policy and the distributor of its TAN (for the download's permission check). */
export async function findLicenseForFile(db: Executor, id: number): Promise<{ license: LicenseForFile; distributorId: number | null } | undefined> {
  const row = await selectLicenseRows(db)
    .innerJoin('products as p', 'p.id', 'l.product_id')
    .innerJoin('license_policies as pol', 'pol.id', 'l.license_policy_id')
    .leftJoin('tans as t', 't.id', 'l.tan_id')
    .select(['p.name', 'p.version', 'p.release_date', 'p.feature_values', 't.distributor_id'])
    // Not pol.id: it would come back as `id` and overwrite the license's (l.license_policy_id is the same value).
    .select(POLICY_COLUMNS.filter((column) => column !== 'id' && column !== 'entitlements').map((column) => `pol.${column}` as const))
    // The policy's grants under another name: `entitlements` is the license's own.
    .select('pol.entitlements as policy_entitlements')
    .where('l.id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    license: {
      ...toLicenseRow(row),
      product: toProductRow({ id: row.product_id, name: row.name, version: row.version, release_date: row.release_date, feature_values: row.feature_values }),
      policy: toPolicyRow({ ...row, id: row.license_policy_id, entitlements: row.policy_entitlements }),
    },
    distributorId: row.distributor_id,
  };
}

// The limit is written into the SQL: with a bound LIMIT, SQLite took three times as long over each
// call of this join (20 against 7.5 µs, measured), apparently planning it again for every binding.
const machineLicenses = new PreparedQuery<RawLicenseRow & { held_lease_until: string | null }, { machineId: string }>(
  ['machineId'],
  (db, { machineId }) =>
    selectLicenseRows(db)
      // The seat's key as seats.ts names its pool (seatPool): the pool's primary key finds it.
      .leftJoin('floating_seats as fs', (join) =>
        join
          .onRef('fs.machine_id', '=', 'l.machine_id')
          .onRef('fs.license_id', '=', 'l.id')
          .on(sql<boolean>`fs.pool = case when l.tan_id is not null then 'tan:' || l.tan_id else 'license:' || l.id end`),
      )
      .select('fs.leased_until as held_lease_until')
      .where('l.machine_id', '=', machineId)
      .limit(sql.lit(100)),
  { readsCommitted: true },
);

/** Every license bound to a machine, whatever the product: one indexed lookup, compiled once. */
export async function findLicensesOfMachine(db: Executor, machineId: string): Promise<LicenseRow[]> {
  return (await machineLicenses.execute(db, { machineId })).map((row) => toLicenseRow(row, row.held_lease_until));
}

/** The whole (small) catalogue of products and policies, for the protocol's cache. */
export async function listProducts(db: Executor): Promise<ProductRow[]> {
  return (await db.selectFrom('products').select(['id', 'name', 'version', 'release_date', 'feature_values']).execute()).map(toProductRow);
}

export async function listPolicies(db: Executor): Promise<PolicyRow[]> {
  return (await db.selectFrom('license_policies').select(POLICY_COLUMNS).execute()).map(toPolicyRow);
}

/** How many seats a floating TAN has (read inside the seat transaction: always current). */
const tanLicenseCount = new PreparedQuery<{ license_count: number }, { tanId: number }>(['tanId'], (db, { tanId }) =>
  db.selectFrom('tans').select('license_count').where('id', '=', tanId),
);

export async function findTanLicenseCount(db: Executor, tanId: number): Promise<number> {
  const [row] = await tanLicenseCount.execute(db, { tanId });
  return row?.license_count ?? 0;
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
// Last seen

export interface LastSeen {
  licenseId: number;
  machineId: string;
  at: string;
}

/**
 * Upserts last-seen times, writing a row only when its day moves forward (the statistics count
 * days: a second contact on the same day changes nothing, and costs no write or trigger). The rows travel as one JSON parameter, so
 * that the statement's SQL is the same for any number of rows: SQLite prepares it once, and a batch
 * costs one statement instead of one per row.
 */
export async function upsertLastSeen(db: Executor, dialect: Dialect, rows: LastSeen[]): Promise<void> {
  if (!rows.length) return;
  const json = JSON.stringify(rows.map((row) => [row.licenseId, row.machineId, row.at]));
  const source =
    dialect === 'sqlite'
      ? // WHERE true: without it SQLite would read ON CONFLICT as part of the SELECT's join.
        sql`SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(${json}) WHERE true`
      : sql`SELECT (value ->> 0)::integer, value ->> 1, value ->> 2 FROM json_array_elements(${json}::json)`;
  await sql`INSERT INTO license_last_seen (license_id, machine_id, last_seen_at) ${source}
    ON CONFLICT (license_id, machine_id) DO UPDATE SET last_seen_at = excluded.last_seen_at
    WHERE substr(license_last_seen.last_seen_at, 1, 10) < substr(excluded.last_seen_at, 1, 10)`.execute(db);
}

export async function findLastSeen(db: Executor, licenseId: number): Promise<{ machine_id: string; last_seen_at: string }[]> {
  return db.selectFrom('license_last_seen').select(['machine_id', 'last_seen_at']).where('license_id', '=', licenseId).orderBy('machine_id').execute();
}
