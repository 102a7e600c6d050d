import { sql, type Selectable } from 'kysely';
import type { LicensePolicyFields, PolicyType } from '@lm/contract/license-policy';
import type { ListQuery } from '@lm/contract';
import type { Executor } from '../../platform/db/database.ts';
import type { LicensePoliciesTable } from '../../platform/db/schema.ts';
import { anyColumnContains, orderings, type StaffSearch } from '../../platform/db/search.ts';

export type LicensePolicyRow = Selectable<LicensePoliciesTable>;

const SORT_COLUMNS: Record<string, string> = {
  id: 'id',
  name: 'name',
  type: 'type',
  licenseMaxValidDays: 'license_max_valid_days',
  createdAt: 'created_at',
};
const SEARCH_COLUMNS = ['name', 'public_name'];

export async function listPolicyRows(db: Executor, query: ListQuery & StaffSearch & { type?: PolicyType }): Promise<{ rows: LicensePolicyRow[]; totalCount: number }> {
  let base = db.selectFrom('license_policies');
  if (query.filter) base = base.where((eb) => anyColumnContains(db, eb, query.searchNotes ? [...SEARCH_COLUMNS, 'notes'] : SEARCH_COLUMNS, query.filter!));
  if (query.type) base = base.where('type', '=', query.type);
  const count = await base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  let page = base.selectAll();
  for (const [column, direction] of orderings(query.sort, SORT_COLUMNS, [{ field: 'name', descending: false }], 'id')) {
    page = page.orderBy(sql.ref(column), direction);
  }
  const rows = await page.limit(query.limit).offset(query.offset).execute();
  return { rows, totalCount: Number(count.count) };
}

export function findPolicyRow(db: Executor, id: number): Promise<LicensePolicyRow | undefined> {
  return db.selectFrom('license_policies').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findPolicyIdByName(db: Executor, name: string): Promise<number | undefined> {
  const row = await db.selectFrom('license_policies').select('id').where('name', '=', name).executeTakeFirst();
  return row?.id;
}

function columns(fields: LicensePolicyFields) {
  return {
    name: fields.name,
    public_name: JSON.stringify(fields.publicName),
    type: fields.type,
    license_max_valid_days: fields.licenseMaxValidDays,
    refetch_interval_seconds: fields.refetchIntervalSeconds,
    refetch_before_expiry_seconds: fields.refetchBeforeExpirySeconds,
    max_different_machines_count: fields.maxDifferentMachinesCount,
    max_different_machines_interval_hours: fields.maxDifferentMachinesIntervalHours,
    max_borrow_days: fields.maxBorrowDays,
    beta_updates: fields.betaUpdates,
    seat_mode: fields.seatMode,
    seat_reassign_hours: fields.seatReassignHours,
    machines_per_user: fields.machinesPerUser,
    entitlements: JSON.stringify(fields.entitlements),
    overage_percent: fields.overagePercent,
    lease_mode: fields.leaseMode,
    lease_ttl_seconds: fields.leaseMode === 'INSTANCE' ? fields.leaseTtlSeconds : null,
    free_updates_period_days: fields.freeUpdatesPeriodDays,
    notes: fields.notes,
  };
}

export function insertPolicyRow(db: Executor, fields: LicensePolicyFields): Promise<LicensePolicyRow> {
  const now = new Date().toISOString();
  return db
    .insertInto('license_policies')
    .values({ ...columns(fields), created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updatePolicyRow(db: Executor, id: number, fields: LicensePolicyFields): Promise<LicensePolicyRow> {
  return db
    .updateTable('license_policies')
    .set({ ...columns(fields), updated_at: new Date().toISOString() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
