import { featuresResolvingTo, resolveFeatureNames } from '@lm/contract/feature';
import { compareVersions, formatProductName, productFields, type Product, type ProductFields, type ProductListQuery, type ProductUpdate } from '@lm/contract/product';
import type { ListResult } from '@lm/contract';
import { recordChange } from '../../platform/changelog.ts';
import type { Actor, AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { isForeignKeyViolation, isUniqueViolation, type StaffSearch } from '../../platform/db/search.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { mergeUpdate } from '../../platform/http/validation.ts';
import { lockRow } from '../../platform/db/dialect.ts';
import { checkPrecondition, type Precondition } from '../../platform/http/versioned.ts';
import { changedMeanwhile, featureExpansionGraph, featureIdsFor, requireFeatureIds } from '../features/service.ts';
import { checkFeatureValues } from '../entitlements/service.ts';
import { parseMetadata } from '@lm/contract/entitlement';
import { rowExists } from '../../platform/db/references.ts';
import { settingValue } from '../settings/service.ts';
import {
  deleteProductRow,
  downloadLinksOf,
  featureNamesOf,
  findProductIdByNameAndVersion,
  findProductRow,
  insertProductRow,
  listProductRows,
  productRowsNamed,
  productUsage,
  replaceDownloadLinks,
  replaceProductFeatures,
  updateProductRow,
  type ProductRow,
} from './repo.ts';
import { changingCatalogue } from '../../platform/catalogue-generation.ts';

/** Products with their features and download links; features resolved by expand-to-features on request. */
async function toProducts(db: Executor, rows: ProductRow[], resolve = false): Promise<Product[]> {
  const ids = rows.map((row) => row.id);
  const [features, links, graph] = await Promise.all([featureNamesOf(db, ids), downloadLinksOf(db, ids), resolve ? featureExpansionGraph(db) : null]);
  return rows.map((row) => {
    const direct = features.get(row.id) ?? [];
    return {
      id: row.id,
      name: row.name,
      version: row.version,
      formattedName: formatProductName(row),
      active: Boolean(row.active),
      trialDays: row.trial_days,
      repeatTrialAfterMonths: row.repeat_trial_after_months,
      ignoreTrialsBefore: row.ignore_trials_before,
      releaseDate: row.release_date,
      features: graph ? resolveFeatureNames(direct, graph) : direct,
      defaultLicensePolicyId: row.default_license_policy_id,
      downloadLinks: links.get(row.id) ?? [],
      featureValues: parseMetadata(row.feature_values) as Product['featureValues'],
      notes: row.notes,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  });
}

/**
 * For each wanted feature, the ids of the features that give a product that feature: the feature
 * itself, or with resolveFeatures every feature whose expansion leads to it.
 */
async function featureIdSets(db: Executor, names: readonly string[], resolve: boolean): Promise<number[][]> {
  const graph = resolve ? await featureExpansionGraph(db) : null;
  const sources = names.map((name) => (graph ? featuresResolvingTo(name, graph) : [name]));
  const ids = await featureIdsFor(db, [...new Set(sources.flat())]);
  return sources.map((list) => list.flatMap((name) => (ids.has(name) ? [ids.get(name)!] : [])));
}

export async function listProducts(ctx: AppContext, query: ProductListQuery & StaffSearch): Promise<ListResult<Product>> {
  const resolve = query.resolveFeatures ?? false;
  const sets = query.featureNames?.length ? await featureIdSets(ctx.db, query.featureNames, resolve) : undefined;
  const { rows, totalCount } = await listProductRows(ctx.db, { ...query, featureIdSets: sets });
  return { items: await toProducts(ctx.db, rows, resolve), totalCount };
}

async function loadProduct(db: Executor, id: number): Promise<Product> {
  const row = await findProductRow(db, id);
  if (!row) throw notFound('Product');
  return (await toProducts(db, [row]))[0];
}

export function getProduct(ctx: AppContext, id: number): Promise<Product> {
  return loadProduct(ctx.db, id);
}

/** The products of the same name as this one (itself included), ordered by version. */
export async function productVersions(ctx: AppContext, id: number): Promise<ListResult<Product>> {
  const product = await loadProduct(ctx.db, id);
  const rows = (await productRowsNamed(ctx.db, product.name)).sort((a, b) => compareVersions(a.version, b.version) || a.id - b.id);
  return { items: await toProducts(ctx.db, rows), totalCount: rows.length };
}

const duplicate = (fields: Pick<ProductFields, 'name' | 'version'>) =>
  new AppError(409, 'ERR_CONFLICT', `${formatProductName(fields)} already exists`, {
    details: [{ path: 'version', message: 'a product of this name and version already exists', code: 'duplicateVersion' }],
  });

async function checkReferences(db: Executor, fields: ProductFields, selfId?: number): Promise<number[]> {
  const existing = await findProductIdByNameAndVersion(db, fields.name, fields.version);
  if (existing !== undefined && existing !== selfId) throw duplicate(fields);
  if (!(await rowExists(db, 'license_policies', fields.defaultLicensePolicyId))) {
    throw new AppError(400, 'ERR_VALIDATION', 'defaultLicensePolicyId is not an allowed value', {
      details: [{ path: 'defaultLicensePolicyId', message: 'unknownPolicy', code: 'unknownPolicy' }],
    });
  }
  const ids = await requireFeatureIds(db, fields.features, 'features');
  await checkFeatureValues(db, fields.features, fields.featureValues, 'featureValues');
  return ids;
}

/**
 * Maps the constraint errors of races that the service's own checks lost to ordinary answers.
 * `fields`: the fields the work writes (known once an update has merged them).
 */
async function constraintGuard<T>(fields: () => ProductFields | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicate(fields() ?? { name: '', version: '' });
    if (isForeignKeyViolation(error)) throw changedMeanwhile();
    throw error;
  }
}

export function createProduct(ctx: AppContext, actor: Actor, fields: ProductFields): Promise<Product> {
  return constraintGuard(() => fields, () =>
    changingCatalogue(ctx, () => ctx.db.transaction().execute(async (trx) => {
      const featureIds = await checkReferences(trx, fields);
      const row = await insertProductRow(trx, fields);
      await replaceProductFeatures(trx, row.id, featureIds);
      await replaceDownloadLinks(trx, row.id, fields.downloadLinks);
      const created = await loadProduct(trx, row.id);
      await recordChange(trx, actor, { model: 'Product', recordId: row.id, operation: 'insert', newValues: created });
      return created;
    })),
  );
}

/** `PUT /products/{id}`: a field left out keeps its value. */
export function updateProduct(ctx: AppContext, actor: Actor, id: number, input: ProductUpdate, precondition?: Precondition): Promise<Product> {
  let fields: ProductFields | undefined;
  return constraintGuard(() => fields, () =>
    changingCatalogue(ctx, () => ctx.db.transaction().execute(async (trx) => {
      await lockRow(trx, 'products', id);
      const before = await loadProduct(trx, id);
      checkPrecondition(precondition, before);
      fields = mergeUpdate(productFields, before, input);
      // Values of features the product no longer has go with them, unless the edit sends values.
      if (!input.featureValues) fields.featureValues = Object.fromEntries(Object.entries(fields.featureValues).filter(([name]) => fields!.features.includes(name)));
      const featureIds = await checkReferences(trx, fields, id);
      await updateProductRow(trx, id, fields);
      await replaceProductFeatures(trx, id, featureIds);
      await replaceDownloadLinks(trx, id, fields.downloadLinks);
      const after = await loadProduct(trx, id);
      await recordChange(trx, actor, { model: 'Product', recordId: id, operation: 'update', oldValues: before, newValues: after });
      return after;
    })),
  );
}

/** Deletes a product that no TAN, license or order automation refers to (409 ERR_IN_USE otherwise). */
export async function deleteProduct(ctx: AppContext, actor: Actor, id: number, precondition?: Precondition): Promise<void> {
  await inUseGuard(ctx, id, () => changingCatalogue(ctx, () => deleteProductChecked(ctx, actor, id, precondition)));
}

/**
 * A TAN or license created at the same moment still refers to the product: the database refuses,
 * the delete is rolled back and the answer names the product, as the service's own check does.
 */
async function inUseGuard(ctx: AppContext, id: number, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!isForeignKeyViolation(error)) throw error;
    const row = await findProductRow(ctx.db, id);
    const name = row ? formatProductName(row) : `#${id}`;
    throw new AppError(409, 'ERR_IN_USE', `${name} is still in use: a TAN or license for it was created at the same time`, { params: { name } });
  }
}

async function deleteProductChecked(ctx: AppContext, actor: Actor, id: number, precondition?: Precondition): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await lockRow(trx, 'products', id);
    const before = await loadProduct(trx, id);
    checkPrecondition(precondition, before);
    const usage = await productUsage(trx, id);
    const automated = (await settingValue<number | null>(trx, 'order.temporaryLicenseProductId')) === id;
    if (usage.tans || usage.licenses || automated) {
      const parts = [usage.tans && `${usage.tans} TANs`, usage.licenses && `${usage.licenses} licenses`, automated && 'the order automation'].filter(Boolean);
      throw new AppError(409, 'ERR_IN_USE', `${before.formattedName} is still used by ${parts.join(', ')}`, {
        params: { name: before.formattedName, tans: usage.tans, licenses: usage.licenses },
      });
    }
    await deleteProductRow(trx, id);
    await recordChange(trx, actor, { model: 'Product', recordId: id, operation: 'delete', oldValues: before });
  });
}

