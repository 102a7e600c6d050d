import { sql, type Expression, type ExpressionBuilder, type Selectable, type SqlBool } from 'kysely';
import type { LICENSE_SORT_FIELDS } from '@lm/contract/license';
import type { Dialect, Executor } from '../../platform/db/database.ts';
import { boundedCount, filterColumn, inPageOrder, pageOfIds, planOf, type PageRequest, type Plan, type SortKey } from '../../platform/db/list-page.ts';
import { forShare, forUpdate, lockKey } from '../../platform/db/dialect.ts';
import type { DB, LicensesTable } from '../../platform/db/schema.ts';

export type LicenseRow = Selectable<LicensesTable>;

/** A license with its product, policy, TAN and owner: what the cards and the permission rules need. */
export function licenseView(db: Executor) {
  return db
    .selectFrom('licenses')
    .innerJoin('products', 'products.id', 'licenses.product_id')
    .innerJoin('license_policies', 'license_policies.id', 'licenses.license_policy_id')
    .innerJoin('users as owner', 'owner.id', 'licenses.owner_id')
    .leftJoin('tans', 'tans.id', 'licenses.tan_id')
    .leftJoin('organizations', 'organizations.id', 'licenses.organization_id')
    .select([
      'licenses.id',
      'licenses.kind',
      'licenses.owner_id',
      'licenses.product_id',
      'licenses.license_policy_id',
      'licenses.tan_id',
      'licenses.machine_id',
      'licenses.valid_until',
      'licenses.permanent',
      'licenses.revoked',
      'licenses.free_updates_until',
      'licenses.upgraded_to_id',
      'licenses.upgraded_from_id',
      'licenses.suspended',
      'licenses.tan_valid_until',
      'licenses.organization_id',
      'organizations.name as organization_name',
      'licenses.created_at',
      'licenses.updated_at',
      'products.name as product_name',
      'products.version as product_version',
      'products.active as product_active',
      'products.release_date as product_release_date',
      'products.trial_days as product_trial_days',
      'license_policies.name as policy_name',
      'license_policies.type as policy_type',
      'license_policies.public_name as policy_public_name',
      'license_policies.max_different_machines_count',
      'license_policies.max_different_machines_interval_hours',
      'tans.code as tan_code',
      'tans.distributor_id',
      'tans.created_at as tan_created_at',
      'tans.free_updates_until as tan_free_updates_until',
      'owner.email as owner_email',
      'owner.first_name as owner_first_name',
      'owner.last_name as owner_last_name',
      'owner.company as owner_company',
      // A shop subscription's TAN (an indexed look at its orders): only then is its end "renewed with each payment".
      (eb) =>
        eb
          .exists(eb.selectFrom('shop_orders').select('shop_orders.id').whereRef('shop_orders.tan_id', '=', 'licenses.tan_id').where('shop_orders.subscription_ref', 'is not', null))
          .as('tan_subscription'),
    ]);
}

export type LicenseViewRow = Awaited<ReturnType<ReturnType<typeof licenseView>['executeTakeFirstOrThrow']>>;

export function findLicenseView(db: Executor, id: number): Promise<LicenseViewRow | undefined> {
  return licenseView(db).where('licenses.id', '=', id).executeTakeFirst();
}

export interface LicenseListFilter {
  ownerId?: number;
  tanId?: number;
  /** The licenses an organization owns (staff). */
  organizationId?: number;
  /** null: no restriction; otherwise only licenses from TANs of these distributors. */
  distributorIds: number[] | null;
  /** Lowercased text matched in the machine id, and without dashes in the TAN code. */
  text?: string;
  /**
   * The staff's search across accounts (`scope=all`): each an indexed lookup, any of them matching:
   * the exact machine id, a TAN code prefix, the accounts the user search found.
   */
  staffSearch?: { machineIds: string[]; tanCodeRange: { from: string; to: string | null } | null; ownerIds: number[] };
  /** Only licenses an offline machine can use today. */
  usableOn?: string;
}

/** Each sort of the license list and its indexed key (migration 0011: after the account's id). */
const SORT_KEYS: Record<(typeof LICENSE_SORT_FIELDS)[number], SortKey> = {
  id: { sql: 'licenses.id', numeric: true },
  createdAt: { sql: 'licenses.created_at' },
  machineId: { sql: 'licenses.machine_id', nullable: true },
  validUntil: { sql: 'licenses.valid_until', nullable: true },
  freeUpdatesUntil: { sql: 'licenses.free_updates_until', nullable: true },
};

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

/**
 * The list's conditions on the licenses table, for the count and the page alike. The account (or
 * TAN) scope leads the indexes; the other filters' columns follow the plan (platform/db/list-page.ts).
 */
