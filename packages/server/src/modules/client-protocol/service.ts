import type { ClientLicenseRequest, ClientReleaseRequest } from '@lm/contract/client-protocol';
import type { AppContext } from '../../platform/context.ts';
import { lastSeenRecorder } from '../license-files/last-seen.ts';
import { releaseSeat } from '../license-files/seats.ts';
import { machineLicensesFor, noLicenseForMachine, type FileAnswer } from '../license-files/service.ts';
import { answerDesktopContact } from '../license-files/desktop-contact.ts';
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
  return answerDesktopContact(ctx, license, request, ifNoneMatch, now);
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
