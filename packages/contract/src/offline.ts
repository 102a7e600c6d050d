import { z } from 'zod';
import { tanCode } from './tan.ts';

/**
 * Offline activation and verifiable deactivation (DESIGN.md section 6h). A request or proof file is
 * armored text: a BEGIN line, `<enc>.<sig>` (wrapped at any width), an END line. `enc` is base64 of
 * the JSON; `sig` the base64 Ed25519 signature, by the install key, of the prefix + `enc`, so that a
 * request never passes for a proof or a license file and the other way round.
 */
export const OFFLINE_REQUEST = { label: 'LICENSE REQUEST', prefix: 'request/' } as const;
export const DEACTIVATION_PROOF = { label: 'DEACTIVATION PROOF', prefix: 'deactivation/' } as const;
export type OfflineArmor = typeof OFFLINE_REQUEST | typeof DEACTIVATION_PROOF;

/** The largest request or proof file the portal and the API take. */
export const OFFLINE_FILE_MAX_BYTES = 65_536;
/** A request older than this is refused: the machine makes a new one. */
export const OFFLINE_REQUEST_MAX_AGE_MS = 7 * 86_400_000;

/** What the harness's `request` writes: the install key (SPKI DER, base64) asks for a license of the product on the machine. */
export interface OfflineRequest {
  v: 1;
  product: string;
  version?: string | null;
  machineId: string;
  installKey: string;
  createdAt: string;
  nonce: string;
}

/** What the harness's `deactivate` writes when it retires the file of license `licenseId`. */
export interface DeactivationProof {
  v: 1;
  licenseId: number;
  machineId: string;
  installKeyId: string;
  fileIssuedAt: string;
  deactivatedAt: string;
  nonce: string;
}

export function armor(kind: OfflineArmor, enc: string, sig: string): string {
  const body = `${enc}.${sig}`.replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN ${kind.label}-----\n${body}\n-----END ${kind.label}-----\n`;
}

/** The `enc` and `sig` of an armored file, or null when it is not one of that kind (or truncated). */
export function unarmor(kind: OfflineArmor, text: string): { enc: string; sig: string } | null {
  const match = new RegExp(`-----BEGIN ${kind.label}-----([\\s\\S]*?)-----END ${kind.label}-----`).exec(text);
  if (!match) return null;
  const [enc, sig, ...rest] = match[1].replace(/\s+/g, '').split('.');
  if (!enc || !sig || rest.length || !/^[A-Za-z0-9+/]+={0,2}$/.test(enc) || !/^[A-Za-z0-9+/]+={0,2}$/.test(sig)) return null;
  return { enc, sig };
}

const offlineFile = z.string().min(1).max(OFFLINE_FILE_MAX_BYTES);

/** `POST /api/licenses/offline-request`: the request file's text, to read before activating. */
export const offlineRequestBody = z.object({ request: offlineFile });

/** `POST /api/licenses/offline-activation`: the request file's text and a TAN or an existing license of the caller. */
export const offlineActivationBody = z
  .object({
    request: offlineFile,
    tan: tanCode.optional(),
    licenseId: z.number().int().positive().optional(),
  })
  .refine((body) => (body.tan === undefined) !== (body.licenseId === undefined), { path: ['tan'], message: 'validation.tanOrLicense' });
export type OfflineActivationBody = z.output<typeof offlineActivationBody>;

/** `POST /api/licenses/{id}/offline-deactivation`: the proof file's text. */
export const offlineDeactivationBody = z.object({ proof: offlineFile });
export type OfflineDeactivationBody = z.output<typeof offlineDeactivationBody>;

/** What the portal shows of a request before activating: `POST /api/licenses/offline-request`. */
export const offlineRequestSummary = z.object({ product: z.string(), version: z.string().nullable(), machineId: z.string(), installKeyId: z.string(), createdAt: z.string() });
export type OfflineRequestSummary = z.output<typeof offlineRequestSummary>;
