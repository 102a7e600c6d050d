import type { ClientLicenseRequest, ClientReleaseRequest } from '@lm/contract/client-protocol';
import type { LicenseFileJson } from '@lm/contract/license-file';
import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import { lastSeenRecorder } from '../license-files/last-seen.ts';
import { releaseSeat } from '../license-files/seats.ts';
import { issueLicenseFile, machineLicensesFor } from '../license-files/service.ts';
import { chooseLicense } from './choose.ts';

/** The same answer for an unknown machine, an unknown product and a machine without that product: it tells nothing. */
const noLicense = () => new AppError(404, 'ERR_NO_LICENSE', 'No license for this machine and product');

/** `POST /api/client/v1/license`: a fresh signed file for the machine (DESIGN.md section 6). */
export async function fetchClientLicense(ctx: AppContext, request: ClientLicenseRequest): Promise<LicenseFileJson> {
  const now = new Date();
  const candidates = await machineLicensesFor(ctx, request.machineId, request.product, request.version);
  const license = chooseLicense(candidates, now);
  if (!license) throw noLicense();
  const { file } = await issueLicenseFile(ctx, license, { machineId: request.machineId, now, refusalStatus: 403 });
  return file;
}

/** `DELETE /api/client/v1/license`: frees the floating seats the machine holds for the product. */
export async function releaseClientLicense(ctx: AppContext, request: ClientReleaseRequest): Promise<void> {
  const now = new Date();
  const candidates = await machineLicensesFor(ctx, request.machineId, request.product, request.version);
  if (!candidates.length) throw noLicense();
  for (const license of candidates) {
    lastSeenRecorder(ctx).record(license.id, request.machineId, now.toISOString());
    if (license.policy.type === 'FLOATING') await releaseSeat(ctx, license, request.machineId, now);
  }
}