function licenseConditions(filter: LicenseListFilter, plan: Plan) {
  return (eb: ExpressionBuilder<DB, 'licenses'>) => {
    const column = (name: string) => filterColumn(name, plan);
    const conditions: Expression<SqlBool>[] = [];
    if (filter.ownerId !== undefined) conditions.push(eb('licenses.owner_id', '=', filter.ownerId));
    if (filter.tanId !== undefined) conditions.push(eb('licenses.tan_id', '=', filter.tanId));
    if (filter.organizationId !== undefined) conditions.push(eb(column('licenses.organization_id'), '=', filter.organizationId));
    if (filter.distributorIds) {
      // Across accounts the distributor is the scope that leads the indexes (migration 0022); within one, a filter.
      const distributor = filter.ownerId === undefined && filter.tanId === undefined ? sql.ref('licenses.distributor_id') : column('licenses.distributor_id');
      conditions.push(filter.distributorIds.length ? eb(distributor, 'in', filter.distributorIds) : sql<boolean>`1 = 0`);
    }
    if (filter.text) {
      const machinePattern = `%${escapeLike(filter.text)}%`;
      const codePattern = `%${escapeLike(filter.text.replace(/-/g, ''))}%`;
      conditions.push(
        eb.or([eb(sql`lower(licenses.machine_id)`, 'like', sql`${machinePattern} escape '\\'`), eb('licenses.tan_code', 'like', sql<string>`${codePattern} escape '\\'`)]),
      );
    }
    if (filter.staffSearch) {
      const { machineIds, tanCodeRange, ownerIds } = filter.staffSearch;
      const any: Expression<SqlBool>[] = [eb('licenses.machine_id', 'in', machineIds)];
      if (tanCodeRange) {
        any.push(eb.and([eb('licenses.tan_code', '>=', tanCodeRange.from), ...(tanCodeRange.to ? [eb('licenses.tan_code', '<', tanCodeRange.to)] : [])]));
      }
      if (ownerIds.length) any.push(eb('licenses.owner_id', 'in', ownerIds));
      conditions.push(eb.or(any));
    }
    if (filter.usableOn) {
      conditions.push(eb(column('licenses.revoked'), '=', false), eb(column('licenses.upgraded_to_id'), 'is', null));
      conditions.push(eb.or([eb(column('licenses.permanent'), '=', true), eb(column('licenses.valid_until'), 'is', null), eb(column('licenses.valid_until'), '>=', filter.usableOn)]));
    }
    return eb.and(conditions);
  };
}

/**
 * A page of licenses (platform/db/list-page.ts): always of one account or one TAN, whose index leads
 * each sort key's; only the page's rows are joined to their product, policy, TAN and owner.
 */
export async function listLicenses(db: Executor, dialect: Dialect, filter: LicenseListFilter, page: PageRequest<(typeof LICENSE_SORT_FIELDS)[number]>) {
  const defaultSort = { field: 'createdAt', descending: true } as const;
  const count = await boundedCount(db, (executor) => executor.selectFrom('licenses').where(licenseConditions(filter, { strategy: 'filter-first', dialect, sortKey: '' })), dialect, undefined, 'licenses');
  const plan = planOf(dialect, count, SORT_KEYS, page.sort, defaultSort);
  const matches = (executor: Executor) => executor.selectFrom('licenses').where(licenseConditions(filter, plan));
  const { ids, nextCursor } = await pageOfIds({ db, dialect, strategy: plan.strategy, matches, id: 'licenses.id', keys: SORT_KEYS, defaultSort }, page);
  const rows = ids.length ? inPageOrder(ids, await licenseView(db).where('licenses.id', 'in', ids).execute()) : [];
  return { rows, totalCount: count.totalCount, totalCountExact: count.totalCountExact, nextCursor };
}

/**
 * Makes the decisions about one machine's licenses of one product (activation, temporary license,
 * change machine, upgrade, a license becoming live again) take turns until the transaction ends, so
 * that each sees the licenses the others made: without it, two activations of different TANs on
 * PostgreSQL both found the machine free and both inserted. A unique index cannot hold this rule on
 * its own, because a temporary license stops counting when its last day has passed.
 */
export async function lockMachineLicenses(trx: Executor, machineId: string, productId: number): Promise<void> {
  await lockKey(trx, `machine-licenses:${productId}:${machineId}`);
}

/**
 * Locks the TAN a license came from for reading (a TAN's change waits) until the transaction ends.
 * A change that writes a license from its TAN takes this before the license's own lock
 * (lockLicenseRow): a change of the TAN takes the TAN and then its licenses (tans/repo.ts
 * updateTan), and taken the other way round PostgreSQL ended one of the two as a deadlock.
 */
export async function lockTanOfLicense(trx: Executor, licenseId: number): Promise<void> {
  const license = await trx.selectFrom('licenses').select('tan_id').where('id', '=', licenseId).executeTakeFirst();
  if (license?.tan_id != null) await forShare(trx, trx.selectFrom('tans').select('id').where('id', '=', license.tan_id)).execute();
}

