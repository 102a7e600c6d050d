/**
 * Reading and verifying license files, without dependencies: WebCrypto Ed25519 (Node 20+, Electron,
 * current browsers), atob and TextDecoder. The format is described in docs/license-files.md.
 */

export interface LicensePayload {
  formatVersion: number;
  licenseId: number | null;
  kind: 'TAN' | 'TEMPORARY' | 'ANYLIC';
  policyType: 'PERPETUAL' | 'INDEFINITE' | 'FLOATING' | null;
  product: { id: number; name: string; version: string };
  features: string[];
  /** The machine the file is for; `*` for any machine (ANY-Lic). */
  machineId: string;
  owner: { name: string; company: string | null };
  issuedAt: string;
  /** When the file stops being valid; null: never. */
  expiresAt: string | null;
  licenseValidUntil: string | null;
  permanent: boolean;
  freeUpdatesUntil: string | null;
  refetchIntervalSeconds: number;
  refetchBeforeExpirySeconds: number;
  serverCustomerId: string | null;
  kid: string;
  /** Set when the machine borrowed its floating seat for offline use: the seat is held until then. */
  borrowedUntil?: string | null;
  /** Each feature with its value: true for a flag, a number or a text (files before entitlements lack it). */
  entitlements?: Record<string, true | number | string>;
  /** Key–value pairs of the license and its TAN. */
  metadata?: Record<string, string>;
  /** This floating seat was granted beyond the count (a soft limit). */
  overage?: boolean;
  /** A file bound to an install key (offline activation): only that installation may use it. */
  installKeyId?: string;
  /** An instance lease's file: `machineId` is the process's instance id. */
  leaseMode?: 'INSTANCE';
}

/** Whether the license has the feature (DESIGN.md section 6g). */
export function hasFeature(payload: Pick<LicensePayload, 'features' | 'entitlements'>, name: string): boolean {
  return payload.entitlements ? Object.hasOwn(payload.entitlements, name) : payload.features.includes(name);
}

/** The feature's value: a number or a text, true for a flag, null when the license lacks the feature. */
export function featureValue(payload: Pick<LicensePayload, 'features' | 'entitlements'>, name: string): true | number | string | null {
  if (!hasFeature(payload, name)) return null;
  return payload.entitlements?.[name] ?? true;
}

/** The license's metadata (empty when the file has none). */
export function metadata(payload: Pick<LicensePayload, 'metadata'>): Record<string, string> {
  return { ...(payload.metadata ?? {}) };
}

export interface LicenseFile {
  enc: string;
  sig: string;
  alg: 'ed25519';
  kid: string;
}

/** A pinned public key, as `GET /api/client/v1/keys` publishes it. */
export interface PublicKey {
  kid: string;
  publicKeyPem: string;
}

export class InvalidLicenseFileError extends Error {
  readonly problem: 'MALFORMED' | 'UNKNOWN_KEY' | 'BAD_SIGNATURE';

  constructor(problem: InvalidLicenseFileError['problem'], message: string) {
    super(message);
    this.problem = problem;
  }
}

const BEGIN = '-----BEGIN LICENSE FILE-----';
const END = '-----END LICENSE FILE-----';
const decoder = new TextDecoder('utf-8', { fatal: true });

export function base64ToBytes(base64: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 !== 0) throw new InvalidLicenseFileError('MALFORMED', 'not valid base64');
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function utf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new InvalidLicenseFileError('MALFORMED', 'not UTF-8 text');
  }
}

/** Reads a `.lic` or `.json` license file. */
export function parseLicenseFile(text: string): LicenseFile {
  let json = text.trim();
  if (json.startsWith(BEGIN)) {
    const end = json.indexOf(END);
    if (end < 0) throw new InvalidLicenseFileError('MALFORMED', 'the END LICENSE FILE line is missing');
    json = utf8(base64ToBytes(json.slice(BEGIN.length, end).replace(/\s+/g, '')));
  }
  let file: Partial<LicenseFile> | null;
  try {
    file = JSON.parse(json) as Partial<LicenseFile> | null;
  } catch {
    throw new InvalidLicenseFileError('MALFORMED', 'the license file is not JSON');
  }
  if (!file || typeof file.enc !== 'string' || typeof file.sig !== 'string' || typeof file.kid !== 'string' || file.alg !== 'ed25519') {
    throw new InvalidLicenseFileError('MALFORMED', 'the license file lacks enc, sig, alg "ed25519" or kid');
  }
  return { enc: file.enc, sig: file.sig, alg: 'ed25519', kid: file.kid };
}

type VerifyKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>;
const importedKeys = new Map<string, Promise<VerifyKey>>();

export function importKey(pem: string): Promise<VerifyKey> {
  let key = importedKeys.get(pem);
  if (!key) {
    const der = base64ToBytes(pem.replace(/-----(BEGIN|END)[^-]*-----/g, '').replace(/\s+/g, ''));
    key = globalThis.crypto.subtle.importKey('spki', der, { name: 'Ed25519' }, false, ['verify']);
    key.catch(() => importedKeys.delete(pem));
    importedKeys.set(pem, key);
  }
  return key;
}

/**
 * Verifies a license file against pinned public keys and returns its payload. Throws
 * InvalidLicenseFileError when it is malformed, signed by an unknown key, or altered.
 */
