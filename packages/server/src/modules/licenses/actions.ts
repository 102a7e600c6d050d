import type { FastifyRequest } from 'fastify';
import { todayOf, trialReachDays, type ExtendLicense, type License } from '@lm/contract/license';
import { recordChange } from '../../platform/changelog.ts';
import type { AppContext } from '../../platform/context.ts';
import { actorOf } from '../../platform/http/auth.ts';
import { AppError } from '../../platform/http/errors.ts';
import { settingValue } from '../settings/service.ts';
import { findUserByEmail } from '../users/repo.ts';
import { machineIdUsed, machineTaken, refuseUsedTrial, tooManyMachines } from './activation.ts';
import { endSeatsOfLicense } from '../license-files/seats.ts';
import { bindMachine, findLicenseRow, findProductForLicensing, insertLicense, licenseMachineBindings, lockTanOfLicense, productVersions, recordTrial, updateLicense, type LicenseViewRow } from './repo.ts';
import { checkMachineWindow, extendTrial } from './rules.ts';
import { loadLicenseForChange } from './service.ts';
import { freeUpgradeOf, licenseById, licenseValues } from './view.ts';

/** Upgraded and revoked licenses take no more changes from their owner. */
function assertLive(row: LicenseViewRow): void {
  if (row.upgraded_to_id !== null) throw new AppError(409, 'ERR_LICENSE_UPGRADED', 'This license was upgraded to a newer version');
  if (row.revoked) throw new AppError(422, 'ERR_LICENSE_REVOKED', 'This license is revoked');
}

/** `POST /licenses/{id}/extend`: a running temporary license runs longer, up to its start + the product's trial days (within the configured max). */
export async function extendLicense(ctx: AppContext, request: FastifyRequest, id: number, input: ExtendLicense): Promise<License> {
  await ctx.db.transaction().execute(async (trx) => {
    const row = await loadLicenseForChange(trx, request, id, 'extend');
    assertLive(row);
    if (row.kind !== 'TEMPORARY') throw new AppError(422, 'ERR_NOT_TEMPORARY', 'Only a temporary license can be extended');
    const now = new Date();
    const product = await findProductForLicensing(trx, row.product_id);
    const maxDays = trialReachDays(product?.trial_days ?? null, await settingValue<number>(trx, 'license.temporaryMaxDays'));
    const today = todayOf(now);
    const result = extendTrial({ startedOn: row.created_at.slice(0, 10), validUntil: row.valid_until }, input.amount, input.unit, today, maxDays);
    if (!result.allowed && result.reason === 'ended') throw new AppError(422, 'ERR_TRIAL_ENDED', 'This temporary license has ended and can no longer be extended');
    if (!result.allowed) {
      throw new AppError(422, 'ERR_EXTEND_TOO_FAR', 'You cannot extend the license this far into the future', { params: { latest: result.latest, max: maxDays } });
    }
    const old = (await findLicenseRow(trx, id))!;
    const updated = await updateLicense(trx, id, { valid_until: result.validUntil }, now.toISOString());
    await recordChange(trx, actorOf(request), { model: 'License', recordId: id, operation: 'update', oldValues: licenseValues(old), newValues: licenseValues(updated) });
  });
  return licenseById(ctx.db, id);
}

/** `PUT /licenses/{id}/machine`: binds the license to another machine, within the different-machines window. */
export async function changeMachine(ctx: AppContext, request: FastifyRequest, id: number, machineId: string): Promise<License> {
  await ctx.db.transaction().execute(async (trx) => {
    const row = await loadLicenseForChange(trx, request, id, 'update', 'machineId');
    assertLive(row);
    // Like a move to the own account: the person meant another machine, and hears so.
    if (row.machine_id === machineId) {
      throw new AppError(400, 'ERR_VALIDATION', 'machineId: currentMachine', { details: [{ path: 'machineId', message: 'currentMachine', code: 'currentMachine' }] });
    }
    const now = new Date();
    const today = todayOf(now);
    if (await machineTaken(trx, { machineId, productId: row.product_id, kind: row.kind }, today, id)) throw machineIdUsed();
    // A trial moved to another machine is that machine's trial: one that had its own gets no second this way.
    const trialProduct = row.kind === 'TEMPORARY' ? await findProductForLicensing(trx, row.product_id) : undefined;
    if (trialProduct) await refuseUsedTrial(trx, trialProduct, machineId, today, id);
    const window = { maxCount: row.max_different_machines_count, intervalHours: row.max_different_machines_interval_hours };
    const since = new Date(now.getTime() - window.intervalHours * 3_600_000).toISOString();
    const result = checkMachineWindow(await licenseMachineBindings(trx, id, since), machineId, window, now);
    if (!result.allowed) throw tooManyMachines(result);
    const old = (await findLicenseRow(trx, id))!;
    const updated = await updateLicense(trx, id, { machine_id: machineId }, now.toISOString());
    await bindMachine(trx, id, machineId, now.toISOString());
    if (trialProduct) await recordTrial(trx, { productId: row.product_id, machineId, ownerId: row.owner_id, licenseId: id }, now.toISOString());
    // The old machine's floating seat goes with it, so that the new machine finds it free.
    if (old.machine_id) await endSeatsOfLicense(trx, { id, tanId: old.tan_id }, now, old.machine_id);
    await recordChange(trx, actorOf(request), { model: 'License', recordId: id, operation: 'update', oldValues: licenseValues(old), newValues: licenseValues(updated) });
  });
  return licenseById(ctx.db, id);
}

