import type { FastifyRequest } from 'fastify';
import { asSubject } from '@lm/contract';
import { licenseFileName, type LicenseFileFormat, type LicenseFileJson } from '@lm/contract/license-file';
import type { AppContext } from '../../platform/context.ts';
import { AppError, forbidden, notFound } from '../../platform/http/errors.ts';
import { findLicenseForFile } from './repo.ts';
import { issueLicenseFile } from './service.ts';

/**
 * `GET /api/licenses/{id}/file`: the owner (and administrators) download a fresh signed file for
 * the license's machine. A license the caller may not see is not found; one they may see but not
 * download (a distributor's customer's) is forbidden.
 */
export async function downloadLicenseFile(
  ctx: AppContext,
  request: FastifyRequest,
  licenseId: number,
  format: LicenseFileFormat,
): Promise<{ file: LicenseFileJson; fileName: string; format: LicenseFileFormat }> {
  const found = await findLicenseForFile(ctx.db, licenseId);
  if (!found) throw notFound('License');
  const { license, distributorId } = found;
  const record: Record<string, unknown> = { id: license.id, ownerId: license.ownerId, kind: license.kind, distributorId };
  const subject = asSubject('License', record);
  if (!request.ability.can('view', subject)) throw notFound('License');
  if (!request.ability.can('download', subject)) throw forbidden();
  if (!license.machineId) throw new AppError(422, 'ERR_NO_MACHINE', 'This license has no machine yet: change the machine first');
  const { file } = await issueLicenseFile(ctx, license, { machineId: license.machineId, refusalStatus: 422 });
  return { file, fileName: licenseFileName(license.product, license.machineId, format), format };
}
