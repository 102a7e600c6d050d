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
import { findTanById } from './tan-repo.ts';
import {
  activeProducts,
  deleteLicense,
  findLicenseRow,
  findLicenseView,
  licensesFollowingTan,
  licensesOfTan,
  listLicenses,
  revokeLicenses,
  setTanState,
  lockLicenseRow,
  setFreeUpdates,
  updateLicense,
  type LicenseListFilter,
  type LicenseRow,
  type LicenseViewRow,
} from './repo.ts';
import { machineIdUsed, machineTaken } from './activation.ts';
import { endSeatsOfLicense } from '../license-files/seats.ts';
import { listScope, scopedIds } from '../../platform/http/list-scope.ts';
import { normalizeTanCode, prefixUpperBound, TAN_ALPHABET } from '@lm/contract/tan';
import { listUsers } from '../users/list-repo.ts';

const isTanCodePrefix = (text: string) => [...text].every((character) => TAN_ALPHABET.includes(character));
import { checkPrecondition, type Precondition } from '../../platform/http/versioned.ts';
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
  if (query.scope === 'all') return listAllVisibleLicenses(ctx, request, query);
  // An organization's licenses are others' too: staff only (a customer sees an organization's under Organizations).
  const others = (query.userId !== undefined && query.userId !== user.id) || query.tanId !== undefined || query.organizationId !== undefined;
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
      organizationId: query.organizationId,
      distributorIds,
      text: query.filter ? query.filter.toLowerCase() : undefined,
      usableOn: query.offline ? today : undefined,
    },
    query,
  );
  return { items: await toLicenses(ctx.db, rows), totalCount, totalCountExact, nextCursor };
}

/**
 * How many accounts a staff search takes by name or e-mail (the user search's first ones): a support
 * search is for one customer, and a few typed letters that match thousands of accounts would only
 * make the page slow (an IN list of 1,000 owners took 40-130 ms a page in the bench under load).
 */
const OWNER_SEARCH_LIMIT = 100;

/**
 * `GET /licenses?scope=all`: every license the caller may see across accounts (administrators all,
 * distributors those of their TANs), for support: `filter` finds the exact machine id a customer reads
 * out (in any letter case), a TAN by its code or its first characters, and the accounts whose name, company or e-mail
 * contain it (the user search), each by its own index.
 */
async function listAllVisibleLicenses(ctx: AppContext, request: FastifyRequest, query: LicenseListQuery): Promise<ListResult<License>> {
  authorize(request, 'view-list', 'License');
  const scope = listScope(request.ability, 'view-list', 'License');
  const text = query.filter?.trim();
  let staffSearch: LicenseListFilter['staffSearch'];
  if (text) {
    const code = normalizeTanCode(text);
    const tanCodeRange = code.length >= 4 && isTanCodePrefix(code) ? { from: code, to: prefixUpperBound(code) } : null;
    const owners = await listUsers(ctx.db, ctx.dialect, { filter: text, offset: 0, limit: OWNER_SEARCH_LIMIT, sort: [] });
    // A machine id read out over the phone has no letter case: as typed, in capitals or in small letters (each an entry of its index).
    const machineIds = [...new Set([text, text.toUpperCase(), text.toLowerCase()])];
    staffSearch = { machineIds, tanCodeRange, ownerIds: owners.items.map((owner) => owner.id) };
  }
  const { rows, totalCount, totalCountExact, nextCursor } = await listLicenses(
    ctx.db,
    ctx.dialect,
    { distributorIds: scope === 'all' ? null : scopedIds(scope, 'distributorId'), organizationId: query.organizationId, staffSearch },
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
export async function updateLicenseFor(ctx: AppContext, request: FastifyRequest, id: number, input: LicenseUpdate, precondition?: Precondition): Promise<License> {
  await ctx.db.transaction().execute(async (trx) => {
    const row = await loadLicenseForChange(trx, request, id, 'view');
    if (precondition) checkPrecondition(precondition, await licenseById(trx, id));
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
export async function deleteLicenseFor(ctx: AppContext, request: FastifyRequest, id: number, precondition?: Precondition): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await loadLicenseForChange(trx, request, id, 'delete');
    if (precondition) checkPrecondition(precondition, await licenseById(trx, id));
    const old = (await findLicenseRow(trx, id))!;
    await endSeatsOfLicense(trx, { id, tanId: old.tan_id }, new Date());
    // Recorded before the delete: the license.deleted event carries the license as it was.
    await recordChange(trx, actorOf(request), { model: 'License', recordId: id, operation: 'delete', oldValues: licenseValues(old) });
    await deleteLicense(trx, id);
  });
}

/**
 * A TAN's suspension and validity reach the licenses activated from it, in the TAN's transaction
 * (DESIGN.md section 6, "Suspension and subscriptions"): each changed license is logged (and so
 * announced as license.updated), and a suspension frees their floating seats at once.
 */
export async function propagateTanState(trx: Executor, actor: Actor, tanId: number, state: { suspended: boolean; validUntil: string | null }, now: Date): Promise<void> {
  const licenses = (await licensesOfTan(trx, tanId)).filter((license) => Boolean(license.suspended) !== state.suspended || license.tan_valid_until !== state.validUntil);
  if (!licenses.length) return;
  await setTanState(
    trx,
    licenses.map((license) => license.id),
    state,
    now.toISOString(),
  );
  for (const license of licenses) {
    if (state.suspended && !license.suspended) await endSeatsOfLicense(trx, { id: license.id, tanId }, now);
    await recordChange(trx, actor, {
      model: 'License',
      recordId: license.id,
      operation: 'update',
      oldValues: { suspended: Boolean(license.suspended), tanValidUntil: license.tan_valid_until },
      newValues: { suspended: state.suspended, tanValidUntil: state.validUntil },
    });
  }
}

/** Revokes every license of a TAN that is not revoked yet, in the TAN's transaction (a leaked or refunded TAN); answers how many. */
export async function revokeLicensesOfTan(trx: Executor, actor: Actor, tanId: number, now: Date): Promise<number> {
  const licenses = (await licensesOfTan(trx, tanId)).filter((license) => !license.revoked);
  await revokeLicenses(
    trx,
    licenses.map((license) => license.id),
    now.toISOString(),
  );
  for (const license of licenses) {
    await endSeatsOfLicense(trx, { id: license.id, tanId }, now);
    await recordChange(trx, actor, { model: 'License', recordId: license.id, operation: 'update', oldValues: { revoked: false }, newValues: { revoked: true } });
  }
  return licenses.length;
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
