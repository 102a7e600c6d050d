import { parseGrants, parseMetadata } from '@lm/contract/entitlement';
import { sql, type Expression, type ExpressionBuilder, type Selectable, type SqlBool } from 'kysely';
import { formatUserName, type ListResult } from '@lm/contract';
import { formatProductName } from '@lm/contract/product';
import { prefixUpperBound, type Tan, type TAN_SORT_FIELDS } from '@lm/contract/tan';
import type { Dialect, Executor } from '../../platform/db/database.ts';
import { boundedCount, filterColumn, inPageOrder, pageOfIds, planOf, type PageRequest, type Plan, type SortKey } from '../../platform/db/list-page.ts';
import type { DB, TansTable } from '../../platform/db/schema.ts';
import type { TanAttentionState } from '@lm/contract/dashboard';
import { attentionCondition } from './attention.ts';

export type TanRow = Selectable<TansTable>;

/** Rows per multi-row insert: well under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 1000;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}

/** A TAN with the names the list shows; tags are read separately for a page of TANs. */
function tanView(db: Executor) {
  return db
    .selectFrom('tans')
    .innerJoin('products', 'products.id', 'tans.product_id')
    .leftJoin('license_policies', 'license_policies.id', 'tans.license_policy_id')
    .leftJoin('license_policies as default_policy', 'default_policy.id', 'products.default_license_policy_id')
    .leftJoin('users as distributor', 'distributor.id', 'tans.distributor_id')
    .leftJoin('organizations', 'organizations.id', 'tans.organization_id')
    .select([
      'tans.id',
      'tans.code',
      'tans.product_id',
      'tans.license_policy_id',
      'tans.license_count',
      'tans.activated_count',
      'tans.distributor_id',
      'tans.organization_id',
      'organizations.name as organization_name',
      'tans.revoked',
      'tans.suspended',
      'tans.valid_until',
      'tans.free_updates_until',
      'tans.notes',
      'tans.entitlements',
      'tans.metadata',
      'tans.created_at',
      'tans.updated_at',
      'products.name as product_name',
      'products.version as product_version',
      'license_policies.name as policy_name',
      'license_policies.type as policy_type',
      'default_policy.type as default_policy_type',
      'distributor.first_name as distributor_first_name',
      'distributor.last_name as distributor_last_name',
      'distributor.company as distributor_company',
    ]);
}

type TanViewRow = Awaited<ReturnType<ReturnType<typeof tanView>['executeTakeFirstOrThrow']>>;

