/**
 * The signed license file (DESIGN.md section 6): its payload, its two formats and their
 * verification. Pure code without imports, so that the server, the web app and tests share it and it
 * runs unchanged in Node and in browsers (WebCrypto Ed25519, atob/btoa, TextEncoder).
 *
 *   enc = base64(UTF-8 bytes of the payload JSON)
 *   sig = base64(Ed25519 signature of the ASCII bytes of "license/" + enc)
 *   .json = {"enc":…,"sig":…,"alg":"ed25519","kid":…}
 *   .lic  = that JSON, base64, in 64-character lines between BEGIN/END LICENSE FILE lines
 */

export const LICENSE_FILE_FORMAT_VERSION = 1;
export const LICENSE_SIGNATURE_ALGORITHM = 'ed25519';
/** Prefixed to `enc` before signing, so that a license signature cannot be replayed as any other. */
export const LICENSE_SIGNATURE_PREFIX = 'license/';
export const LIC_BEGIN = '-----BEGIN LICENSE FILE-----';
export const LIC_END = '-----END LICENSE FILE-----';
/** The machine id of an ANY-Lic file: any machine. */
export const ANY_MACHINE = '*';

export const LICENSE_FILE_FORMATS = ['lic', 'json'] as const;
export type LicenseFileFormat = (typeof LICENSE_FILE_FORMATS)[number];
export type LicenseFileKind = 'TAN' | 'TEMPORARY' | 'ANYLIC';
export type LicensePolicyType = 'PERPETUAL' | 'INDEFINITE' | 'FLOATING';

export interface LicensePayload {
  formatVersion: number;
  /** null for an ANY-Lic file, which belongs to no stored license. */
  licenseId: number | null;
  kind: LicenseFileKind;
  /** null for an ANY-Lic file. */
  policyType: LicensePolicyType | null;
  product: { id: number; name: string; version: string };
  /** Feature names with expand-to-features applied, sorted (the keys of entitlements). */
  features: string[];
  /** DESIGN.md section 6g: each feature with its value (true for a flag or no value), sorted by name. */
  entitlements: Record<string, true | number | string>;
  /** Key–value pairs of the TAN and the license (the license's win); never the server-only `_` keys. */
  metadata: Record<string, string>;
  /** The machine the file is for; `*` for any machine. */
  machineId: string;
  owner: { name: string; company: string | null };
  issuedAt: string;
  /** When this file stops being valid; null: never (a perpetual license). */
  expiresAt: string | null;
  /** The license's own end (a date), null when permanent or unlimited. */
  licenseValidUntil: string | null;
  permanent: boolean;
  freeUpdatesUntil: string | null;
  /** Refresh this often (0: no periodic refresh). */
  refetchIntervalSeconds: number;
  /** Refresh at the latest this long before expiresAt. */
  refetchBeforeExpirySeconds: number;
  serverCustomerId: string | null;
  kid: string;
  /** A floating seat borrowed for offline use (DESIGN.md section 6) runs until then; absent otherwise. */
  borrowedUntil?: string;
  /** A named-user seat (DESIGN.md section 6f): the person the file is licensed to; absent otherwise. */
  licensee?: { userId: number; name: string };
  /** A floating seat granted beyond the count (a soft limit, DESIGN.md section 6g); absent otherwise. */
  overage?: true;
  /** An instance lease's file (DESIGN.md section 6h): `machineId` is the process's instance id. */
  leaseMode?: 'INSTANCE';
  /** A file bound to an install key (offline activation): the key's SHA-256 thumbprint. */
  installKeyId?: string;
}

export interface LicenseFileJson {
  enc: string;
  sig: string;
  alg: typeof LICENSE_SIGNATURE_ALGORITHM;
  kid: string;
}

export interface PublicKeyInfo {
  kid: string;
  publicKeyPem: string;
}

export type LicenseFileProblem = 'MALFORMED' | 'UNKNOWN_KEY' | 'BAD_SIGNATURE';

