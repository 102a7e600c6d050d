import { createHash, createPublicKey, verify } from 'node:crypto';
import { DEACTIVATION_PROOF, OFFLINE_REQUEST, OFFLINE_REQUEST_MAX_AGE_MS, unarmor, type DeactivationProof, type OfflineArmor, type OfflineRequest } from '@lm/contract/offline';
import { AppError } from '../../platform/http/errors.ts';

/** The reading and checking of request and proof files (DESIGN.md section 6h), with node:crypto's Ed25519. */

export const invalidRequestFile = (why: string) => new AppError(422, 'ERR_INVALID_REQUEST_FILE', `This is not a valid license request file: ${why}`);
export const invalidProof = (why: string) => new AppError(422, 'ERR_INVALID_PROOF', `This deactivation proof is not valid for this license: ${why}`);

/** An install key's id: the SHA-256 (hex) of its SPKI DER bytes. */
export function installKeyIdOf(spkiBase64: string): string {
  return createHash('sha256').update(Buffer.from(spkiBase64, 'base64')).digest('hex');
}

function verifiedBy(kind: OfflineArmor, parts: { enc: string; sig: string }, spkiBase64: string): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(spkiBase64, 'base64'), format: 'der', type: 'spki' });
    if (key.asymmetricKeyType !== 'ed25519') return false;
    return verify(null, Buffer.from(kind.prefix + parts.enc, 'utf8'), key, Buffer.from(parts.sig, 'base64'));
  } catch {
    return false;
  }
}

function decoded(enc: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(enc, 'base64').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const isText = (value: unknown, max = 255): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;
const isTime = (value: unknown): value is string => isText(value, 40) && !Number.isNaN(Date.parse(value));

/** A request file's content, signed by the install key it carries and at most a week old; refused otherwise. */
export function readOfflineRequest(text: string, now: Date): OfflineRequest & { installKeyId: string } {
  const parts = unarmor(OFFLINE_REQUEST, text);
  if (!parts) throw invalidRequestFile('it is incomplete or not a request file');
  const body = decoded(parts.enc);
  if (
    !body ||
    body.v !== 1 ||
    !isText(body.product) ||
    !(body.version === undefined || body.version === null || isText(body.version, 100)) ||
    !isText(body.machineId) ||
    !isText(body.installKey, 200) ||
    !isTime(body.createdAt) ||
    !isText(body.nonce, 100)
  ) {
    throw invalidRequestFile('its content is incomplete');
  }
  const request = body as unknown as OfflineRequest;
  if (!verifiedBy(OFFLINE_REQUEST, parts, request.installKey)) throw invalidRequestFile('its signature does not match its install key');
  const createdAt = Date.parse(request.createdAt);
  if (createdAt > now.getTime() + 5 * 60_000) throw invalidRequestFile('it was made in the future');
  if (now.getTime() - createdAt > OFFLINE_REQUEST_MAX_AGE_MS) {
    throw new AppError(422, 'ERR_REQUEST_TOO_OLD', 'This license request file is older than a week; create a new request on the offline machine');
  }
  return { ...request, installKeyId: installKeyIdOf(request.installKey) };
}

/**
 * A proof file's content, and `signedBy` to check that the install key `spkiBase64` signed it (a
 * replay is told apart before: its key is no longer the license's).
 */
export function readDeactivationProof(text: string): { proof: DeactivationProof; signedBy(spkiBase64: string | null): boolean } {
  const parts = unarmor(DEACTIVATION_PROOF, text);
  if (!parts) throw invalidProof('it is incomplete or not a deactivation proof');
  const body = decoded(parts.enc);
  if (
    !body ||
    body.v !== 1 ||
    typeof body.licenseId !== 'number' ||
    !isText(body.machineId) ||
    !isText(body.installKeyId, 100) ||
    !isTime(body.fileIssuedAt) ||
    !isTime(body.deactivatedAt) ||
    !isText(body.nonce, 100)
  ) {
    throw invalidProof('its content is incomplete');
  }
  return { proof: body as unknown as DeactivationProof, signedBy: (spkiBase64) => spkiBase64 !== null && verifiedBy(DEACTIVATION_PROOF, parts, spkiBase64) };
}
