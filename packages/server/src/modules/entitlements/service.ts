import type { FastifyRequest } from 'fastify';
import {
  parseGrants,
  parseMetadata,
  publicMetadata,
  resolveEntitlements,
  type EntitlementGrant,
  type FeatureValue,
  type LicenseEntitlements,
  type LicenseEntitlementsUpdate,
  type Metadata,
} from '@lm/contract/entitlement';
import { recordChange } from '../../platform/changelog.ts';
import type { Actor, AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { csvLine } from '@lm/contract/csv';
import { actorOf, authorize, authorizeRecord } from '../../platform/http/auth.ts';
import { findTanById } from '../licenses/tan-repo.ts';
import { AppError, notFound, validationError } from '../../platform/http/errors.ts';
import { featureExpansionGraph } from '../features/service.ts';
import { resolvedFeatureNames } from '../license-files/repo.ts';
import { loadLicense, loadLicenseForChange } from '../licenses/service.ts';
import { licenseSubject } from '../licenses/view.ts';
import { overageCounts, overagesOfTan, findLicenseGrants, findPolicyGrants, findProductFeatureValues, featureValueTypes, setLicenseGrants, setTanGrants, setTanGrantsOnLicenses, type OverageFilter } from './repo.ts';

const unknownFeatures = (unknown: { name: string; path: string }[]) => {
  const list = unknown.map(({ name }) => name).join(', ');
  return new AppError(400, 'ERR_UNKNOWN_FEATURE', `Unknown features: ${list}`, {
    details: unknown.map(({ name, path }) => ({ path, message: `unknown feature ${name}`, code: 'unknown_feature' })),
    params: { names: list },
  });
};

/** The problem of a value for a feature of this value type, or null. */
function valueProblem(type: string, value: FeatureValue | null): string | null {
  if (value === null) return null;
  if (type === 'none') return 'featureTakesNoValue';
  if (type === 'integer' && typeof value !== 'number') return 'notInteger';
  if (type === 'string' && typeof value !== 'string') return 'featureValueText';
  return null;
}

/**
 * Grants of known features with values of their type (DESIGN.md section 6g); refused with the
 * path of the first wrong field (`field.index.feature` or `.value`), nothing saved.
 */
export async function checkGrants(db: Executor, grants: readonly EntitlementGrant[], field: string): Promise<EntitlementGrant[]> {
  const types = await featureValueTypes(
    db,
    grants.map((grant) => grant.feature),
  );
  const unknown = grants.flatMap((grant, index) => (types.has(grant.feature) ? [] : [{ name: grant.feature, path: `${field}.${index}.feature` }]));
  if (unknown.length) throw unknownFeatures(unknown);
  grants.forEach((grant, index) => {
    const problem = valueProblem(types.get(grant.feature)!, grant.value);
    if (problem) throw validationError(`${field}.${index}.value`, problem);
  });
  return grants.map((grant) => ({ feature: grant.feature, value: grant.value }));
}

/** A product's default values: only its own features, each of its type. */
export async function checkFeatureValues(db: Executor, features: readonly string[], values: Readonly<Record<string, FeatureValue>>, field: string): Promise<void> {
  const names = Object.keys(values);
  const outside = names.find((name) => !features.includes(name));
  if (outside !== undefined) throw validationError(`${field}.${outside}`, 'featureValueNotInProduct');
  const types = await featureValueTypes(db, names);
  for (const name of names) {
    const problem = valueProblem(types.get(name) ?? 'none', values[name]);
    if (problem) throw validationError(`${field}.${name}`, problem);
  }
}

/** What a license's file carries now, read from the database (the card; the protocol uses the catalogue cache). */
async function resolvedOf(db: Executor, row: NonNullable<Awaited<ReturnType<typeof findLicenseGrants>>>) {
  const [features, values, policyGrants, expansions] = await Promise.all([
    resolvedFeatureNames(db, row.product_id),
    findProductFeatureValues(db, row.product_id),
    findPolicyGrants(db, row.license_policy_id),
    featureExpansionGraph(db),
  ]);
  return resolveEntitlements(features, parseMetadata(values) as Record<string, FeatureValue>, [parseGrants(policyGrants), parseGrants(row.tan_entitlements), parseGrants(row.entitlements)], expansions);
}

/** Whether the caller may change the license's entitlements (and so see its server-only metadata). */
function mayChange(request: FastifyRequest, view: Parameters<typeof licenseSubject>[0]): boolean {
  try {
    authorize(request, 'update', 'License', licenseSubject(view), 'entitlements');
    return true;
  } catch {
    return false;
  }
}

/** `GET /licenses/{id}/entitlements`: who may view the license; server-only (`_`) keys for those who may change them. */
export async function licenseEntitlementsFor(ctx: AppContext, request: FastifyRequest, id: number): Promise<LicenseEntitlements> {
  const view = await loadLicense(ctx.db, request, id, 'view');
  const row = await findLicenseGrants(ctx.db, id);
  if (!row) throw notFound('License');
  const staff = mayChange(request, view);
  const shown = (metadata: Metadata) => (staff ? metadata : publicMetadata(metadata));
  return {
    entitlements: parseGrants(row.entitlements),
    metadata: shown(parseMetadata(row.metadata)),
    tanEntitlements: parseGrants(row.tan_entitlements),
    tanMetadata: shown(parseMetadata(row.tan_metadata)),
    resolved: await resolvedOf(ctx.db, row),
  };
}

/**
 * `PUT /licenses/{id}/entitlements`: an administrator adds features, sets values and metadata on one
 * license after the sale; change-logged, and its next conditional refresh gets the new file.
 */
export async function updateLicenseEntitlementsFor(ctx: AppContext, request: FastifyRequest, id: number, input: LicenseEntitlementsUpdate): Promise<LicenseEntitlements> {
  await ctx.db.transaction().execute(async (trx) => {
    const view = await loadLicenseForChange(trx, request, id, 'view');
    for (const field of ['entitlements', 'metadata'] as const) authorize(request, 'update', 'License', licenseSubject(view), field);
    const old = (await findLicenseGrants(trx, id))!;
    await applyLicenseGrants(trx, actorOf(request), old, input, new Date());
  });
  return licenseEntitlementsFor(ctx, request, id);
}

/** Writes a license's own grants and metadata (checked), logged as a change of the license. */
export async function applyLicenseGrants(
  trx: Executor,
  actor: Actor,
  old: { id: number; entitlements: string; metadata: string },
  input: LicenseEntitlementsUpdate,
  now: Date,
): Promise<void> {
  const entitlements = input.entitlements ? JSON.stringify(await checkGrants(trx, input.entitlements, 'entitlements')) : old.entitlements;
  const metadata = input.metadata ? JSON.stringify(input.metadata) : old.metadata;
  if (entitlements === old.entitlements && metadata === old.metadata) return;
  await setLicenseGrants(trx, old.id, { entitlements, metadata }, now.toISOString());
  await recordChange(trx, actor, {
    model: 'License',
    recordId: old.id,
    operation: 'update',
    oldValues: { entitlements: parseGrants(old.entitlements), metadata: parseMetadata(old.metadata) },
    newValues: { entitlements: parseGrants(entitlements), metadata: parseMetadata(metadata) },
  });
}

/** A TAN's grants and metadata reach its licenses in the TAN's transaction (copies, like its suspension). */
export async function propagateTanGrants(trx: Executor, actor: Actor, tanId: number, values: { entitlements: string; metadata: string }, now: Date): Promise<void> {
  const ids = await setTanGrantsOnLicenses(trx, tanId, { tan_entitlements: values.entitlements, tan_metadata: values.metadata }, now.toISOString());
  for (const id of ids) {
    await recordChange(trx, actor, {
      model: 'License',
      recordId: id,
      operation: 'update',
      newValues: { tanEntitlements: parseGrants(values.entitlements), tanMetadata: parseMetadata(values.metadata) },
    });
  }
}

/**
 * Sets a TAN's grants from outside its form (a shop's add-on): locked, change-logged as an edit of
 * the TAN, and passed to its licenses' files in the same transaction. False when the TAN is gone.
 */
export async function changeTanGrants(trx: Executor, actor: Actor, tanId: number, change: (current: EntitlementGrant[]) => EntitlementGrant[], now: Date): Promise<boolean> {
  const tan = await findTanById(trx, tanId, { lock: true });
  if (!tan) return false;
  const old = parseGrants(tan.entitlements);
  const entitlements = JSON.stringify(change(old));
  if (entitlements === tan.entitlements) return true;
  await setTanGrants(trx, tanId, entitlements, now.toISOString());
  await recordChange(trx, actor, { model: 'Tan', recordId: tanId, operation: 'update', oldValues: { entitlements: old }, newValues: { entitlements: parseGrants(entitlements) } });
  await propagateTanGrants(trx, actor, tanId, { entitlements, metadata: tan.metadata }, now);
  return true;
}

/**
 * `GET /tans/{id}/overage?month=YYYY-MM`: the monthly true-up of a TAN (DESIGN.md section 6g), one
 * CSV line per over-limit grant (day, license, machine, owner); who may edit the TAN may read it.
 */
export async function overageCsv(ctx: AppContext, request: FastifyRequest, tanId: number, month: string): Promise<string> {
  const tan = await findTanById(ctx.db, tanId);
  if (!tan) throw notFound('TAN');
  authorizeRecord(request, 'view', 'Tan', { distributorId: tan.distributor_id }, 'TAN');
  authorize(request, 'update', 'Tan', { distributorId: tan.distributor_id });
  const rows = await overagesOfTan(ctx.db, tanId, month);
  return csvLine(['day', 'licenseId', 'machineId', 'email']) + rows.map((row) => csvLine([row.day, row.license_id, row.machine_id, row.email])).join('');
}

/**
 * The statistics' `overage` category: per month, the over-limit grants (the true-up's lines) and the
 * TANs they were granted for; in total, the grants and each TAN once over the whole range.
 */
export async function overageCountsByMonth(
  db: Executor,
  range: { from: string; to: string },
  filter: OverageFilter,
): Promise<{ months: Map<string, Record<string, number>>; tans: number }> {
  const counts = await overageCounts(db, range, filter);
  return { months: new Map(counts.months.map((row) => [row.month, { grants: row.grants, tans: row.tans }])), tans: counts.tans };
}
