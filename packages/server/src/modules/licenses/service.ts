import type { FastifyRequest } from 'fastify';
import type { Action, ListResult } from '@lm/contract';
import { formatProductName } from '@lm/contract/product';
import { todayOf, type License, type LicenseListQuery, type LicenseUpdate, type TemporaryOptions } from '@lm/contract/license';
import { recordChange } from '../../platform/changelog.ts';
import type { Actor, AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { actorOf, authorize, authorizeRecord, requireUser } from '../../platform/http/auth.ts';
import { notFound } from '../../platform/http/errors.ts';
import { settingValue } from '../settings/service.ts';
import { findTanById } from '../tans/repo.ts';
import {
  activeProducts,
  deleteLicense,
  findLicenseRow,
  findLicenseView,
  licensesFollowingTan,
  listLicenses,
  lockLicenseRow,
  setFreeUpdates,
  updateLicense,
  type LicenseRow,
  type LicenseViewRow,
} from './repo.ts';
import { machineIdUsed, machineTaken } from './activation.ts';
import { endSeatsOfLicense } from '../license-files/seats.ts';
import { listScope, scopedIds } from './scope.ts';
import { licenseById, licenseSubject, licenseValues, toLicenses } from './view.ts';

/**
 * Loads a license the caller may see (else 404, revealing nothing) and may act on (else 403), the
 * action checked on the record and, where given, on the field it changes.
 */
export async function loadLicense(db: Executor, request: FastifyRequest, id: number, action: Action, field?: string): Promise<LicenseViewRow> {
  requireUser(request);
  const row = await findLicenseView(db, id);
  if (!row) throw notFound('License');
  const subject = licenseSubject(row);
  authorizeRecord(request, 'view', 'License', subject, 'License');
  authorize(request, action, 'License', subject, field);
  return row;
}

/** loadLicense for a change: the license's row stays locked until the transaction ends (lockLicenseRow). */
export async function loadLicenseForChange(trx: Executor, request: FastifyRequest, id: number, action: Action, field?: string): Promise<LicenseViewRow> {
  requireUser(request);
  await lockLicenseRow(trx, id);
  return loadLicense(trx, request, id, action, field);
}

export async function getLicense(ctx: AppContext, request: FastifyRequest, id: number): Promise<License> {
  await loadLicense(ctx.db, request, id, 'view');
  return licenseById(ctx.db, id);
}

/**
 * `GET /licenses`: the caller's own licenses; with `userId` or `tanId` another account's or a TAN's
 * (view-list on License: administrators all, distributors those from their TANs). The answers match
 * `GET /licenses/{id}` and `GET /tans/{id}` (DESIGN.md section 7): a caller without view-list gets
 * 403; a distributor gets exactly the licenses of its TANs that it may open one by one, for any
 * account; a TAN it may not see is not found (404), like the TAN itself.
 */
export async function listVisibleLicenses(ctx: AppContext, request: FastifyRequest, query: LicenseListQuery): Promise<ListResult<License>> {
  const user = requireUser(request);
  const others = (query.userId !== undefined && query.userId !== user.id) || query.tanId !== undefined;
  let distributorIds: number[] | null = null;
  let ownerId: number | undefined = query.userId ?? user.id;
  if (others) {
    authorize(request, 'view-list', 'License');
    if (query.tanId !== undefined) {
      const tan = await findTanById(ctx.db, query.tanId);
      if (!tan) throw notFound('TAN');
      authorizeRecord(request, 'view', 'Tan', { distributorId: tan.distributor_id }, 'TAN');
    }
    const scope = listScope(request.ability, 'view-list', 'License');
    distributorIds = scope === 'all' ? null : scopedIds(scope, 'distributorId');
    ownerId = query.userId;
  }
  const today = todayOf();
  const { rows, totalCount, totalCountExact, nextCursor } = await listLicenses(
    ctx.db,
    ctx.dialect,
    {
      ownerId,
      tanId: query.tanId,
      distributorIds,
      text: query.filter ? query.filter.toLowerCase() : undefined,
      usableOn: query.offline ? today : undefined,
    },
    query,
  );
  return { items: await toLicenses(ctx.db, rows), totalCount, totalCountExact, nextCursor };
}

export async function temporaryOptions(ctx: AppContext, request: FastifyRequest): Promise<TemporaryOptions> {
  requireUser(request);
  const products = await activeProducts(ctx.db);
  return {
    maxDays: await settingValue<number>(ctx.db, 'license.temporaryMaxDays'),
    products: products.map((product) => ({
      id: product.id,
      name: product.name,
      version: product.version,
      formattedName: formatProductName(product),
      trialDays: product.trial_days,
    })),
  };
}

/** Whether a license counts for its machine today: not revoked, not upgraded, and a temporary one not ended. */
export function isLive(row: Pick<LicenseRow, 'kind' | 'revoked' | 'upgraded_to_id' | 'valid_until'>, today: string): boolean {
  return !row.revoked && row.upgraded_to_id === null && (row.kind === 'TAN' || row.valid_until === null || row.valid_until >= today);
}

/**
 * `PUT /licenses/{id}`: the administrator's edit of revoked, valid until and permanent; a field left
 * out keeps its value. A license that comes back to life (revoked no more, or a temporary one
 * running again) must find its machine free, like a new one; a revoked one frees its seats.
 */
export async function updateLicenseFor(ctx: AppContext, request: FastifyRequest, id: number, input: LicenseUpdate): Promise<License> {
  await ctx.db.transaction().execute(async (trx) => {
    const row = await loadLicenseForChange(trx, request, id, 'view');
    const changes = { revoked: input.revoked, valid_until: input.validUntil, permanent: input.permanent };
    const given = Object.entries({ revoked: input.revoked, validUntil: input.validUntil, permanent: input.permanent }).filter(([, value]) => value !== undefined);
    // A body without fields needs the right to change the license all the same: one who may only view it changes nothing.
    if (!given.length) authorize(request, 'update', 'License', licenseSubject(row));
    for (const [field] of given) authorize(request, 'update', 'License', licenseSubject(row), field);
    const old = (await findLicenseRow(trx, id))!;
    // Fields sent as they are change nothing: no change-log entry, no webhook, no new updatedAt.
    const current = licenseValues(old);
    if (given.every(([field, value]) => current[field] === value)) return;
    const now = new Date();
    const today = todayOf(now);
    const after = { ...old, ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) };
    if (old.machine_id && !isLive(old, today) && isLive(after, today)) {
      if (await machineTaken(trx, { machineId: old.machine_id, productId: old.product_id, kind: old.kind }, today, id)) throw machineIdUsed();
    }
    const updated = await updateLicense(trx, id, changes, now.toISOString());
    if (updated.revoked && !old.revoked) await endSeatsOfLicense(trx, { id, tanId: old.tan_id }, now);
    await recordChange(trx, actorOf(request), { model: 'License', recordId: id, operation: 'update', oldValues: licenseValues(old), newValues: licenseValues(updated) });
  });
  return licenseById(ctx.db, id);
}

