import semver from 'semver';
import { LICENSE_SIGNATURE_ALGORITHM } from '@lm/contract/license-file';
import { UPDATES_SIGNATURE_PREFIX, type ClientUpdatesRequest, type LicenseDownloads, type UpdatesPayload } from '@lm/contract/release';
import type { AppContext } from '../../platform/context.ts';
import { signingKeys } from '../../platform/signing/keys.ts';
import { chooseLicense } from '../client-protocol/choose.ts';
import { machineLicensesFor, noLicenseForMachine, refusalOf } from '../license-files/service.ts';
import { entitledReleases } from './entitlement.ts';
import { licenseForUpdates, ownLicensesForUpdates, signedDownloadUrl } from './downloads.ts';
import { findReleasesOfProducts } from './repo.ts';
import { toRelease } from './service.ts';

/**
 * `POST /api/client/v1/updates`: the newest release newer than the machine's version that its
 * license may have, for its platform and architecture, each file with a signed short-lived link;
 * and the newest it may not have, with the reason. Signed like license files (`updates/` + enc).
 * Reads only: no write on the protocol's path.
 */
export async function checkForUpdates(ctx: AppContext, request: ClientUpdatesRequest, now = new Date()) {
  const candidates = await machineLicensesFor(ctx, request.machineId, request.product);
  const license = chooseLicense(candidates, now);
  if (!license) throw noLicenseForMachine();
  const refusal = refusalOf(license, now, 403);
  if (refusal) throw refusal;
  const rights = await licenseForUpdates(ctx, license, now);
  const releases = (await findReleasesOfProducts(ctx.db, [license.productId])).filter((release) => semver.gt(release.version, request.version));
  const { entitled, newer } = entitledReleases(rights, releases, now, request.channel);
  const fits = (value: string, wanted: string) => value === 'any' || value === wanted;
  const best = entitled.find((release) => release.artifacts.some((artifact) => fits(artifact.platform, request.platform) && fits(artifact.arch, request.arch)));
  const payload: UpdatesPayload = {
    latest: best
      ? {
          version: best.version,
          releasedAt: best.releasedAt,
          notes: best.notes,
          artifacts: await Promise.all(
            best.artifacts
              .filter((artifact) => fits(artifact.platform, request.platform) && fits(artifact.arch, request.arch))
              .map(async ({ id, storageKey: _storageKey, ...artifact }) => {
                const link = await signedDownloadUrl(ctx, id, now);
                return { ...artifact, url: link.url, urlExpiresAt: link.expiresAt };
              }),
          ),
        }
      : null,
    newer: newer && (!best || semver.gt(newer.release.version, best.version)) ? { version: newer.release.version, releasedAt: newer.release.releasedAt, reason: newer.reason } : null,
    issuedAt: now.toISOString(),
  };
  const enc = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64');
  const signer = signingKeys(ctx).current();
  const sig = await signer.sign(new TextEncoder().encode(`${UPDATES_SIGNATURE_PREFIX}${enc}`));
  return { enc, sig, alg: LICENSE_SIGNATURE_ALGORITHM as typeof LICENSE_SIGNATURE_ALGORITHM, kid: signer.kid };
}

/** `GET /api/downloads`: per license of the caller, the releases it may download and the newer one it may not, with why. */
export async function downloadsOf(ctx: AppContext, ownerId: number, now = new Date()): Promise<{ items: LicenseDownloads[] }> {
  const licenses = await ownLicensesForUpdates(ctx, ownerId, now);
  const releases = await findReleasesOfProducts(ctx.db, [...new Set(licenses.map(({ license }) => license.productId))]);
  return {
    items: licenses.map(({ license, rights }) => {
      const { entitled, newer } = entitledReleases(rights, releases, now, rights.betaUpdates ? 'beta' : 'stable');
      return {
        licenseId: license.id,
        product: { id: license.product.id, name: license.product.name, version: license.product.version },
        machineId: license.machineId,
        freeUpdatesUntil: license.freeUpdatesUntil,
        refusal: rights.refusal,
        releases: entitled.map((release) => ({ ...toRelease(release), downloads: 0 })),
        newer: newer ? { version: newer.release.version, releasedAt: newer.release.releasedAt, reason: newer.reason } : null,
      };
    }),
  };
}
