import { sql, type Selectable } from 'kysely';
import type { DownloadLink, ProductFields } from '@lm/contract/product';
import type { ListQuery } from '@lm/contract';
import type { Executor } from '../../platform/db/database.ts';
import type { ProductsTable } from '../../platform/db/schema.ts';
import { anyColumnContains, orderings, type StaffSearch } from '../../platform/db/search.ts';

export type ProductRow = Selectable<ProductsTable>;

const SORT_COLUMNS: Record<string, string> = {
  id: 'products.id',
  name: 'products.name',
  version: 'products.version',
  active: 'products.active',
  releaseDate: 'products.release_date',
  createdAt: 'products.created_at',
};
const SEARCH_COLUMNS = ['products.name', 'products.version'];

export interface ProductRowFilter extends ListQuery, StaffSearch {
  active?: boolean;
  ids?: number[];
  /** Each entry: the feature ids of which a product must have at least one. */
  featureIdSets?: number[][];
}

export async function listProductRows(db: Executor, query: ProductRowFilter): Promise<{ rows: ProductRow[]; totalCount: number }> {
  let base = db.selectFrom('products');
  if (query.filter) base = base.where((eb) => anyColumnContains(db, eb, query.searchNotes ? [...SEARCH_COLUMNS, 'products.notes'] : SEARCH_COLUMNS, query.filter!));
  if (query.active !== undefined) base = base.where('products.active', '=', query.active);
  if (query.ids) base = base.where('products.id', 'in', query.ids.length ? query.ids : [0]);
  for (const ids of query.featureIdSets ?? []) {
    base = base.where((eb) =>
      eb.exists(
        eb
          .selectFrom('product_features')
          .select(sql.lit(1).as('one'))
          .whereRef('product_features.product_id', '=', 'products.id')
          .where('product_features.feature_id', 'in', ids.length ? ids : [0]),
      ),
    );
  }
  const count = await base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  let page = base.selectAll('products');
  const fallback = [
    { field: 'name', descending: false },
    { field: 'version', descending: false },
  ];
  for (const [column, direction] of orderings(query.sort, SORT_COLUMNS, fallback, 'products.id')) page = page.orderBy(sql.ref(column), direction);
  const rows = await page.limit(query.limit).offset(query.offset).execute();
  return { rows, totalCount: Number(count.count) };
}

export function findProductRow(db: Executor, id: number): Promise<ProductRow | undefined> {
  return db.selectFrom('products').selectAll().where('id', '=', id).executeTakeFirst();
}

export function productRowsNamed(db: Executor, name: string): Promise<ProductRow[]> {
  return db.selectFrom('products').selectAll().where('name', '=', name).execute();
}

export async function findProductIdByNameAndVersion(db: Executor, name: string, version: string): Promise<number | undefined> {
  const row = await db.selectFrom('products').select('id').where('name', '=', name).where('version', '=', version).executeTakeFirst();
  return row?.id;
}

/** Feature names of each product, sorted. */
export async function featureNamesOf(db: Executor, productIds: readonly number[]): Promise<Map<number, string[]>> {
  const result = new Map<number, string[]>(productIds.map((id) => [id, []]));
  if (productIds.length === 0) return result;
  const rows = await db
    .selectFrom('product_features')
    .innerJoin('features', 'features.id', 'product_features.feature_id')
    .select(['product_features.product_id', 'features.name'])
    .where('product_features.product_id', 'in', [...productIds])
    .orderBy('features.name')
    .execute();
  for (const row of rows) result.get(row.product_id)!.push(row.name);
  return result;
}

export async function downloadLinksOf(db: Executor, productIds: readonly number[]): Promise<Map<number, DownloadLink[]>> {
  const result = new Map<number, DownloadLink[]>(productIds.map((id) => [id, []]));
  if (productIds.length === 0) return result;
  const rows = await db
    .selectFrom('product_download_links')
    .select(['product_id', 'type', 'url'])
    .where('product_id', 'in', [...productIds])
    .orderBy('product_id')
    .orderBy('position')
    .orderBy('id')
    .execute();
  for (const row of rows) result.get(row.product_id)!.push({ type: row.type, url: row.url });
  return result;
}

function columns(fields: ProductFields) {
  return {
    name: fields.name,
    version: fields.version,
    active: fields.active,
    trial_days: fields.trialDays,
    repeat_trial_after_months: fields.repeatTrialAfterMonths,
    ignore_trials_before: fields.ignoreTrialsBefore,
    release_date: fields.releaseDate,
    default_license_policy_id: fields.defaultLicensePolicyId,
    feature_values: JSON.stringify(fields.featureValues),
    notes: fields.notes,
  };
}

export function insertProductRow(db: Executor, fields: ProductFields): Promise<ProductRow> {
  const now = new Date().toISOString();
  return db
    .insertInto('products')
    .values({ ...columns(fields), created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateProductRow(db: Executor, id: number, fields: ProductFields): Promise<ProductRow> {
  return db
    .updateTable('products')
    .set({ ...columns(fields), updated_at: new Date().toISOString() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function replaceProductFeatures(db: Executor, productId: number, featureIds: readonly number[]): Promise<void> {
  await db.deleteFrom('product_features').where('product_id', '=', productId).execute();
  if (featureIds.length) {
    await db
      .insertInto('product_features')
      .values(featureIds.map((featureId) => ({ product_id: productId, feature_id: featureId })))
      .execute();
  }
}

export async function replaceDownloadLinks(db: Executor, productId: number, links: readonly DownloadLink[]): Promise<void> {
  await db.deleteFrom('product_download_links').where('product_id', '=', productId).execute();
  if (links.length) {
    await db
      .insertInto('product_download_links')
      .values(links.map((link, position) => ({ product_id: productId, type: link.type, url: link.url, position })))
      .execute();
  }
}

export async function deleteProductRow(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('products').where('id', '=', id).execute();
}

/** How many TANs and licenses refer to a product: such a product cannot be deleted. */
export async function productUsage(db: Executor, id: number): Promise<{ tans: number; licenses: number }> {
  const tans = await db.selectFrom('tans').select((eb) => eb.fn.countAll<number>().as('count')).where('product_id', '=', id).executeTakeFirstOrThrow();
  const licenses = await db.selectFrom('licenses').select((eb) => eb.fn.countAll<number>().as('count')).where('product_id', '=', id).executeTakeFirstOrThrow();
  return { tans: Number(tans.count), licenses: Number(licenses.count) };
}