export async function verifyLicenseFile(input: string | LicenseFile, keys: readonly PublicKey[]): Promise<LicensePayload> {
  const file = typeof input === 'string' ? parseLicenseFile(input) : input;
  const pinned = keys.find((key) => key.kid === file.kid);
  if (!pinned) throw new InvalidLicenseFileError('UNKNOWN_KEY', `signed with the unknown key ${file.kid}`);
  const message = new TextEncoder().encode(`license/${file.enc}`);
  const valid = await globalThis.crypto.subtle.verify({ name: 'Ed25519' }, await importKey(pinned.publicKeyPem), base64ToBytes(file.sig), message);
  if (!valid) throw new InvalidLicenseFileError('BAD_SIGNATURE', 'the signature does not match: the file was altered');
  let payload: LicensePayload;
  try {
    payload = JSON.parse(utf8(base64ToBytes(file.enc))) as LicensePayload;
  } catch (error) {
    throw error instanceof InvalidLicenseFileError ? error : new InvalidLicenseFileError('MALFORMED', 'the payload is not JSON');
  }
  if (payload.kid !== file.kid) throw new InvalidLicenseFileError('BAD_SIGNATURE', 'the payload names another key');
  return payload;
}

/** When to fetch a fresh file: the earlier of issuedAt + interval and expiresAt − before-expiry; null: never. */
export function refreshDueAt(payload: LicensePayload): Date | null {
  const candidates: number[] = [];
  if (payload.refetchIntervalSeconds > 0) candidates.push(Date.parse(payload.issuedAt) + payload.refetchIntervalSeconds * 1000);
  if (payload.expiresAt) candidates.push(Date.parse(payload.expiresAt) - payload.refetchBeforeExpirySeconds * 1000);
  return candidates.length ? new Date(Math.min(...candidates)) : null;
}

/**
 * When to ask again after the server confirmed a stored file (304) at `confirmedAt`: the next
 * interval, but at the latest when the file falls due for a new one: its refresh-before-expiry time,
 * or, when that has passed already, the middle of its validity (from then on the server sends a new
 * file rather than confirming this one). Null: never.
 */
export function refreshDueAfterConfirmation(payload: LicensePayload, confirmedAt: Date): Date | null {
  const confirmed = confirmedAt.getTime();
  const candidates: number[] = [];
  if (payload.refetchIntervalSeconds > 0) candidates.push(confirmed + payload.refetchIntervalSeconds * 1000);
  if (payload.expiresAt) {
    const issued = Date.parse(payload.issuedAt);
    const expires = Date.parse(payload.expiresAt);
    const beforeExpiry = expires - payload.refetchBeforeExpirySeconds * 1000;
    candidates.push(beforeExpiry > confirmed ? beforeExpiry : issued + (expires - issued) / 2);
  }
  return candidates.length ? new Date(Math.min(...candidates)) : null;
}

/**
 * The file's ETag as the server writes it (docs/license-files.md): its issue time and a hash of its
 * signed payload. The client sends it as If-None-Match; the server answers 304 while the file is
 * still right. Derived from the file itself, so it needs no storage and works for any file held.
 */
export async function licenseFileTag(file: LicenseFile, payload: Pick<LicensePayload, 'issuedAt'>): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(file.enc)));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  const hash = btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '').slice(0, 22);
  return `"lm1-${Date.parse(payload.issuedAt).toString(36)}-${hash}"`;
}

export function isExpired(payload: LicensePayload, now: Date): boolean {
  return payload.expiresAt !== null && Date.parse(payload.expiresAt) <= now.getTime();
}

/** The server's signed time from a `License-Server-Time` header (docs/license-files.md): `{ t: Unix seconds, kid }`. */
export interface ServerTime {
  t: number;
  kid: string;
}

/**
 * Verifies a `License-Server-Time` value (`<enc>.<sig>`, signed over `time/` + enc) against pinned
 * keys. Throws InvalidLicenseFileError when it is malformed, signed by an unknown key, or altered.
 */
export async function verifyServerTime(value: string, keys: readonly PublicKey[]): Promise<ServerTime> {
  const [enc, sig, ...rest] = value.trim().split('.');
  if (!enc || !sig || rest.length) throw new InvalidLicenseFileError('MALFORMED', 'a time token is <enc>.<sig>');
  let token: Partial<ServerTime>;
  try {
    token = JSON.parse(utf8(base64ToBytes(enc))) as Partial<ServerTime>;
  } catch (error) {
    throw error instanceof InvalidLicenseFileError ? error : new InvalidLicenseFileError('MALFORMED', 'the time token is not JSON');
  }
  if (typeof token.t !== 'number' || !Number.isFinite(token.t) || typeof token.kid !== 'string') throw new InvalidLicenseFileError('MALFORMED', 'the time token lacks t or kid');
  const pinned = keys.find((key) => key.kid === token.kid);
  if (!pinned) throw new InvalidLicenseFileError('UNKNOWN_KEY', `time signed with the unknown key ${token.kid}`);
  const valid = await globalThis.crypto.subtle.verify({ name: 'Ed25519' }, await importKey(pinned.publicKeyPem), base64ToBytes(sig), new TextEncoder().encode(`time/${enc}`));
  if (!valid) throw new InvalidLicenseFileError('BAD_SIGNATURE', 'the time token was altered');
  return { t: token.t, kid: token.kid };
}
