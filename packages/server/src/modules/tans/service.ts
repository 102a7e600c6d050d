import type { FastifyRequest } from 'fastify';
import type { ListResult } from '@lm/contract';
import { generateTanCode, normalizeTanCode, TAN_ALPHABET, tanEdit, type Tan, type TanFields, type TanListQuery, type TanUpdate } from '@lm/contract/tan';
import { todayOf } from '@lm/contract/license';
import { recordChange, recordInserts } from '../../platform/changelog.ts';
import type { AppContext } from '../../platform/context.ts';
import { nowIso, type Executor } from '../../platform/db/database.ts';
import { isUniqueViolation } from '../../platform/db/search.ts';
import { actorOf, authorize, authorizeRecord, requireUser } from '../../platform/http/auth.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { mergeUpdate } from '../../platform/http/validation.ts';
import { checkPrecondition, type Precondition } from '../../platform/http/versioned.ts';
import { settingValue } from '../settings/service.ts';
import { propagateFreeUpdates, propagateTanState, revokeLicensesOfTan } from '../licenses/service.ts';
import { resolvePolicy } from '../licenses/activation.ts';
import { checkGrants, propagateTanGrants } from '../entitlements/service.ts';
import { parseGrants, parseMetadata } from '@lm/contract/entitlement';
import { findProductForLicensing } from '../licenses/repo.ts';
import { findTanById } from '../licenses/tan-repo.ts';
import { rowExists } from '../../platform/db/references.ts';
import { listScope, scopedIds } from '../../platform/http/list-scope.ts';
import {
  distinctTags,
  existingCodes,
  findTanView,
  findUserRole,
  insertTags,
  insertTans,
  listTans,
  replaceTags,
  updateTan,
  type TanRow,
} from './repo.ts';

const TAN_CODE_CHARACTERS = new RegExp(`^[${TAN_ALPHABET}]*$`);

/** A refused field, by its message key; `params` also go on the answer for older clients. */
function invalid(path: string, code: string, params: Record<string, string | number> = {}): AppError {
  return new AppError(400, 'ERR_VALIDATION', `${path}: ${code}`, { details: [{ path, message: code, code, params }], params });
}

/** The distributors whose TANs the caller may see: null for all. */
function visibleDistributors(request: FastifyRequest): number[] | null {
  const scope = listScope(request.ability, 'view-list', 'Tan');
  return scope === 'all' ? null : scopedIds(scope, 'distributorId');
}

/** A TAN record as the permission rules see it. */
const tanSubject = (row: Pick<TanRow, 'distributor_id'>) => ({ distributorId: row.distributor_id });

export async function maxLicenseCount(db: Executor): Promise<number> {
  return settingValue<number>(db, 'tan.maxLicenseCount');
}

export async function listVisibleTans(ctx: AppContext, request: FastifyRequest, query: TanListQuery): Promise<ListResult<Tan>> {
  requireUser(request);
  authorize(request, 'view-list', 'Tan');
  // A code is typed from its start (read off a delivery note or a mail), so the filter is a prefix: a
  // range of the unique code index, as fast at one character as at twelve. Random codes have no
  // meaningful middle that a person would search for, so no trigram index is kept for them.
  const codePrefix = query.filter ? normalizeTanCode(query.filter) : undefined;
  // A filter with characters no code has matches no TAN; no need to ask the database.
  if (codePrefix !== undefined && !TAN_CODE_CHARACTERS.test(codePrefix)) return { items: [], totalCount: 0 };
  return listTans(
    ctx.db,
    ctx.dialect,
    { distributorIds: visibleDistributors(request), codePrefix: codePrefix || undefined, tag: query.tag, revoked: query.revoked, productId: query.productId, organizationId: query.organizationId, state: query.state ? { name: query.state, today: todayOf() } : undefined },
    query,
  );
}

export async function tagsForCaller(ctx: AppContext, request: FastifyRequest): Promise<string[]> {
  requireUser(request);
  authorize(request, 'view-list', 'Tan');
  return distinctTags(ctx.db, visibleDistributors(request));
}

export async function getTan(ctx: AppContext, request: FastifyRequest, id: number): Promise<Tan> {
  requireUser(request);
  const row = await findTanById(ctx.db, id);
  if (!row) throw notFound('TAN');
  authorizeRecord(request, 'view', 'Tan', tanSubject(row), 'TAN');
  return (await findTanView(ctx.db, id))!;
}

