import { LICENSE_FILE_FORMAT_VERSION, LICENSE_SIGNATURE_ALGORITHM, signedMessage, type LicenseFileJson, type LicensePayload } from '@lm/contract/license-file';
import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import { signingKeys } from '../../platform/signing/keys.ts';
import { catalogueCache } from './catalogue-cache.ts';
import { lastSeenRecorder } from './last-seen.ts';
import { findLicensesOfMachine, type LicenseForFile } from './repo.ts';
import { leaseSeat, releaseSeatsOfLicense } from './seats.ts';

const DAY_MS = 86_400_000;

/** The moment a license ends: the end (UTC) of its valid-until day; null when permanent or unlimited. */
export function licenseEnd(license: Pick<LicenseForFile, 'validUntil' | 'permanent'>): Date | null {
  if (license.permanent || !license.validUntil) return null;
  const value = license.validUntil;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return new Date(Date.parse(`${value}T00:00:00.000Z`) + DAY_MS);
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time);
}

export type RefusalStatus = 403 | 422;

/** Why no file may be issued for the license now, or null. */
export function refusalOf(license: LicenseForFile, now: Date, status: RefusalStatus): AppError | null {
  if (license.revoked) return new AppError(status, 'ERR_LICENSE_REVOKED', 'This license has been revoked');
  if (license.upgradedToId !== null) {
    return new AppError(status, 'ERR_LICENSE_UPGRADED', 'This license was upgraded to a newer version; use the license of the new version');
  }
  const end = licenseEnd(license);
  if (end && end.getTime() <= now.getTime()) return new AppError(status, 'ERR_LICENSE_EXPIRED', `This license expired on ${license.validUntil}`);
  return null;
}

const earliest = (...dates: (Date | null)[]): Date | null =>
  dates.reduce<Date | null>((first, date) => (date && (!first || date < first) ? date : first), null);

/**
 * When a file issued now stops being valid (DESIGN.md section 6). PERPETUAL: never, unless the
 * license itself ends. INDEFINITE: licenseMaxValidDays from now. FLOATING: the seat's lease, which
 * the client renews every refetch interval and which lasts refetch-before-expiry longer as a grace
 * for a missed refresh; so no more valid floating files exist than seats.
 */
export function fileExpiry(license: LicenseForFile, now: Date): Date | null {
  const end = licenseEnd(license);
  const { type, licenseMaxValidDays, refetchIntervalSeconds, refetchBeforeExpirySeconds } = license.policy;
  if (type === 'PERPETUAL') return end;
  const maxValid = new Date(now.getTime() + licenseMaxValidDays * DAY_MS);
  if (type === 'INDEFINITE') return earliest(maxValid, end);
  const lease = refetchIntervalSeconds > 0 ? new Date(now.getTime() + (refetchIntervalSeconds + refetchBeforeExpirySeconds) * 1000) : null;
  return earliest(maxValid, lease, end);
}

export interface IssuedFile {
  payload: LicensePayload;
  file: LicenseFileJson;
}

/** Signs a payload with the active key; the payload's kid is set to that key. */
export async function signPayload(ctx: AppContext, payload: Omit<LicensePayload, 'kid'>): Promise<IssuedFile> {
  const signer = signingKeys(ctx).current();
  const full: LicensePayload = { ...payload, kid: signer.kid };
  const enc = Buffer.from(JSON.stringify(full), 'utf8').toString('base64');
  const sig = await signer.sign(signedMessage(enc));
  return { payload: full, file: { enc, sig, alg: LICENSE_SIGNATURE_ALGORITHM, kid: signer.kid } };
}

export interface IssueOptions {
  machineId: string;
  now?: Date;
  /** 403 for the desktop protocol (DESIGN.md section 6), 422 for a download in the web app. */
  refusalStatus: RefusalStatus;
}

/**
 * A fresh signed file of a stored license for its machine: refused when revoked, upgraded or
 * expired; a floating license first takes or renews a seat. Records the machine as seen.
 */
export async function issueLicenseFile(ctx: AppContext, license: LicenseForFile, options: IssueOptions): Promise<IssuedFile> {
  const now = options.now ?? new Date();
  const issuedAt = now.toISOString();
  lastSeenRecorder(ctx).record(license.id, options.machineId, issuedAt);
  const refusal = refusalOf(license, now, options.refusalStatus);
  if (refusal) {
    if (license.revoked && license.policy.type === 'FLOATING') await releaseSeatsOfLicense(ctx, license.id, now);
    throw refusal;
  }
  const expiresAt = fileExpiry(license, now);
  if (license.policy.type === 'FLOATING' && expiresAt) await leaseSeat(ctx, license, options.machineId, now, expiresAt);
  const cache = catalogueCache(ctx);
  const [features, serverCustomerId] = await Promise.all([cache.featureNames(license.productId, now.getTime()), cache.serverCustomerId(now.getTime())]);
  return signPayload(ctx, {
    formatVersion: LICENSE_FILE_FORMAT_VERSION,
    licenseId: license.id,
    kind: license.kind,
    policyType: license.policy.type,
    product: { id: license.productId, name: license.product.name, version: license.product.version },
    features,
    machineId: options.machineId,
    owner: { name: `${license.owner.firstName} ${license.owner.lastName}`.trim(), company: license.owner.company },
    issuedAt,
    expiresAt: expiresAt?.toISOString() ?? null,
    licenseValidUntil: license.permanent ? null : license.validUntil,
    permanent: license.permanent,
    freeUpdatesUntil: license.freeUpdatesUntil,
    refetchIntervalSeconds: license.policy.refetchIntervalSeconds,
    refetchBeforeExpirySeconds: license.policy.refetchBeforeExpirySeconds,
    serverCustomerId,
  });
}

/**
 * The licenses of a machine for a product (by name, and version when given): one indexed query,
 * product and policy from the catalogue cache.
 */
export async function machineLicensesFor(ctx: AppContext, machineId: string, productName: string, version?: string): Promise<LicenseForFile[]> {
  const rows = await findLicensesOfMachine(ctx.db, machineId);
  if (!rows.length) return [];
  const cache = catalogueCache(ctx);
  let catalogue = await cache.current();
  // Only real licenses trigger a reload, never a product name a caller made up.
  if (rows.some((row) => !catalogue.product(row.productId) || !catalogue.policy(row.policyId))) catalogue = await cache.current({ reload: true });
  const wanted = new Set(catalogue.productsNamed(productName, version).map((product) => product.id));
  return rows.flatMap((row) => {
    const product = catalogue.product(row.productId);
    const policy = catalogue.policy(row.policyId);
    return wanted.has(row.productId) && product && policy ? [{ ...row, product, policy }] : [];
  });
}
