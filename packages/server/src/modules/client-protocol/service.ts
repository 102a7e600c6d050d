import type { ClientLicenseRequest, ClientReleaseRequest } from '@lm/contract/client-protocol';
import type { AppContext } from '../../platform/context.ts';
import { lastSeenRecorder } from '../license-files/last-seen.ts';
import { releaseSeat } from '../license-files/seats.ts';
import { answerLicenseFile, machineLicensesFor, noLicenseForMachine, type FileAnswer } from '../license-files/service.ts';
import { AppError } from '../../platform/http/errors.ts';
import { recordLicenseEvent } from '../license-events/recorder.ts';
import { chooseLicense } from './choose.ts';

/**
 * `POST /api/client/v1/license`: the signed file for the machine, or a 304 when the file named by
 * `ifNoneMatch` is still right (DESIGN.md section 6, "Conditional refresh").
 */
export async function fetchClientLicense(ctx: AppContext, request: ClientLicenseRequest, ifNoneMatch?: string): Promise<FileAnswer> {
  const now = new Date();
  const candidates = await machineLicensesFor(ctx, request.machineId, request.product, request.version);
  const license = chooseLicense(candidates, now);
  if (!license) throw noLicenseForMachine();
  // The software's own contact, refused or not, is what the active-machines statistics count.
  lastSeenRecorder(ctx).record(license.id, request.machineId, now);
  const event = { licenseId: license.id, tanId: license.tanId, ownerId: license.ownerId, machineId: request.machineId };
  if (request.clockTamperedAt) recordLicenseEvent(ctx, { ...event, type: 'clock.tampered', at: new Date(Math.min(Date.parse(request.clockTamperedAt), now.getTime())).toISOString() });
  return answerLicenseFile(ctx, license, { machineId: request.machineId, now, refusalStatus: 403, ifNoneMatch, borrowDays: request.borrowDays }).catch((error: unknown) => {
    // Why a machine was refused, for support and the vendor's webhooks: kept in memory, written off this path (recorder.ts).
    if (error instanceof AppError && error.code !== 'ERR_NO_LICENSE') recordLicenseEvent(ctx, { ...event, type: error.code === 'ERR_NO_SEAT' ? 'seat.denied' : 'activation.refused', code: error.code });
    throw error;
  });
}

/** `DELETE /api/client/v1/license`: frees the floating seats the machine holds for the product. */
export async function releaseClientLicense(ctx: AppContext, request: ClientReleaseRequest): Promise<void> {
  const now = new Date();
  const candidates = await machineLicensesFor(ctx, request.machineId, request.product, request.version);
  if (!candidates.length) throw noLicenseForMachine();
  for (const license of candidates) {
    lastSeenRecorder(ctx).record(license.id, request.machineId, now);
    if (license.policy.type !== 'FLOATING') continue;
    await releaseSeat(ctx, license, request.machineId, now);
    recordLicenseEvent(ctx, { type: 'offline.deactivated', licenseId: license.id, tanId: license.tanId, ownerId: license.ownerId, machineId: request.machineId });
  }
}