/** A distributor's own TANs carry its id even when the form leaves the field empty. */
function distributorOf(request: FastifyRequest, requested: number | null): number | null {
  const user = requireUser(request);
  return requested === null && user.accessRole === 'DISTRIBUTOR' ? user.id : requested;
}

/**
 * The product, policy and distributor must exist; the count must not pass the configured maximum
 * (unless it is the count the TAN already had, set before the maximum was lowered).
 */
async function checkReferences(db: Executor, fields: TanFields, storedCount?: number): Promise<void> {
  if (!(await rowExists(db, 'products', fields.productId))) throw invalid('productId', 'unknownProduct');
  if (fields.licensePolicyId !== null && !(await rowExists(db, 'license_policies', fields.licensePolicyId))) throw invalid('licensePolicyId', 'unknownPolicy');
  if (fields.distributorId !== null) {
    const distributor = await findUserRole(db, fields.distributorId);
    if (distributor?.access_role !== 'DISTRIBUTOR') throw invalid('distributorId', 'notDistributor');
  }
  const max = await maxLicenseCount(db);
  if (fields.licenseCount > max && fields.licenseCount !== storedCount) throw invalid('licenseCount', 'tooBig', { maximum: max, max });
  await checkGrants(db, fields.entitlements, 'entitlements');
}

/** Fresh codes that neither repeat among themselves nor exist yet. */
async function freshCodes(db: Executor, count: number): Promise<string[]> {
  const codes = new Set<string>();
  while (codes.size < count) {
    const batch = new Set<string>();
    while (batch.size < count - codes.size) {
      const code = generateTanCode();
      if (!codes.has(code)) batch.add(code);
    }
    const taken = await existingCodes(db, [...batch]);
    for (const code of batch) if (!taken.has(code)) codes.add(code);
  }
  return [...codes];
}

/**
 * `POST /tans?count=N`: N TANs in one transaction, all or nothing. A code taken meanwhile by another
 * caller (a unique violation, astronomically rare) makes the whole call retry once with new codes.
 */
export async function createTans(ctx: AppContext, request: FastifyRequest, input: TanFields, count: number): Promise<Tan[]> {
  const user = requireUser(request);
  const fields = { ...input, distributorId: distributorOf(request, input.distributorId) };
  authorize(request, 'create', 'Tan', { distributorId: fields.distributorId });
  await checkReferences(ctx.db, fields);
  for (let attempt = 1; ; attempt++) {
    try {
      return await insertTanBatch(ctx, request, fields, await freshCodes(ctx.db, count), user.id);
    } catch (error) {
      if (attempt >= 2 || !isUniqueViolation(error)) throw error;
    }
  }
}

async function insertTanBatch(ctx: AppContext, request: FastifyRequest, fields: TanFields, codes: string[], userId: number): Promise<Tan[]> {
  const now = nowIso();
  const rows = await ctx.db.transaction().execute(async (trx) => {
    const inserted = await insertTans(
      trx,
      codes.map((code) => ({ ...fields, code, createdBy: userId, entitlements: JSON.stringify(fields.entitlements), metadata: JSON.stringify(fields.metadata) })),
      now,
    );
    await insertTags(
      trx,
      inserted.map((row) => row.id),
      fields.tags,
    );
    await recordInserts(
      trx,
      actorOf(request),
      'Tan',
      inserted.map((row) => ({ id: row.id, values: tanChangeValues(row, fields.tags) })),
    );
    return inserted;
  });
  // Every new TAN shares product, policy and distributor: read their names once.
  const names = (await findTanView(ctx.db, rows[0].id))!;
  return rows.map((row) => ({ ...names, ...toTanFields(row), tags: fields.tags }));
}

