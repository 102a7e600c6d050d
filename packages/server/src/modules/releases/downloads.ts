import { createPublicKey, verify } from 'node:crypto';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { prefersJsonTo } from '../../platform/http/downloads.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import type { RequestUser } from '../../platform/http/auth.ts';
import { signingKeys } from '../../platform/signing/keys.ts';
import { findLicenseForFile, type LicenseForFile } from '../license-files/repo.ts';
import { refusalOf } from '../license-files/service.ts';
import { notEntitledReason, type LicenseForUpdates } from './entitlement.ts';
import { countDownload, findOwnLicenseIds, findUpdateRights, type ReleaseRow } from './repo.ts';
import { artifactPath } from './storage.ts';

/** How long the download link of an updates answer works. */
export const DOWNLOAD_LINK_SECONDS = 15 * 60;

const linkMessage = (artifactId: number, expires: number) => new TextEncoder().encode(`download/${artifactId}/${expires}`);

/** A signed, short-lived link to an artifact: Ed25519 by the server's key, so that any instance verifies it without shared state. */
export async function signedDownloadUrl(ctx: AppContext, artifactId: number, now: Date): Promise<{ url: string; expiresAt: string }> {
  const expires = Math.floor(now.getTime() / 1000) + DOWNLOAD_LINK_SECONDS;
  const signature = Buffer.from(await signingKeys(ctx).current().sign(linkMessage(artifactId, expires)), 'base64').toString('base64url');
  return { url: `${ctx.config.publicUrl}/api/artifacts/${artifactId}/file?expires=${expires}&signature=${signature}`, expiresAt: new Date(expires * 1000).toISOString() };
}

const badLink = () => new AppError(403, 'ERR_INVALID_SIGNATURE', 'This download link is not valid or has expired; ask for updates again');

/** Refuses a link whose signature does not verify with a published key, or whose time is up. */
export async function checkSignedLink(ctx: AppContext, artifactId: number, expires: number, signature: string, now = new Date()): Promise<void> {
  if (expires * 1000 <= now.getTime()) throw badLink();
  const bytes = Buffer.from(signature, 'base64url');
  const keys = await signingKeys(ctx).published();
  const message = linkMessage(artifactId, expires);
  if (!keys.some((key) => verify(null, message, createPublicKey(key.publicKeyPem), bytes))) throw badLink();
}

/** A license as entitlement sees it. */
export async function licenseForUpdates(ctx: AppContext, license: LicenseForFile, now: Date): Promise<LicenseForUpdates> {
  const rights = await findUpdateRights(ctx.db, license.id);
  return {
    productId: license.productId,
    refusal: refusalOf(license, now, 422)?.code ?? null,
    freeUpdatesUntil: license.freeUpdatesUntil,
    startedAt: rights?.startedAt ?? now.toISOString(),
    betaUpdates: rights?.betaUpdates ?? false,
  };
}

/** The licenses of a person as entitlement sees them, with their file data (of one product, or all). */
export async function ownLicensesForUpdates(ctx: AppContext, ownerId: number, now: Date, productId?: number) {
  const result: { license: LicenseForFile; rights: LicenseForUpdates }[] = [];
  for (const id of await findOwnLicenseIds(ctx.db, ownerId, productId)) {
    const found = await findLicenseForFile(ctx.db, id);
    if (found) result.push({ license: found.license, rights: await licenseForUpdates(ctx, found.license, now) });
  }
  return result;
}

/**
 * Whether a signed-in person may download a release: administrators always; anyone else through a
 * license of theirs entitled to it. Someone with no license of the product is told nothing (404).
 */
export async function checkMayDownload(ctx: AppContext, user: RequestUser, release: ReleaseRow, now = new Date()): Promise<void> {
  if (user.accessRole === 'ADMIN') return;
  const licenses = await ownLicensesForUpdates(ctx, user.id, now, release.productId);
  if (!licenses.length) throw notFound('Release');
  if (!licenses.some(({ rights }) => notEntitledReason(rights, release, now) === null)) {
    throw new AppError(403, 'ERR_NOT_ENTITLED', 'Your license does not include this release');
  }
}

type ByteRange = { start: number; end: number } | 'unsatisfiable' | null;

/** A single `bytes=` range of a file of `size` bytes; null: the whole file (no range, or one this server does not serve, such as several). */
export function parseRange(header: string | undefined, size: number): ByteRange {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (!match[1] && !match[2])) return null;
  if (!match[1]) {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(size - suffix, 0), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] ? Math.min(Number(match[2]), size - 1) : size - 1;
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/**
 * Sends an artifact with `ETag` (its SHA-256), `Accept-Ranges`, one `Range` (so that a cut download
 * resumes, `If-Range` honoured), 304 for a matching `If-None-Match`, and `HEAD`. A download that
 * starts at the first byte is counted for its release.
 */
export async function sendArtifact(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, release: ReleaseRow, artifactId: number) {
  const artifact = release.artifacts.find((candidate) => candidate.id === artifactId);
  if (!artifact) throw notFound('Artifact');
  if (prefersJsonTo(request.headers.accept, 'application/octet-stream')) {
    const { storageKey: _storageKey, ...description } = artifact;
    return reply.header('vary', 'accept').header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(description));
  }
  const etag = `"${artifact.sha256}"`;
  reply
    .header('etag', etag)
    .header('accept-ranges', 'bytes')
    .header('vary', 'accept')
    .header('cache-control', 'private, no-cache')
    .header('content-type', 'application/octet-stream')
    .header('content-disposition', `attachment; filename="${artifact.filename}"`);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) return reply.status(304).send();
  const ifRange = request.headers['if-range'];
  const range = ifRange && ifRange !== etag ? null : parseRange(request.headers.range, artifact.size);
  if (range === 'unsatisfiable') return reply.status(416).header('content-range', `bytes */${artifact.size}`).send();
  const { start, end } = range ?? { start: 0, end: artifact.size - 1 };
  reply.header('content-length', String(Math.max(end - start + 1, 0)));
  if (range) reply.status(206).header('content-range', `bytes ${start}-${end}/${artifact.size}`);
  // HEAD: Fastify's HEAD route keeps the Content-Length set above for a stream (an empty one here).
  if (request.method === 'HEAD') return reply.send(Readable.from([]));
  if (start === 0) await countDownload(ctx.db, release.id, new Date().toISOString().slice(0, 7));
  if (artifact.size === 0) return reply.send('');
  return reply.send(fs.createReadStream(artifactPath(ctx, artifact.storageKey), { start, end }));
}