export class LicenseFileError extends Error {
  readonly problem: LicenseFileProblem;

  constructor(problem: LicenseFileProblem, message: string) {
    super(message);
    this.problem = problem;
  }
}

// ---------------------------------------------------------------------------------------------
// Base64 and text

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  return btoa(binary);
}

export function base64ToBytes(base64: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 !== 0) {
    throw new LicenseFileError('MALFORMED', 'not valid base64');
  }
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function encodePayload(payload: LicensePayload): string {
  return bytesToBase64(encoder.encode(JSON.stringify(payload)));
}

/** The exact bytes that `sig` signs. */
export function signedMessage(enc: string): Uint8Array {
  return encoder.encode(LICENSE_SIGNATURE_PREFIX + enc);
}

/**
 * Trusted time (DESIGN.md section 6d): every desktop-protocol answer carries the server's time in
 * this header, as `<enc>.<sig>`: enc = base64 of the JSON `{"t": <Unix seconds>, "kid": <key id>}`,
 * sig = base64 Ed25519 signature of `time/` + enc by the license-signing key. The prefix keeps a
 * time token from ever passing for a license file and the other way round.
 */
export const SERVER_TIME_HEADER = 'license-server-time';
export const SERVER_TIME_SIGNATURE_PREFIX = 'time/';

export interface ServerTimeToken {
  /** The server's clock, in whole seconds since 1970-01-01T00:00:00Z. */
  t: number;
  kid: string;
}

/** The exact bytes that a time token's signature signs. */
export function serverTimeMessage(enc: string): Uint8Array {
  return encoder.encode(SERVER_TIME_SIGNATURE_PREFIX + enc);
}

export function encodeServerTime(token: ServerTimeToken): string {
  return bytesToBase64(encoder.encode(JSON.stringify({ t: token.t, kid: token.kid })));
}

// ---------------------------------------------------------------------------------------------
// The two formats

/** The `.json` format: one line of JSON. */
export function formatJsonFile(file: LicenseFileJson): string {
  return `${JSON.stringify({ enc: file.enc, sig: file.sig, alg: file.alg, kid: file.kid })}\n`;
}

/** The `.lic` format: the JSON, base64, wrapped in armor lines of 64 characters. */
export function formatLicFile(file: LicenseFileJson): string {
  const body = btoa(formatJsonFile(file).trimEnd());
  const lines = body.match(/.{1,64}/g) ?? [];
  return `${LIC_BEGIN}\n${lines.join('\n')}\n${LIC_END}\n`;
}

export function formatLicenseFile(file: LicenseFileJson, format: LicenseFileFormat): string {
  return format === 'lic' ? formatLicFile(file) : formatJsonFile(file);
}

/** Reads either format; throws LicenseFileError('MALFORMED') for anything else. */
export function parseLicenseFile(text: string): LicenseFileJson {
  const trimmed = text.trim();
  let json: string;
  if (trimmed.startsWith(LIC_BEGIN)) {
    const end = trimmed.indexOf(LIC_END);
    if (end < 0) throw new LicenseFileError('MALFORMED', 'the END LICENSE FILE line is missing');
    const body = trimmed.slice(LIC_BEGIN.length, end).replace(/\s+/g, '');
    json = decoder.decode(base64ToBytes(body));
  } else {
    json = trimmed;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new LicenseFileError('MALFORMED', 'the license file is not JSON');
  }
  const file = parsed as Partial<LicenseFileJson> | null;
  if (
    !file ||
    typeof file !== 'object' ||
    typeof file.enc !== 'string' ||
    typeof file.sig !== 'string' ||
    typeof file.kid !== 'string' ||
    file.alg !== LICENSE_SIGNATURE_ALGORITHM
  ) {
    throw new LicenseFileError('MALFORMED', 'the license file lacks enc, sig, alg "ed25519" or kid');
  }
  return { enc: file.enc, sig: file.sig, alg: file.alg, kid: file.kid };
}