/** `DELETE /licenses/{id}`: customers their temporary licenses, administrators any; its seats end with it. */
export async function deleteLicenseFor(ctx: AppContext, request: FastifyRequest, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await loadLicenseForChange(trx, request, id, 'delete');
    const old = (await findLicenseRow(trx, id))!;
    await endSeatsOfLicense(trx, { id, tanId: old.tan_id }, new Date());
    // Recorded before the delete: the license.deleted event carries the license as it was.
    await recordChange(trx, actorOf(request), { model: 'License', recordId: id, operation: 'delete', oldValues: licenseValues(old) });
    await deleteLicense(trx, id);
  });
}

/** A TAN's new free-updates date reaches the licenses activated from it (in the TAN's transaction). */
export async function propagateFreeUpdates(trx: Executor, actor: Actor, tanId: number, freeUpdatesUntil: string, now: string): Promise<void> {
  const licenses = (await licensesFollowingTan(trx, tanId)).filter((license) => license.free_updates_until !== freeUpdatesUntil);
  if (!licenses.length) return;
  await setFreeUpdates(
    trx,
    licenses.map((license) => license.id),
    freeUpdatesUntil,
    now,
  );
  // At most the TAN's license count of rows.
  for (const license of licenses) {
    await recordChange(trx, actor, {
      model: 'License',
      recordId: license.id,
      operation: 'update',
      oldValues: { freeUpdatesUntil: license.free_updates_until },
      newValues: { freeUpdatesUntil },
    });
  }
}
