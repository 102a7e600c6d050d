import type { FastifyRequest } from 'fastify';
import type { Action, ListResult } from '@lm/contract';
import { formatProductName } from '@lm/contract/product';
import { todayOf, type License, type LicenseListQuery, type LicenseUpdate, type TemporaryOptions } from '@lm/contract/license';
import { recordChange } from '../../platform/changelog.ts';
import type { Actor, AppContext } from '../../platform/context.ts';
import { nowIso, type Executor } from '../../platform/db/database.ts';
import { actorOf, authorize, authorizeRecord, requireUser } from '../../platform/http/auth.ts';
import { notFound } from '../../platform/http/errors.ts';
import { settingValue } from '../settings/service.ts';
import {
  activeProducts,
  deleteLicense,
  findLicenseRow,
  findLicenseView,
  licensesFollowingTan,
  listLicenses,
  setFreeUpdates,
  updateLicense,
  type LicenseViewRow,
} from './repo.ts';
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

export async function getLicense(ctx: AppContext, request: FastifyRequest, id: number): Promise<License> {
  await loadLicense(ctx.db, request, id, 'view');
  return licenseById(ctx.db, id);
}

/**
 * `GET /licenses`: the caller's own licenses; with `userId` or `tanId` another account's or a TAN's
 * (view-list on License: administrators all, distributors those from their TANs).
 */
export async function listVisibleLicenses(ctx: AppContext, request: FastifyRequest, query: LicenseListQuery): Promise<ListResult<License>> {
  const user = requireUser(request);
  const others = (query.userId !== undefined && query.userId !== user.id) || query.tanId !== undefined;
  let distributorIds: number[] | null = null;
  let ownerId: number | undefined = query.userId ?? user.id;
  if (others) {
    authorize(request, 'view-list', 'License');
    const scope = listScope(request.ability, 'view-list', 'License');
    distributorIds = scope === 'all' ? null : scopedIds(scope, 'distributorId');
    ownerId = query.userId;
  }
  const today = todayOf();
  const { rows, totalCount } = await listLicenses(
    ctx.db,
    {
      ownerId,
      tanId: query.tanId,
      distributorIds,
      text: query.filter ? query.filter.toLowerCase() : undefined,
      usableOn: query.offline ? today : undefined,
    },
    query,
  );
  return { items: await toLicenses(ctx.db, rows), totalCount };
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

/** `PUT /licenses/{id}`: the administrator's edit of revoked, valid until and permanent. */
export async function updateLicenseFor(ctx: AppContext, request: FastifyRequest, id: number, input: LicenseUpdate): Promise<License> {
  await ctx.db.transaction().execute(async (trx) => {
    const row = await loadLicense(trx, request, id, 'view');
    for (const field of ['revoked', 'validUntil', 'permanent']) authorize(request, 'update', 'License', licenseSubject(row), field);
    const old = (await findLicenseRow(trx, id))!;
    const updated = await updateLicense(trx, id, { revoked: input.revoked, valid_until: input.validUntil, permanent: input.permanent }, nowIso());
    await recordChange(trx, actorOf(request), { model: 'License', recordId: id, operation: 'update', oldValues: licenseValues(old), newValues: licenseValues(updated) });
  });
  return licenseById(ctx.db, id);
}

/** `DELETE /licenses/{id}`: customers their temporary licenses, administrators any. */
export async function deleteLicenseFor(ctx: AppContext, request: FastifyRequest, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await loadLicense(trx, request, id, 'delete');
    const old = (await findLicenseRow(trx, id))!;
    await deleteLicense(trx, id);
    await recordChange(trx, actorOf(request), { model: 'License', recordId: id, operation: 'delete', oldValues: licenseValues(old) });
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
