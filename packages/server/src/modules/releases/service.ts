import fs from 'node:fs';
import { ARTIFACT_SIGNATURE_PREFIX, type ArtifactCreate, type Release, type ReleaseFields, type ReleaseUpdate } from '@lm/contract/release';
import type { Actor, AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { isUniqueViolation } from '../../platform/db/search.ts';
import { AppError, notFound, validationError } from '../../platform/http/errors.ts';
import { signingKeys } from '../../platform/signing/keys.ts';
import { enqueueEvents } from '../../platform/webhooks/outbox.ts';
import { findProduct } from '../license-files/repo.ts';
import { bySemverDescending } from './entitlement.ts';
import { deleteRelease, downloadsByMonth, findRelease, findReleaseIdOfArtifact, findReleasesOfProducts, insertArtifact, insertRelease, updateRelease, type ReleaseRow } from './repo.ts';
import { artifactPath, newStorageKey, uploadStore } from './storage.ts';

/** A release as the API answers it (the storage keys stay inside). */
export function toRelease(row: ReleaseRow): Release {
  return { ...row, artifacts: row.artifacts.map(({ storageKey: _storageKey, ...artifact }) => artifact) };
}

const conflict = (path: string, code: string) =>
  new AppError(409, 'ERR_CONFLICT', `${path}: ${code}`, { details: [{ path, message: code, code }] });

export async function listReleases(ctx: AppContext, productId: number): Promise<Release[]> {
  if (!(await findProduct(ctx.db, productId))) throw notFound('Product');
  return (await findReleasesOfProducts(ctx.db, [productId])).sort(bySemverDescending).map(toRelease);
}

export async function getRelease(ctx: AppContext, id: number): Promise<ReleaseRow> {
  const release = await findRelease(ctx.db, id);
  if (!release) throw notFound('Release');
  return release;
}

/** The release an artifact belongs to. */
export async function releaseOfArtifact(ctx: AppContext, artifactId: number): Promise<ReleaseRow> {
  const releaseId = await findReleaseIdOfArtifact(ctx.db, artifactId);
  if (!releaseId) throw notFound('Artifact');
  return getRelease(ctx, releaseId);
}

/** `POST /api/products/{id}/releases`: a new release; the same version twice is a conflict, also when two requests race. Announced as `release.published`. */
export async function createRelease(ctx: AppContext, _actor: Actor, productId: number, input: ReleaseFields): Promise<Release> {
  const product = await findProduct(ctx.db, productId);
  if (!product) throw notFound('Product');
  const now = new Date().toISOString();
  try {
    const id = await ctx.db.transaction().execute(async (trx) => {
      const id = await insertRelease(trx, { productId, version: input.version, channel: input.channel, releasedAt: new Date(input.releasedAt).toISOString(), notes: JSON.stringify(input.notes) }, now);
      const data = { id, productId, product: product.name, productVersion: product.version, version: input.version, channel: input.channel, releasedAt: input.releasedAt };
      await enqueueEvents(trx, 'release.published', [{ data, subject: 'Product', record: { id: productId }, personId: null }]);
      return id;
    });
    return toRelease(await getRelease(ctx, id));
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('version', 'versionExists');
    throw error;
  }
}

export async function changeRelease(ctx: AppContext, id: number, input: ReleaseUpdate): Promise<Release> {
  await getRelease(ctx, id);
  await updateRelease(
    ctx.db,
    id,
    {
      ...(input.channel ? { channel: input.channel } : {}),
      ...(input.releasedAt ? { released_at: new Date(input.releasedAt).toISOString() } : {}),
      ...(input.notes ? { notes: JSON.stringify(input.notes) } : {}),
      ...(input.yanked !== undefined ? { yanked: input.yanked } : {}),
    },
    new Date().toISOString(),
  );
  return toRelease(await getRelease(ctx, id));
}

/** Deletes a release and, once that is committed, its files. */
export async function removeRelease(ctx: AppContext, id: number): Promise<void> {
  const release = await getRelease(ctx, id);
  await deleteRelease(ctx.db, id);
  for (const artifact of release.artifacts) await fs.promises.rm(artifactPath(ctx, artifact.storageKey), { force: true });
}

const unknownUpload = () => validationError('uploadId', 'unknownUpload');

/**
 * `POST /api/releases/{id}/artifacts`: a finished tus upload becomes an artifact of the release: its
 * SHA-256 (computed while it streamed in) signed with the server's key, the file moved from the
 * uploads folder to its storage key in the same transaction as its row.
 */
export async function addArtifact(ctx: AppContext, releaseId: number, input: ArtifactCreate): Promise<Release> {
  await getRelease(ctx, releaseId);
  const store = uploadStore(ctx);
  const upload = await store.getUpload(input.uploadId).catch(() => null);
  if (!upload || upload.size === undefined || upload.offset !== upload.size) throw unknownUpload();
  if (upload.size > ctx.config.artifactMaxSize) throw new AppError(413, 'ERR_PAYLOAD_TOO_LARGE', `Artifacts may have at most ${ctx.config.artifactMaxSize} bytes`);
  const sha256 = await store.sha256(input.uploadId, upload.size);
  const signer = signingKeys(ctx).current();
  const sig = await signer.sign(new TextEncoder().encode(`${ARTIFACT_SIGNATURE_PREFIX}${sha256}`));
  const storageKey = newStorageKey();
  const files = store.filesOf(input.uploadId);
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await insertArtifact(trx, { releaseId, platform: input.platform, arch: input.arch, filename: input.filename, size: upload.size!, sha256, sig, kid: signer.kid, storageKey }, new Date().toISOString());
      // Claimed once: a second request for the same upload finds no file and rolls back.
      await fs.promises.rename(files.data, artifactPath(ctx, storageKey)).catch(() => {
        throw unknownUpload();
      });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('platform', 'artifactExists');
    throw error;
  }
  store.forget(input.uploadId);
  await fs.promises.rm(files.info, { force: true });
  return toRelease(await getRelease(ctx, releaseId));
}

/** Downloads started per month (the statistics' `downloads` category), the months of the range whole. */
export async function downloadCountsByMonth(db: Executor, range: { from: string; to: string }, productId?: number): Promise<Map<string, Record<string, number>>> {
  const rows = await downloadsByMonth(db, range.from.slice(0, 7), range.to.slice(0, 7), productId);
  return new Map(rows.map((row) => [row.month, { downloads: row.count }]));
}