/** The payload of `enc`, unverified: call verifyLicenseFile to trust it. */
export function decodePayload(enc: string): LicensePayload {
  let payload: unknown;
  try {
    payload = JSON.parse(decoder.decode(base64ToBytes(enc)));
  } catch (error) {
    if (error instanceof LicenseFileError) throw error;
    throw new LicenseFileError('MALFORMED', 'the payload is not UTF-8 JSON');
  }
  const p = payload as Partial<LicensePayload> | null;
  if (!p || typeof p !== 'object' || typeof p.machineId !== 'string' || typeof p.issuedAt !== 'string' || !p.product || typeof p.kid !== 'string') {
    throw new LicenseFileError('MALFORMED', 'the payload lacks its required fields');
  }
  return p as LicensePayload;
}

// ---------------------------------------------------------------------------------------------
// Verification (WebCrypto, Node and browsers)

/** The DER bytes of a PEM block (SPKI public key). */
export function pemToDer(pem: string): Uint8Array {
  const body = pem.replace(/-----(BEGIN|END)[^-]*-----/g, '').replace(/\s+/g, '');
  return base64ToBytes(body);
}

/**
 * Checks the signature with the public key named by the file's kid and returns the payload.
 * Throws LicenseFileError: MALFORMED, UNKNOWN_KEY (kid not among `keys`) or BAD_SIGNATURE.
 */
export async function verifyLicenseFile(input: string | LicenseFileJson, keys: readonly PublicKeyInfo[]): Promise<LicensePayload> {
  const file = typeof input === 'string' ? parseLicenseFile(input) : input;
  const key = keys.find((candidate) => candidate.kid === file.kid);
  if (!key) throw new LicenseFileError('UNKNOWN_KEY', `the license file is signed with the unknown key ${file.kid}`);
  const subtle = globalThis.crypto.subtle;
  const publicKey = await subtle.importKey('spki', pemToDer(key.publicKeyPem) as Uint8Array<ArrayBuffer>, { name: 'Ed25519' }, false, ['verify']);
  const signature = base64ToBytes(file.sig) as Uint8Array<ArrayBuffer>;
  const valid = await subtle.verify({ name: 'Ed25519' }, publicKey, signature, signedMessage(file.enc) as Uint8Array<ArrayBuffer>);
  if (!valid) throw new LicenseFileError('BAD_SIGNATURE', 'the license file signature is not valid');
  const payload = decodePayload(file.enc);
  if (payload.kid !== file.kid) throw new LicenseFileError('BAD_SIGNATURE', 'the payload names another signing key');
  return payload;
}

// ---------------------------------------------------------------------------------------------
// Names and times

/** A download name that tells product, version and machine: `Product-2.1-MACHINE.lic`. */
export function licenseFileName(product: { name: string; version: string }, machineId: string, format: LicenseFileFormat): string {
  const safe = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+|_+$/g, '').slice(0, 80) || 'x';
  const machine = machineId === ANY_MACHINE ? 'ANY' : safe(machineId);
  return `${safe(product.name)}-${safe(product.version)}-${machine}.${format}`;
}

/** When the client should fetch a fresh file: the earlier of the interval and the before-expiry mark; null: never. */
export function refreshDueAt(payload: Pick<LicensePayload, 'issuedAt' | 'expiresAt' | 'refetchIntervalSeconds' | 'refetchBeforeExpirySeconds'>): Date | null {
  const candidates: number[] = [];
  if (payload.refetchIntervalSeconds > 0) candidates.push(Date.parse(payload.issuedAt) + payload.refetchIntervalSeconds * 1000);
  if (payload.expiresAt) candidates.push(Date.parse(payload.expiresAt) - payload.refetchBeforeExpirySeconds * 1000);
  return candidates.length ? new Date(Math.min(...candidates)) : null;
}