/** `POST /licenses/{id}/move`: hands the license to another confirmed account, named by e-mail. */
export async function moveLicense(ctx: AppContext, request: FastifyRequest, id: number, email: string): Promise<License> {
  await ctx.db.transaction().execute(async (trx) => {
    const row = await loadLicenseForChange(trx, request, id, 'update', 'ownerId');
    assertLive(row);
    const target = await findUserByEmail(trx, email);
    if (!target || !target.confirmed || target.closed_at !== null) throw new AppError(422, 'ERR_UNKNOWN_ACCOUNT', 'There is no confirmed account with this e-mail address');
    if (target.id === row.owner_id) {
      throw new AppError(400, 'ERR_VALIDATION', 'email: currentOwner', { details: [{ path: 'email', message: 'currentOwner', code: 'currentOwner' }] });
    }
    const old = (await findLicenseRow(trx, id))!;
    const updated = await updateLicense(trx, id, { owner_id: target.id }, new Date().toISOString());
    await recordChange(trx, actorOf(request), { model: 'License', recordId: id, operation: 'update', oldValues: licenseValues(old), newValues: licenseValues(updated) });
  });
  return licenseById(ctx.db, id);
}

/**
 * `POST /licenses/{id}/upgrade`: the free upgrade to the next major version. The new license keeps
 * owner, machine, TAN, policy, validity and free updates; the old one is marked upgraded and can no
 * longer be downloaded.
 */
export async function upgradeLicense(ctx: AppContext, request: FastifyRequest, id: number): Promise<License> {
  const newId = await ctx.db.transaction().execute(async (trx) => {
    // The new license copies its TAN's distributor (insertLicense): the TAN's lock comes first.
    await lockTanOfLicense(trx, id);
    const row = await loadLicenseForChange(trx, request, id, 'create');
    assertLive(row);
    const now = new Date();
    const today = todayOf(now);
    const target = freeUpgradeOf(row, await productVersions(trx, [row.product_name]), today);
    if (!target) throw new AppError(422, 'ERR_NO_FREE_UPGRADE', 'There is no free upgrade for this license');
    if (row.machine_id && (await machineTaken(trx, { machineId: row.machine_id, productId: target.id, kind: row.kind }, today))) throw machineIdUsed();
    const old = (await findLicenseRow(trx, id))!;
    const nowText = now.toISOString();
    const upgraded = await insertLicense(
      trx,
      {
        kind: old.kind,
        owner_id: old.owner_id,
        product_id: target.id,
        license_policy_id: old.license_policy_id,
        tan_id: old.tan_id,
        tan_code: old.tan_code,
        machine_id: old.machine_id,
        valid_until: old.valid_until,
        permanent: Boolean(old.permanent),
        free_updates_until: old.free_updates_until,
        upgraded_from_id: old.id,
      },
      nowText,
    );
    if (old.machine_id) await bindMachine(trx, upgraded.id, old.machine_id, nowText);
    const marked = await updateLicense(trx, id, { upgraded_to_id: upgraded.id }, nowText);
    await endSeatsOfLicense(trx, { id, tanId: old.tan_id }, now);
    const actor = actorOf(request);
    await recordChange(trx, actor, { model: 'License', recordId: upgraded.id, operation: 'insert', newValues: licenseValues(upgraded) });
    await recordChange(trx, actor, { model: 'License', recordId: id, operation: 'update', oldValues: licenseValues(old), newValues: licenseValues(marked) });
    return upgraded.id;
  });
  return licenseById(ctx.db, newId);
}
