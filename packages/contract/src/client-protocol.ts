import { z } from 'zod';
import { machineId } from './license.ts';
import { tanCode } from './tan.ts';
import { MAX_BORROW_DAYS } from './license-policy.ts';
import { LICENSE_FILE_FORMATS, LICENSE_SIGNATURE_ALGORITHM } from './license-file.ts';
import { isoDateTime } from './list.ts';

/** `POST /api/client/v1/license`: the desktop software asks for the signed file of its machine. */
export const clientLicenseRequest = z.object({
  machineId,
  /** The product name as in the catalogue. */
  product: z.string().trim().min(1).max(255),
  /** The product version; without it the newest licensed version is chosen. */
  version: z.string().trim().min(1).max(100).optional(),
  /**
   * Borrow the floating seat for this many days of offline use (up to the policy's maxBorrowDays):
   * the seat stays taken and the file valid until then, or until the machine returns it (DELETE).
   */
  borrowDays: z.number().int().min(1).max(MAX_BORROW_DAYS).optional(),
  /**
   * When the software saw the machine's clock set back (clock tampering), reported on its next
   * contact; kept as the license's runtime event `clock.tampered` (DESIGN.md section 6j).
   */
  clockTamperedAt: isoDateTime.optional(),
});
export type ClientLicenseRequest = z.output<typeof clientLicenseRequest>;

/** `DELETE /api/client/v1/license`: frees the floating seat of the machine. */
export const clientReleaseRequest = clientLicenseRequest.pick({ machineId: true, product: true, version: true });
export type ClientReleaseRequest = z.output<typeof clientReleaseRequest>;

/**
 * `POST` and `DELETE /api/client/v1/lease` (DESIGN.md section 6h): a process leases a seat of an
 * INSTANCE policy's TAN (`key`, the TAN's code, e.g. from an environment variable), as the random
 * `instanceId` it made at start.
 */
export const clientLeaseRequest = z.object({
  key: tanCode,
  product: clientLicenseRequest.shape.product,
  version: clientLicenseRequest.shape.version,
  instanceId: z.string().trim().min(8).max(128).regex(/^[A-Za-z0-9._:-]+$/, 'validation.instanceId'),
});
export type ClientLeaseRequest = z.output<typeof clientLeaseRequest>;

export const licenseFileJson = z.object({
  enc: z.string(),
  sig: z.string(),
  alg: z.literal(LICENSE_SIGNATURE_ALGORITHM),
  kid: z.string(),
});

export const publicSigningKey = z.object({
  kid: z.string(),
  alg: z.literal(LICENSE_SIGNATURE_ALGORITHM),
  /** SPKI PEM, as `openssl pkeyutl -pubin` reads it. */
  publicKeyPem: z.string(),
  createdAt: isoDateTime,
});
export type PublicSigningKey = z.output<typeof publicSigningKey>;

export const publicSigningKeys = z.object({ keys: z.array(publicSigningKey) });

export const licenseFileFormat = z.enum(LICENSE_FILE_FORMATS);

/** `GET /api/licenses/{id}/file?format=lic|json`. */
export const licenseFileQuery = z.object({ format: licenseFileFormat.default('lic') });