/**
 * Locks a license's row until the transaction ends: the changes of one license (move, change
 * machine, extend, revoke, upgrade, delete) run one after another, each on the row the previous left.
 */
export async function lockLicenseRow(trx: Executor, id: number): Promise<void> {
  await forUpdate(trx, trx.selectFrom('licenses').select('id').where('id', '=', id)).execute();
}

/**
 * Whether the machine already holds a live license for the product: not revoked, not upgraded, and
 * for a temporary license not ended. `kinds` says which kinds count; `except` skips one license.
 */
export async function machineHoldsLicense(
  db: Executor,
  machineId: string,
  productId: number,
  options: { kinds: readonly LicenseRow['kind'][]; today: string; except?: number },
): Promise<boolean> {
  let query = db
    .selectFrom('licenses')
    .select('licenses.id')
    .where('licenses.machine_id', '=', machineId)
    .where('licenses.product_id', '=', productId)
    .where('licenses.revoked', '=', false)
    .where('licenses.upgraded_to_id', 'is', null)
    .where('licenses.kind', 'in', [...options.kinds])
    .where((eb) => eb.or([eb('licenses.kind', '=', 'TAN'), eb('licenses.valid_until', 'is', null), eb('licenses.valid_until', '>=', options.today)]));
  if (options.except !== undefined) query = query.where('licenses.id', '!=', options.except);
  return Boolean(await query.limit(1).executeTakeFirst());
}

/** The machines the licenses of a TAN were bound to since a time (activation window). */
export async function tanMachineBindings(db: Executor, tanId: number, since: string) {
  const rows = await db
    .selectFrom('license_machines')
    .innerJoin('licenses', 'licenses.id', 'license_machines.license_id')
    .select(['license_machines.machine_id', 'license_machines.bound_at'])
    .where('licenses.tan_id', '=', tanId)
    .where('license_machines.bound_at', '>', since)
    .execute();
  return rows.map((row) => ({ machineId: row.machine_id, boundAt: row.bound_at }));
}

/** The machines one license was bound to since a time (change-machine window). */
export async function licenseMachineBindings(db: Executor, licenseId: number, since: string) {
  const rows = await db
    .selectFrom('license_machines')
    .select(['machine_id', 'bound_at'])
    .where('license_id', '=', licenseId)
    .where('bound_at', '>', since)
    .execute();
  return rows.map((row) => ({ machineId: row.machine_id, boundAt: row.bound_at }));
}

export async function bindMachine(trx: Executor, licenseId: number, machineId: string, now: string): Promise<void> {
  await trx.insertInto('license_machines').values({ license_id: licenseId, machine_id: machineId, bound_at: now }).execute();
}

/** Migration 0033: a license's grants and metadata, and copies of its TAN's (none when left out). */
type GrantColumns = 'entitlements' | 'metadata' | 'tan_entitlements' | 'tan_metadata';

export type NewLicense = Omit<
  LicenseRow,
  'id' | 'created_at' | 'updated_at' | 'upgraded_to_id' | 'upgraded_from_id' | 'permanent' | 'revoked' | 'distributor_id' | 'suspended' | 'tan_valid_until' | 'organization_id' | 'seat_id' | GrantColumns | 'install_key_id' | 'install_public_key' | 'offline_file_issued_at'
> & {
  permanent?: boolean;
  entitlements?: string;
  metadata?: string;
  upgraded_from_id?: number;
  /** The named-user seat a signed-in machine uses (DESIGN.md 6f); the organization is the TAN's. */
  seat_id?: number | null;
};

/**
 * Inserts a license with its TAN's distributor (migration 0018), suspension and validity (0021). The TAN's row is read under a share
 * lock: a change of the TAN's distributor running meanwhile either passes its new distributor to this
 * license too (it waits for this transaction) or has committed before this read.
 */