function toTanFields(
  row: TanRow,
): Pick<Tan, 'id' | 'code' | 'licenseCount' | 'activatedCount' | 'revoked' | 'suspended' | 'validUntil' | 'freeUpdatesUntil' | 'notes' | 'createdAt' | 'updatedAt'> {
  return {
    id: row.id,
    code: row.code,
    licenseCount: row.license_count,
    activatedCount: row.activated_count,
    revoked: Boolean(row.revoked),
    suspended: Boolean(row.suspended),
    validUntil: row.valid_until,
    freeUpdatesUntil: row.free_updates_until,
    notes: row.notes,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A TAN's values for the change log (also of the TANs a shop purchase makes, which have no tags). */
export function tanChangeValues(row: TanRow, tags: string[] = []): Record<string, unknown> {
  return {
    code: row.code,
    productId: row.product_id,
    licensePolicyId: row.license_policy_id,
    licenseCount: row.license_count,
    activatedCount: row.activated_count,
    distributorId: row.distributor_id,
    revoked: Boolean(row.revoked),
    suspended: Boolean(row.suspended),
    validUntil: row.valid_until,
    freeUpdatesUntil: row.free_updates_until,
    tags,
    entitlements: parseGrants(row.entitlements),
    metadata: parseMetadata(row.metadata),
    notes: row.notes,
  };
}

/**
 * `PUT /tans/{id}`: a field left out keeps its value. The TAN's row stays locked until the end, so
 * that an activation running meanwhile cannot slip past a lowered license count, and so that an
 * If-Match (versioned.ts) is checked against the TAN that the change is made to.
 */
export async function updateTanFor(ctx: AppContext, request: FastifyRequest, id: number, input: TanUpdate, precondition?: Precondition): Promise<Tan> {
  requireUser(request);
  await ctx.db.transaction().execute(async (trx) => {
    const old = await findTanById(trx, id, { lock: true });
    if (!old) throw notFound('TAN');
    authorizeRecord(request, 'view', 'Tan', tanSubject(old), 'TAN');
    authorize(request, 'update', 'Tan', tanSubject(old));
    const stored = (await findTanView(trx, id))!;
    checkPrecondition(precondition, stored);
    const edit = mergeUpdate(tanEdit, stored, input);
    const fields = { ...edit, distributorId: distributorOf(request, edit.distributorId) };
    // The TAN must stay the caller's: a distributor cannot hand it to someone else.
    authorize(request, 'update', 'Tan', { distributorId: fields.distributorId });
    await checkReferences(trx, fields, old.license_count);
    // A floating TAN's count is seats in use at once: it may be lowered below the machines that joined.
    const product = await findProductForLicensing(trx, fields.productId);
    const floating = (await resolvePolicy(trx, fields.licensePolicyId, product?.default_license_policy_id ?? null)).type === 'FLOATING';
    if (!floating && fields.licenseCount < old.activated_count) {
      throw invalid('licenseCount', 'belowActivations', { minimum: old.activated_count, min: old.activated_count });
    }
    if (input.revokeLicenses && !fields.revoked) throw invalid('revokeLicenses', 'revokeLicensesWithoutRevoke');
    const oldTags = stored.tags;
    const now = nowIso();
    const updated = await updateTan(
      trx,
      id,
      {
        product_id: fields.productId,
        license_policy_id: fields.licensePolicyId,
        license_count: fields.licenseCount,
        distributor_id: fields.distributorId,
        free_updates_until: fields.freeUpdatesUntil,
        notes: fields.notes,
        entitlements: JSON.stringify(fields.entitlements),
        metadata: JSON.stringify(fields.metadata),
        revoked: fields.revoked,
        suspended: fields.suspended,
        valid_until: fields.validUntil,
      },
      now,
    );
    await replaceTags(trx, id, fields.tags);
    const actor = actorOf(request);
    await recordChange(trx, actor, { model: 'Tan', recordId: id, operation: 'update', oldValues: tanChangeValues(old, oldTags), newValues: tanChangeValues(updated, fields.tags) });
    if (fields.freeUpdatesUntil !== null && fields.freeUpdatesUntil !== old.free_updates_until) {
      await propagateFreeUpdates(trx, actor, id, fields.freeUpdatesUntil, now);
    }
    await propagateTanState(trx, actor, id, { suspended: fields.suspended, validUntil: fields.validUntil }, new Date(now));
    await propagateTanGrants(trx, actor, id, { entitlements: JSON.stringify(fields.entitlements), metadata: JSON.stringify(fields.metadata) }, new Date(now));
    if (input.revokeLicenses) await revokeLicensesOfTan(trx, actor, id, new Date(now));
  });
  return (await findTanView(ctx.db, id))!;
}