export function toTan(row: TanViewRow, tags: string[]): Tan {
  return {
    id: row.id,
    code: row.code,
    productId: row.product_id,
    productName: formatProductName({ name: row.product_name, version: row.product_version }),
    licensePolicyId: row.license_policy_id,
    licensePolicyName: row.policy_name,
    licenseCount: row.license_count,
    activatedCount: row.activated_count,
    distributorId: row.distributor_id,
    distributorName:
      row.distributor_id !== null && row.distributor_first_name !== null
        ? formatUserName({ firstName: row.distributor_first_name, lastName: row.distributor_last_name ?? '', company: row.distributor_company })
        : null,
    organization: row.organization_id !== null && row.organization_name !== null ? { id: row.organization_id, name: row.organization_name } : null,
    revoked: Boolean(row.revoked),
    suspended: Boolean(row.suspended),
    validUntil: row.valid_until,
    // The policy its licenses get: the TAN's, else the product's default, else the built-in indefinite one.
    policyType: row.policy_type ?? row.default_policy_type ?? 'INDEFINITE',
    freeUpdatesUntil: row.free_updates_until,
    tags,
    entitlements: parseGrants(row.entitlements),
    metadata: parseMetadata(row.metadata),
    notes: row.notes,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function tagsOf(db: Executor, tanIds: readonly number[]): Promise<Map<number, string[]>> {
  const byTan = new Map<number, string[]>(tanIds.map((id) => [id, []]));
  if (!tanIds.length) return byTan;
  for (const ids of chunks(tanIds)) {
    const rows = await db.selectFrom('tan_tags').select(['tan_id', 'tag']).where('tan_id', 'in', ids).orderBy('tag').execute();
    for (const row of rows) byTan.get(row.tan_id)?.push(row.tag);
  }
  return byTan;
}

export async function findTanView(db: Executor, id: number): Promise<Tan | undefined> {
  const row = await tanView(db).where('tans.id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  return toTan(row, (await tagsOf(db, [id])).get(id) ?? []);
}

/** Many TANs as the API returns them, by id (the events of a bulk creation). */
export async function findTanViews(db: Executor, ids: readonly number[]): Promise<Map<number, Tan>> {
  const result = new Map<number, Tan>();
  for (const part of chunks(ids)) {
    const rows = await tanView(db).where('tans.id', 'in', part).execute();
    const tags = await tagsOf(
      db,
      rows.map((row) => row.id),
    );
    for (const row of rows) result.set(row.id, toTan(row, tags.get(row.id) ?? []));
  }
  return result;
}

export interface TanListFilter {
  /** null: every TAN; otherwise only TANs of these distributors. */
  distributorIds: number[] | null;
  /** A normalized code prefix. */
  codePrefix?: string;
  tag?: string;
  revoked?: boolean;
  productId?: number;
  /** The TANs an organization claimed. */
  organizationId?: number;
  /** Only the TANs in this attention state (tans/attention.ts) on `today`. */
  state?: { name: TanAttentionState; today: string };
}

/** Each sort of the TAN list and its indexed key (migration 0011). */
const SORT_KEYS: Record<(typeof TAN_SORT_FIELDS)[number], SortKey> = {
  id: { sql: 'tans.id', numeric: true },
  code: { sql: 'tans.code', unique: true },
  createdAt: { sql: 'tans.created_at' },
  licenseCount: { sql: 'tans.license_count', numeric: true },
  activatedCount: { sql: 'tans.activated_count', numeric: true },
  freeUpdatesUntil: { sql: 'tans.free_updates_until', nullable: true },
};

/**
 * The list's conditions on the tans table, for the count and the page alike. The distributor scope
 * leads indexes of every sort key; the filters' columns follow the plan (platform/db/list-page.ts).
 */
function tanConditions(filter: TanListFilter, plan: Plan) {
  return (eb: ExpressionBuilder<DB, 'tans'>) => {
    const column = (name: string) => filterColumn(name, plan);
    const conditions: Expression<SqlBool>[] = [];
    if (filter.distributorIds) {
      conditions.push(filter.distributorIds.length ? eb('tans.distributor_id', 'in', filter.distributorIds) : sql<boolean>`1 = 0`);
    }
    if (filter.codePrefix !== undefined) {
      conditions.push(sql<SqlBool>`${column('tans.code')} >= ${filter.codePrefix}`);
      const upper = prefixUpperBound(filter.codePrefix);
      if (upper) conditions.push(sql<SqlBool>`${column('tans.code')} < ${upper}`);
    }
    if (filter.tag !== undefined) conditions.push(eb(column('tans.id'), 'in', eb.selectFrom('tan_tags').select('tan_tags.tan_id').where('tan_tags.tag', '=', filter.tag)));
    if (filter.revoked !== undefined) conditions.push(eb(column('tans.revoked'), '=', filter.revoked));
    if (filter.productId !== undefined) conditions.push(eb(column('tans.product_id'), '=', filter.productId));
    if (filter.organizationId !== undefined) conditions.push(eb(column('tans.organization_id'), '=', filter.organizationId));
    if (filter.state) conditions.push(attentionCondition(filter.state.name, filter.state.today));
    return eb.and(conditions);
  };
}

/**
 * A page of TANs (platform/db/list-page.ts): the count stops at the count limit, the page's ids come
 * from the index of its sort key (a code prefix is a range of the unique code index), and only the
 * page's rows are joined to their names.
 */
export async function listTans(db: Executor, dialect: Dialect, filter: TanListFilter, page: PageRequest<(typeof TAN_SORT_FIELDS)[number]>): Promise<ListResult<Tan>> {
  const defaultSort = { field: 'createdAt', descending: true } as const;
  const count = await boundedCount(db, (executor) => executor.selectFrom('tans').where(tanConditions(filter, { strategy: 'filter-first', dialect, sortKey: '' })), dialect, undefined, 'tans');
  const plan = planOf(dialect, count, SORT_KEYS, page.sort, defaultSort);
  const matches = (executor: Executor) => executor.selectFrom('tans').where(tanConditions(filter, plan));
  const { ids, nextCursor } = await pageOfIds({ db, dialect, strategy: plan.strategy, matches, id: 'tans.id', keys: SORT_KEYS, defaultSort }, page);
  const rows = ids.length ? inPageOrder(ids, await tanView(db).where('tans.id', 'in', ids).execute()) : [];
  const tags = await tagsOf(
    db,
    rows.map((row) => row.id),
  );
  return { items: rows.map((row) => toTan(row, tags.get(row.id) ?? [])), totalCount: count.totalCount, totalCountExact: count.totalCountExact, nextCursor };
}

export async function distinctTags(db: Executor, distributorIds: number[] | null): Promise<string[]> {
  let query = db.selectFrom('tan_tags').select('tan_tags.tag').distinct().orderBy('tan_tags.tag').limit(5000);
  if (distributorIds) {
    query = distributorIds.length
      ? query.where('tan_tags.tan_id', 'in', (eb) => eb.selectFrom('tans').select('tans.id').where('tans.distributor_id', 'in', distributorIds))
      : query.where(sql<boolean>`1 = 0`);
  }
  return (await query.execute()).map((row) => row.tag);
}

export async function existingCodes(db: Executor, codes: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of chunks(codes)) {
    for (const row of await db.selectFrom('tans').select('code').where('code', 'in', part).execute()) found.add(row.code);
  }
  return found;
}

export interface NewTan {
  code: string;
  productId: number;
  licensePolicyId: number | null;
  licenseCount: number;
  distributorId: number | null;
  freeUpdatesUntil: string | null;
  validUntil: string | null;
  notes: string | null;
  createdBy: number | null;
  /** JSON of its grants and metadata (migration 0033); none when left out. */
  entitlements?: string;
  metadata?: string;
}

/** Inserts many TANs with multi-row inserts; the caller's transaction makes it all or nothing. */
export async function insertTans(trx: Executor, tans: readonly NewTan[], now: string): Promise<TanRow[]> {
  const inserted: TanRow[] = [];
  for (const part of chunks(tans)) {
    const rows = await trx
      .insertInto('tans')
      .values(
        part.map((tan) => ({
          code: tan.code,
          product_id: tan.productId,
          license_policy_id: tan.licensePolicyId,
          license_count: tan.licenseCount,
          activated_count: 0,
          distributor_id: tan.distributorId,
          revoked: false,
          free_updates_until: tan.freeUpdatesUntil,
          valid_until: tan.validUntil,
          notes: tan.notes,
          entitlements: tan.entitlements ?? '[]',
          metadata: tan.metadata ?? '{}',
          created_by: tan.createdBy,
          created_at: now,
          updated_at: now,
        })),
      )
      .returningAll()
      .execute();
    inserted.push(...rows);
  }
  return inserted;
}

export async function insertTags(trx: Executor, tanIds: readonly number[], tags: readonly string[]): Promise<void> {
  if (!tags.length) return;
  const rows = tanIds.flatMap((tanId) => tags.map((tag) => ({ tan_id: tanId, tag })));
  for (const part of chunks(rows)) await trx.insertInto('tan_tags').values(part).execute();
}

export async function replaceTags(trx: Executor, tanId: number, tags: readonly string[]): Promise<void> {
  await trx.deleteFrom('tan_tags').where('tan_id', '=', tanId).execute();
  await insertTags(trx, [tanId], tags);
}

export type TanUpdateValues = Pick<TansTable, 'product_id' | 'license_policy_id' | 'license_count' | 'distributor_id' | 'free_updates_until' | 'notes'> & {
  entitlements?: string;
  metadata?: string;
  revoked: boolean;
  suspended: boolean;
  valid_until: string | null;
};

/** Updates a TAN; its licenses' copy of its distributor (migration 0018) follows in the same transaction. */
export async function updateTan(trx: Executor, id: number, values: TanUpdateValues, now: string): Promise<TanRow> {
  const row = await trx.updateTable('tans').set({ ...values, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  await trx.updateTable('licenses').set({ distributor_id: row.distributor_id }).where('tan_id', '=', id).where('distributor_id', 'is distinct from', row.distributor_id).execute();
  return row;
}

// References a TAN holds, checked before writing (the catalogue and users modules own these tables).

export function findUserRole(db: Executor, id: number) {
  return db.selectFrom('users').select(['id', 'access_role']).where('id', '=', id).executeTakeFirst();
}
