import type { FastifyRequest } from 'fastify';
import type { License } from '@lm/contract/license';
import { licenseFileName, type LicenseFileJson } from '@lm/contract/license-file';
import type { OfflineActivationBody, OfflineDeactivationBody, OfflineRequestSummary } from '@lm/contract/offline';
import { recordChange } from '../../platform/changelog.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { actorOf, requireUser } from '../../platform/http/auth.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { catalogueCache } from '../license-files/catalogue-cache.ts';
import { findLicenseForFile } from '../license-files/repo.ts';
import { endSeatsOfLicense } from '../license-files/seats.ts';
import { issueLicenseFile } from '../license-files/service.ts';
import { changeMachine } from '../licenses/actions.ts';
import { activateLicense } from '../licenses/activation.ts';
import { findLicenseRow } from '../licenses/repo.ts';
import { loadLicenseForChange } from '../licenses/service.ts';
import { licenseById, licenseValues } from '../licenses/view.ts';
import { bindInstallKey, findInstallBinding, freeDeactivatedMachine, proofNonceUsed } from './repo.ts';
import { invalidProof, invalidRequestFile, readDeactivationProof, readOfflineRequest } from './verify.ts';

/**
 * Offline activation and verifiable deactivation (DESIGN.md section 6h): a machine without network
 * proves its request with its install key; the license is bound to that key, and its files name it;
 * a deactivation proof signed by the same key frees the machine at once and is accepted once.
 */

type VerifiedRequest = ReturnType<typeof readOfflineRequest>;

/** The request's products (by name and version): refused when the server knows none. */
async function requestedProducts(ctx: AppContext, request: VerifiedRequest): Promise<Set<number>> {
  const find = async (reload: boolean) => (await catalogueCache(ctx).current({ reload })).productsNamed(request.product, request.version ?? undefined);
  let products = await find(false);
  if (!products.length) products = await find(true);
  if (!products.length) throw invalidRequestFile(`it names a product this server does not know (${request.product})`);
  return new Set(products.map((product) => product.id));
}

/** `POST /api/licenses/offline-request`: what a request file asks for, checked, for the portal to show. */
export async function summarizeOfflineRequest(ctx: AppContext, request: FastifyRequest, text: string): Promise<OfflineRequestSummary> {
  requireUser(request);
  const verified = readOfflineRequest(text, new Date());
  await requestedProducts(ctx, verified);
  return { product: verified.product, version: verified.version ?? null, machineId: verified.machineId, installKeyId: verified.installKeyId, createdAt: verified.createdAt };
}

/**
 * `POST /api/licenses/offline-activation`: activates with a TAN (a new license) or an existing
 * license of the caller (moved to the request's machine if it is on another), binds it to the
 * request's install key and answers its file, issued at the moment the binding records.
 */
export async function activateOffline(ctx: AppContext, request: FastifyRequest, body: OfflineActivationBody): Promise<{ file: LicenseFileJson; fileName: string; license: License }> {
  requireUser(request);
  const now = new Date();
  const verified = readOfflineRequest(body.request, now);
  const products = await requestedProducts(ctx, verified);
  const bind = async (trx: Executor, id: number) => {
    const binding = await findInstallBinding(trx, id);
    if (!binding || !products.has(binding.productId)) throw invalidRequestFile('it asks for another product than this license is for');
    await bindInstallKey(trx, id, { id: verified.installKeyId, publicKey: verified.installKey }, now.toISOString());
  };
  let id: number;
  if (body.tan !== undefined) {
    id = (await activateLicense(ctx, request, { tan: body.tan, machineId: verified.machineId }, bind)).id;
  } else {
    id = body.licenseId!;
    const current = await ctx.db.transaction().execute((trx) => loadLicenseForChange(trx, request, id, 'update', 'machineId'));
    if (current.machine_id !== verified.machineId) await changeMachine(ctx, request, id, verified.machineId);
    await ctx.db.transaction().execute(async (trx) => {
      await loadLicenseForChange(trx, request, id, 'update', 'machineId');
      await bind(trx, id);
    });
  }
  const found = await findLicenseForFile(ctx.db, id);
  if (!found) throw notFound('License');
  const { file } = await issueLicenseFile(ctx, found.license, { machineId: verified.machineId, refusalStatus: 422, now });
  return { file, fileName: licenseFileName(found.license.product, verified.machineId, 'json'), license: await licenseById(ctx.db, id) };
}

/**
 * `POST /api/licenses/{id}/offline-deactivation`: a proof signed by the install key the license is
 * bound to, for its machine and a file at least as new as the one handed out, frees the machine at
 * once (out of the different-machines window, its floating seat ended); each proof only once.
 */
export async function deactivateOffline(ctx: AppContext, request: FastifyRequest, id: number, body: OfflineDeactivationBody): Promise<License> {
  await ctx.db.transaction().execute(async (trx) => {
    await loadLicenseForChange(trx, request, id, 'update', 'machineId');
    const binding = await findInstallBinding(trx, id);
    if (!binding) throw notFound('License');
    const { proof, signedBy } = readDeactivationProof(body.proof);
    if (await proofNonceUsed(trx, proof.nonce)) throw new AppError(409, 'ERR_PROOF_USED', 'This deactivation proof has already been accepted');
    if (!signedBy(binding.installPublicKey)) throw invalidProof('it was not made by the installation the license is bound to');
    if (proof.licenseId !== id || proof.installKeyId !== binding.installKeyId) throw invalidProof('it is for another license or installation');
    if (binding.machineId === null || proof.machineId !== binding.machineId) throw invalidProof('it is for another machine');
    const fileIssuedAt = Date.parse(proof.fileIssuedAt);
    if (binding.offlineFileIssuedAt === null || fileIssuedAt < Date.parse(binding.offlineFileIssuedAt) || Date.parse(proof.deactivatedAt) < fileIssuedAt) {
      throw invalidProof('it is older than the license file it retires');
    }
    const now = new Date();
    const old = (await findLicenseRow(trx, id))!;
    await freeDeactivatedMachine(trx, id, binding.machineId, proof.nonce, now.toISOString());
    await endSeatsOfLicense(trx, { id, tanId: binding.tanId }, now, binding.machineId);
    const updated = (await findLicenseRow(trx, id))!;
    await recordChange(trx, actorOf(request), { model: 'License', recordId: id, operation: 'update', oldValues: licenseValues(old), newValues: licenseValues(updated) });
  });
  return licenseById(ctx.db, id);
}