export async function insertLicense(trx: Executor, license: NewLicense, now: string): Promise<LicenseRow> {
  const tan =
    license.tan_id === null
      ? undefined
      : await forShare(trx, trx.selectFrom('tans').select(['distributor_id', 'suspended', 'valid_until', 'organization_id', 'entitlements', 'metadata']).where('id', '=', license.tan_id)).executeTakeFirst();
  return trx
    .insertInto('licenses')
    .values({
      ...license,
      distributor_id: tan?.distributor_id ?? null,
      suspended: Boolean(tan?.suspended),
      tan_valid_until: tan?.valid_until ?? null,
      organization_id: tan?.organization_id ?? null,
      seat_id: license.seat_id ?? null,
      tan_entitlements: tan?.entitlements ?? '[]',
      tan_metadata: tan?.metadata ?? '{}',
      permanent: license.permanent ?? false,
      revoked: false,
      upgraded_to_id: null,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export type LicenseChanges = Partial<Pick<LicenseRow, 'owner_id' | 'machine_id' | 'valid_until' | 'permanent' | 'revoked' | 'upgraded_to_id' | 'free_updates_until'>>;

export async function updateLicense(trx: Executor, id: number, changes: LicenseChanges, now: string): Promise<LicenseRow> {
  return trx
    .updateTable('licenses')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The live floating seats of licenses (a page's), by license. */
export async function liveSeatsOf(db: Executor, licenseIds: readonly number[], now: string) {
  if (!licenseIds.length) return [];
  return db
    .selectFrom('floating_seats')
    .select(['license_id', 'leased_until', 'borrowed_until'])
    .where('license_id', 'in', [...licenseIds])
    .where('leased_until', '>', now)
    .execute();
}

export function findLicenseRow(db: Executor, id: number): Promise<LicenseRow | undefined> {
  return db.selectFrom('licenses').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function deleteLicense(trx: Executor, id: number): Promise<void> {
  await trx.updateTable('license_trials').set({ license_id: null }).where('license_id', '=', id).execute();
  await trx.updateTable('licenses').set({ upgraded_to_id: null }).where('upgraded_to_id', '=', id).execute();
  await trx.deleteFrom('licenses').where('id', '=', id).execute();
}

/** The licenses of a TAN that still follow its free-updates date (not upgraded away). */
export function licensesFollowingTan(db: Executor, tanId: number) {
  return db
    .selectFrom('licenses')
    .select(['id', 'free_updates_until'])
    .where('tan_id', '=', tanId)
    .where('upgraded_to_id', 'is', null)
    .execute();
}

/** The licenses of a TAN with what a change of the TAN passes on to them. */
export function licensesOfTan(db: Executor, tanId: number) {
  return db.selectFrom('licenses').select(['id', 'suspended', 'tan_valid_until', 'revoked']).where('tan_id', '=', tanId).orderBy('id').execute();
}

/** Gives licenses their TAN's suspension and validity (copies, migration 0021). */
export async function setTanState(trx: Executor, ids: readonly number[], state: { suspended: boolean; validUntil: string | null }, now: string): Promise<void> {
  for (let start = 0; start < ids.length; start += 1000) {
    await trx
      .updateTable('licenses')
      .set({ suspended: state.suspended, tan_valid_until: state.validUntil, updated_at: now })
      .where('id', 'in', ids.slice(start, start + 1000))
      .execute();
  }
}

export async function revokeLicenses(trx: Executor, ids: readonly number[], now: string): Promise<void> {
  for (let start = 0; start < ids.length; start += 1000) {
    await trx
      .updateTable('licenses')
      .set({ revoked: true, updated_at: now })
      .where('id', 'in', ids.slice(start, start + 1000))
      .execute();
  }
}

export async function setFreeUpdates(trx: Executor, ids: readonly number[], freeUpdatesUntil: string, now: string): Promise<void> {
  for (let start = 0; start < ids.length; start += 1000) {
    await trx
      .updateTable('licenses')
      .set({ free_updates_until: freeUpdatesUntil, updated_at: now })
      .where('id', 'in', ids.slice(start, start + 1000))
      .execute();
  }
}

// Trials (trials-repo.ts), here too for the modules that read them from the licenses' repo.
export { recordTrial, trialStarts } from './trials-repo.ts';

// Catalogue rows the licensing rules read (the catalogue module owns these tables).

export function findProductForLicensing(db: Executor, id: number) {
  return db
    .selectFrom('products')
    .select(['id', 'name', 'version', 'active', 'trial_days', 'repeat_trial_after_months', 'ignore_trials_before', 'release_date', 'default_license_policy_id'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findPolicy(db: Executor, id: number) {
  return db.selectFrom('license_policies').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findPolicyByName(db: Executor, name: string) {
  return db.selectFrom('license_policies').selectAll().where('name', '=', name).executeTakeFirst();
}

/** Every version of the named products, for the free-upgrade offers of a page of licenses. */
export async function productVersions(db: Executor, names: readonly string[]) {
  if (!names.length) return [];
  const rows = await db.selectFrom('products').select(['id', 'name', 'version', 'active', 'release_date']).where('name', 'in', [...names]).execute();
  return rows.map((row) => ({ id: row.id, name: row.name, version: row.version, active: Boolean(row.active), releaseDate: row.release_date }));
}

export function activeProducts(db: Executor) {
  return db
    .selectFrom('products')
    .select(['id', 'name', 'version', 'trial_days'])
    .where('active', '=', true)
    .where('trial_days', 'is not', null)
    .orderBy('name')
    .orderBy('version')
    .limit(1000)
    .execute();
}
