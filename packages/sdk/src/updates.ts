/**
 * Updates for the licensed software (DESIGN.md section 6i): `checkForUpdate` asks the server which
 * newer release the machine's license is entitled to and verifies the signed answer with the pinned
 * keys; `downloadUpdate` fetches one of its files through the signed link and keeps nothing unless
 * its size, SHA-256 and the server's signature over `artifact/` + SHA-256 are right.
 */
import { base64ToBytes, importKey, InvalidLicenseFileError, type PublicKey } from './format.js';

export type UpdatePlatform = 'windows' | 'macos' | 'linux' | 'any';
export type UpdateArch = 'x86_64' | 'arm64' | 'any';

export interface UpdateArtifact {
  platform: UpdatePlatform;
  arch: UpdateArch;
  filename: string;
  size: number;
  sha256: string;
  sig: string;
  kid: string;
  url: string;
  urlExpiresAt: string;
}

export interface UpdateInfo {
  /** The newest release newer than the running version that the license may have, with its files for this platform, or null. */
  latest: { version: string; releasedAt: string; notes: Record<string, string>; artifacts: UpdateArtifact[] } | null;
  /** The newest release the license may not have, and why ('free-updates-ended', 'beta-not-allowed'), or null. */
  newer: { version: string; releasedAt: string; reason: string } | null;
  issuedAt: string;
}

export interface CheckForUpdateOptions {
  serverUrl: string;
  product: string;
  /** The running version (semver). */
  version: string;
  machineId: string;
  platform: UpdatePlatform;
  arch: UpdateArch;
  channel?: 'stable' | 'beta';
  /** The public keys shipped with the software. */
  publicKeys: readonly PublicKey[];
  fetch?: typeof globalThis.fetch;
}

export class UpdateError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

async function verifiedBy(keys: readonly PublicKey[], kid: string, sig: string, message: string): Promise<boolean> {
  const pinned = keys.find((key) => key.kid === kid);
  if (!pinned) return false;
  return globalThis.crypto.subtle.verify({ name: 'Ed25519' }, await importKey(pinned.publicKeyPem), base64ToBytes(sig), new TextEncoder().encode(message));
}

/** Asks `POST /api/client/v1/updates`; throws UpdateError with the server's code (ERR_NO_LICENSE, …) or BAD_SIGNATURE. */
export async function checkForUpdate(options: CheckForUpdateOptions): Promise<UpdateInfo> {
  const fetch = options.fetch ?? globalThis.fetch;
  const response = await fetch(`${options.serverUrl.replace(/\/$/, '')}/api/client/v1/updates`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ machineId: options.machineId, product: options.product, version: options.version, platform: options.platform, arch: options.arch, channel: options.channel ?? 'stable' }),
  });
  const body = (await response.json()) as { enc?: string; sig?: string; kid?: string; error?: string; message?: string };
  if (!response.ok) throw new UpdateError(body.error ?? `HTTP_${response.status}`, body.message ?? `The server answered ${response.status}`);
  if (!body.enc || !body.sig || !body.kid) throw new InvalidLicenseFileError('MALFORMED', 'the updates answer lacks enc, sig or kid');
  if (!(await verifiedBy(options.publicKeys, body.kid, body.sig, `updates/${body.enc}`))) throw new UpdateError('BAD_SIGNATURE', 'the updates answer is not signed by a pinned key');
  return JSON.parse(new TextDecoder().decode(base64ToBytes(body.enc))) as UpdateInfo;
}

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, '0')).join('');

/**
 * Downloads a file of an update and returns its bytes once size, SHA-256 and signature are right;
 * otherwise throws UpdateError (SIZE_MISMATCH, CHECKSUM_MISMATCH, BAD_SIGNATURE) and keeps nothing.
 * The whole file is held in memory; for very large files, stream it to disk and check the same three.
 */
export async function downloadUpdate(artifact: UpdateArtifact, publicKeys: readonly PublicKey[], options: { fetch?: typeof globalThis.fetch } = {}): Promise<Uint8Array> {
  if (!(await verifiedBy(publicKeys, artifact.kid, artifact.sig, `artifact/${artifact.sha256}`))) throw new UpdateError('BAD_SIGNATURE', 'the file’s checksum is not signed by a pinned key');
  const response = await (options.fetch ?? globalThis.fetch)(artifact.url);
  if (!response.ok) throw new UpdateError(`HTTP_${response.status}`, `The download answered ${response.status}`);
  const bytes = await response.arrayBuffer();
  if (bytes.byteLength !== artifact.size) throw new UpdateError('SIZE_MISMATCH', `expected ${artifact.size} bytes, got ${bytes.byteLength}`);
  if (hex(await globalThis.crypto.subtle.digest('SHA-256', bytes)) !== artifact.sha256) throw new UpdateError('CHECKSUM_MISMATCH', 'the downloaded file is not the signed one');
  return new Uint8Array(bytes);
}
