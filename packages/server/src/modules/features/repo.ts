import { sql, type Selectable } from 'kysely';
import type { ListQuery } from '@lm/contract';
import type { Executor } from '../../platform/db/database.ts';
import type { FeaturesTable } from '../../platform/db/schema.ts';
import { anyColumnContains, orderings, type StaffSearch } from '../../platform/db/search.ts';

export type FeatureRow = Selectable<FeaturesTable>;

const SORT_COLUMNS: Record<string, string> = { id: 'features.id', name: 'features.name', hidden: 'features.hidden', createdAt: 'features.created_at' };
const SEARCH_COLUMNS = ['features.name', 'features.localized_description'];

export async function listFeatureRows(db: Executor, query: ListQuery & StaffSearch): Promise<{ rows: FeatureRow[]; totalCount: number }> {
  let base = db.selectFrom('features');
  if (query.filter) base = base.where((eb) => anyColumnContains(db, eb, query.searchNotes ? [...SEARCH_COLUMNS, 'features.notes'] : SEARCH_COLUMNS, query.filter!));
  const count = await base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  let page = base.selectAll('features');
  for (const [column, direction] of orderings(query.sort, SORT_COLUMNS, [{ field: 'name', descending: false }], 'features.id')) {
    page = page.orderBy(sql.ref(column), direction);
  }
  const rows = await page.limit(query.limit).offset(query.offset).execute();
  return { rows, totalCount: Number(count.count) };
}

export function findFeatureRow(db: Executor, id: number): Promise<FeatureRow | undefined> {
  return db.selectFrom('features').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Feature ids by name for the names that exist. */
export async function featureIdsByName(db: Executor, names: readonly string[]): Promise<Map<string, number>> {
  if (names.length === 0) return new Map();
  const rows = await db.selectFrom('features').select(['id', 'name']).where('name', 'in', [...names]).execute();
  return new Map(rows.map((row) => [row.name, row.id]));
}

export async function findFeatureIdByName(db: Executor, name: string): Promise<number | undefined> {
  const row = await db.selectFrom('features').select('id').where('name', '=', name).executeTakeFirst();
  return row?.id;
}

/** The expansion targets of the given features, by feature id, target names sorted. */
export async function expansionsOf(db: Executor, featureIds: readonly number[]): Promise<Map<number, string[]>> {
  const result = new Map<number, string[]>(featureIds.map((id) => [id, []]));
  if (featureIds.length === 0) return result;
  const rows = await db
    .selectFrom('feature_expansions')
    .innerJoin('features', 'features.id', 'feature_expansions.expands_to_id')
    .select(['feature_expansions.feature_id', 'features.name'])
    .where('feature_expansions.feature_id', 'in', [...featureIds])
    .orderBy('features.name')
    .execute();
  for (const row of rows) result.get(row.feature_id)!.push(row.name);
  return result;
}

/** Every expansion in the catalogue as name → target names (the graph is small: at most a few thousand features). */
export async function expansionGraph(db: Executor): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom('feature_expansions')
    .innerJoin('features as source', 'source.id', 'feature_expansions.feature_id')
    .innerJoin('features as target', 'target.id', 'feature_expansions.expands_to_id')
    .select(['source.name as source', 'target.name as target'])
    .execute();
  const graph = new Map<string, string[]>();
  for (const row of rows) graph.set(row.source, [...(graph.get(row.source) ?? []), row.target]);
  return graph;
}

export interface FeatureValues {
  name: string;
  localizedDescription: Record<string, string>;
  hidden: boolean;
  valueType: 'none' | 'integer' | 'string';
  notes: string | null;
}

export async function insertFeatureRow(db: Executor, values: FeatureValues): Promise<FeatureRow> {
  const now = new Date().toISOString();
  return db
    .insertInto('features')
    .values({
      name: values.name,
      localized_description: JSON.stringify(values.localizedDescription),
      hidden: values.hidden,
      value_type: values.valueType,
      notes: values.notes,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateFeatureRow(db: Executor, id: number, values: FeatureValues): Promise<FeatureRow> {
  return db
    .updateTable('features')
    .set({
      name: values.name,
      localized_description: JSON.stringify(values.localizedDescription),
      hidden: values.hidden,
      value_type: values.valueType,
      notes: values.notes,
      updated_at: new Date().toISOString(),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function replaceExpansions(db: Executor, featureId: number, targetIds: readonly number[]): Promise<void> {
  await db.deleteFrom('feature_expansions').where('feature_id', '=', featureId).execute();
  if (targetIds.length) {
    await db
      .insertInto('feature_expansions')
      .values(targetIds.map((targetId) => ({ feature_id: featureId, expands_to_id: targetId })))
      .execute();
  }
}

export async function deleteFeatureRow(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('features').where('id', '=', id).execute();
}

/** What still refers to a feature: products that have it, features that expand to it. */
export async function featureUsage(db: Executor, id: number): Promise<{ products: string[]; features: string[] }> {
  const products = await db
    .selectFrom('product_features')
    .innerJoin('products', 'products.id', 'product_features.product_id')
    .select(['products.name', 'products.version'])
    .where('product_features.feature_id', '=', id)
    .orderBy('products.name')
    .orderBy('products.version')
    .limit(20)
    .execute();
  const features = await db
    .selectFrom('feature_expansions')
    .innerJoin('features', 'features.id', 'feature_expansions.feature_id')
    .select('features.name')
    .where('feature_expansions.expands_to_id', '=', id)
    .orderBy('features.name')
    .limit(20)
    .execute();
  return { products: products.map((row) => `${row.name} ${row.version}`), features: features.map((row) => row.name) };
}

/** Serializes changes of the expansion graph on PostgreSQL, so that two saves cannot close a cycle together. */
export async function lockExpansionGraph(db: Executor, postgres: boolean): Promise<void> {
  if (postgres) await sql`lock table feature_expansions in share row exclusive mode`.execute(db);
}
