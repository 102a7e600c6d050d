import { featureFields, findExpansionCycle, type Feature, type FeatureFields, type FeatureUpdate } from '@lm/contract/feature';
import type { ListQuery, ListResult } from '@lm/contract';
import { recordChange } from '../../platform/changelog.ts';
import type { Actor, AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { isForeignKeyViolation, isUniqueViolation, type StaffSearch } from '../../platform/db/search.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { mergeUpdate } from '../../platform/http/validation.ts';
import { lockRow } from '../../platform/db/dialect.ts';
import { checkPrecondition, type Precondition } from '../../platform/http/versioned.ts';
import {
  deleteFeatureRow,
  expansionGraph,
  expansionsOf,
  featureIdsByName,
  featureUsage,
  findFeatureIdByName,
  findFeatureRow,
  insertFeatureRow,
  listFeatureRows,
  lockExpansionGraph,
  replaceExpansions,
  updateFeatureRow,
  type FeatureRow,
} from './repo.ts';
import { changingCatalogue } from '../../platform/catalogue-generation.ts';

function toFeature(row: FeatureRow, expandToFeatures: string[]): Feature {
  return {
    id: row.id,
    name: row.name,
    localizedDescription: JSON.parse(row.localized_description) as Feature['localizedDescription'],
    hidden: Boolean(row.hidden),
    expandToFeatures,
    valueType: row.value_type ?? 'none',
    notes: row.notes,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

async function withExpansions(db: Executor, rows: FeatureRow[]): Promise<Feature[]> {
  const expansions = await expansionsOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toFeature(row, expansions.get(row.id) ?? []));
}

export async function listFeatures(ctx: AppContext, query: ListQuery & StaffSearch): Promise<ListResult<Feature>> {
  const { rows, totalCount } = await listFeatureRows(ctx.db, query);
  return { items: await withExpansions(ctx.db, rows), totalCount };
}

async function loadFeature(db: Executor, id: number): Promise<Feature> {
  const row = await findFeatureRow(db, id);
  if (!row) throw notFound('Feature');
  return (await withExpansions(db, [row]))[0];
}

export function getFeature(ctx: AppContext, id: number): Promise<Feature> {
  return loadFeature(ctx.db, id);
}

/**
 * Feature names to ids; unknown names are refused with ERR_UNKNOWN_FEATURE and the path of each
 * (`field.index`), so that the form marks exactly those.
 */
export async function requireFeatureIds(db: Executor, names: readonly string[], field: string): Promise<number[]> {
  const ids = await featureIdsByName(db, names);
  const unknown = names.map((name, index) => ({ name, index })).filter(({ name }) => !ids.has(name));
  if (unknown.length) {
    const list = unknown.map(({ name }) => name).join(', ');
    throw new AppError(400, 'ERR_UNKNOWN_FEATURE', `Unknown features: ${list}`, {
      details: unknown.map(({ name, index }) => ({ path: `${field}.${index}`, message: `unknown feature ${name}`, code: 'unknown_feature' })),
      params: { names: list },
    });
  }
  return names.map((name) => ids.get(name)!);
}

async function checkName(db: Executor, name: string, selfId?: number): Promise<void> {
  const existing = await findFeatureIdByName(db, name);
  if (existing !== undefined && existing !== selfId) throw duplicateName(name);
}

const duplicateName = (name: string) =>
  new AppError(409, 'ERR_CONFLICT', `A feature named ${name} already exists`, { details: [{ path: 'name', message: 'already exists', code: 'duplicate' }] });

/** Checks the new expansions of a feature (known names, no cycle) and returns their ids. */
async function checkedExpansions(trx: Executor, name: string, previousName: string | null, targets: readonly string[]): Promise<number[]> {
  const ids = await requireFeatureIds(trx, targets, 'expandToFeatures');
  const graph = await expansionGraph(trx);
  if (previousName !== null && previousName !== name) {
    // A rename: the graph knows the feature by its old name.
    graph.delete(previousName);
    for (const [source, list] of graph) graph.set(source, list.map((target) => (target === previousName ? name : target)));
  }
  const cycle = findExpansionCycle(name, targets, graph);
  if (cycle) {
    const path = cycle.join(' → ');
    throw new AppError(422, 'ERR_FEATURE_CYCLE', `Expanding ${name} this way would make a cycle: ${path}`, {
      details: [{ path: 'expandToFeatures', message: `cycle ${path}`, code: 'cycle' }],
      params: { cycle: path },
    });
  }
  return ids;
}

/** A feature or license policy the record refers to was deleted between the checks and the write. */
export const changedMeanwhile = () =>
  new AppError(409, 'ERR_CONCURRENT_CHANGE', 'A feature or license policy used here was changed or deleted at the same time. Check your entries and save again.');

/** `name`: the name the work writes (known once an update has merged its fields). */
async function uniqueGuard<T>(name: () => string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateName(name());
    // An expansion target deleted at the same moment.
    if (isForeignKeyViolation(error)) throw changedMeanwhile();
    throw error;
  }
}

export function createFeature(ctx: AppContext, actor: Actor, fields: FeatureFields): Promise<Feature> {
  return uniqueGuard(() => fields.name, () =>
    changingCatalogue(ctx, () => ctx.db.transaction().execute(async (trx) => {
      await lockExpansionGraph(trx, ctx.dialect === 'postgres');
      await checkName(trx, fields.name);
      const targetIds = await checkedExpansions(trx, fields.name, null, fields.expandToFeatures);
      const row = await insertFeatureRow(trx, fields);
      await replaceExpansions(trx, row.id, targetIds);
      const created = await loadFeature(trx, row.id);
      await recordChange(trx, actor, { model: 'Feature', recordId: row.id, operation: 'insert', newValues: created });
      return created;
    })),
  );
}

/** `PUT /features/{id}`: a field left out keeps its value. */
export function updateFeature(ctx: AppContext, actor: Actor, id: number, input: FeatureUpdate, precondition?: Precondition): Promise<Feature> {
  let fields: FeatureFields | undefined;
  return uniqueGuard(() => fields?.name ?? '', () =>
    changingCatalogue(ctx, () => ctx.db.transaction().execute(async (trx) => {
      await lockExpansionGraph(trx, ctx.dialect === 'postgres');
      await lockRow(trx, 'features', id);
      const before = await loadFeature(trx, id);
      checkPrecondition(precondition, before);
      fields = mergeUpdate(featureFields, before, input);
      await checkName(trx, fields.name, id);
      const targetIds = await checkedExpansions(trx, fields.name, before.name, fields.expandToFeatures);
      await updateFeatureRow(trx, id, fields);
      await replaceExpansions(trx, id, targetIds);
      const after = await loadFeature(trx, id);
      await recordChange(trx, actor, { model: 'Feature', recordId: id, operation: 'update', oldValues: before, newValues: after });
      return after;
    })),
  );
}

/** Deletes a feature that no product has and no feature expands to (409 ERR_IN_USE otherwise). */
export async function deleteFeature(ctx: AppContext, actor: Actor, id: number, precondition?: Precondition): Promise<void> {
  await changingCatalogue(ctx, () => ctx.db.transaction().execute(async (trx) => {
    await lockExpansionGraph(trx, ctx.dialect === 'postgres');
    await lockRow(trx, 'features', id);
    const before = await loadFeature(trx, id);
    checkPrecondition(precondition, before);
    const usage = await featureUsage(trx, id);
    if (usage.products.length || usage.features.length) {
      const users = [...usage.products, ...usage.features].join(', ');
      throw new AppError(409, 'ERR_IN_USE', `${before.name} is still used by ${users}`, { params: { name: before.name, users } });
    }
    await deleteFeatureRow(trx, id);
    await recordChange(trx, actor, { model: 'Feature', recordId: id, operation: 'delete', oldValues: before });
  }));
}

/** The expansion graph (name → target names), for resolving features elsewhere. */
export function featureExpansionGraph(db: Executor): Promise<Map<string, string[]>> {
  return expansionGraph(db);
}

/** Feature ids by name for the names that exist. */
export function featureIdsFor(db: Executor, names: readonly string[]): Promise<Map<string, number>> {
  return featureIdsByName(db, names);
}
