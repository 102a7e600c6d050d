import { readFromReplica } from '../../platform/db/replica-driver.ts';
import { LICENSE_FILE_FORMAT_VERSION, LICENSE_SIGNATURE_ALGORITHM, signedMessage, type LicenseFileJson, type LicensePayload } from '@lm/contract/license-file';
import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import { signingKeys, type Signer } from '../../platform/signing/keys.ts';
import { publicMetadata } from '@lm/contract/entitlement';
import { catalogueCache } from './catalogue-cache.ts';
import { encHash, formatFileTag, licenseFileTag, parseFileTags, type FileTag } from './file-tag.ts';
import { findLicensesOfMachine, type LicenseForFile } from './repo.ts';
import { leaseSeat, renewSeatLater } from './seats.ts';

const DAY_MS = 86_400_000;

/**
 * The date a license is valid until: its own (unless permanent) or its TAN's (a subscription's paid
 * period plus grace, which bounds even a permanent license), whichever comes first; null: no end.
 */
export function effectiveValidUntil(license: Pick<LicenseForFile, 'validUntil' | 'permanent' | 'tanValidUntil'>): string | null {
  const own = license.permanent ? null : license.validUntil;
  const tan = license.tanValidUntil;
  if (own === null || tan === null) return own ?? tan;
  return endOf(tan).getTime() < endOf(own).getTime() ? tan : own;
}

function endOf(value: string): Date {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return new Date(Date.parse(`${value}T00:00:00.000Z`) + DAY_MS);
  return new Date(Date.parse(value));
}

/** The moment a license ends: the end (UTC) of its effective valid-until day; null when it has none. */
export function licenseEnd(license: Pick<LicenseForFile, 'validUntil' | 'permanent' | 'tanValidUntil'>): Date | null {
  const value = effectiveValidUntil(license);
  if (!value) return null;
  const end = endOf(value);
  return Number.isNaN(end.getTime()) ? null : end;
}

export type RefusalStatus = 403 | 422;

/** The same answer for an unknown machine, an unknown product and a machine without that product: it tells nothing. */
export const noLicenseForMachine = () => new AppError(404, 'ERR_NO_LICENSE', 'No license for this machine and product');

/** Why no file may be issued for the license now, or null. */
export function refusalOf(license: LicenseForFile, now: Date, status: RefusalStatus): AppError | null {
  if (license.revoked) return new AppError(status, 'ERR_LICENSE_REVOKED', 'This license has been revoked');
  if (license.upgradedToId !== null) {
    return new AppError(status, 'ERR_LICENSE_UPGRADED', 'This license was upgraded to a newer version; use the license of the new version');
  }
  if (license.suspended) return new AppError(status, 'ERR_LICENSE_SUSPENDED', 'This license is suspended; please contact your vendor');
  const end = licenseEnd(license);
  if (end && end.getTime() <= now.getTime()) return new AppError(status, 'ERR_LICENSE_EXPIRED', `This license expired on ${effectiveValidUntil(license)}`);
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
  /** The file's ETag (file-tag.ts). */
  etag: string;
}

const encodePayload = (payload: LicensePayload) => Buffer.from(JSON.stringify(payload), 'utf8').toString('base64');

/** Signs a full payload (kid included); the key must be the one named by the payload's kid. */
export async function signFull(payload: LicensePayload, signer: Signer): Promise<IssuedFile> {
  const enc = encodePayload(payload);
  const sig = await signer.sign(signedMessage(enc));
  return { payload, file: { enc, sig, alg: LICENSE_SIGNATURE_ALGORITHM, kid: signer.kid }, etag: licenseFileTag(enc, payload.issuedAt) };
}

/** Signs a payload with the active key; the payload's kid is set to that key. */
export async function signPayload(ctx: AppContext, payload: Omit<LicensePayload, 'kid'>): Promise<IssuedFile> {
  const signer = signingKeys(ctx).current();
  return signFull({ ...payload, kid: signer.kid }, signer);
}

export interface IssueOptions {
  machineId: string;
  now?: Date;
  /** 403 for the desktop protocol (DESIGN.md section 6), 422 for a download in the web app. */
  refusalStatus: RefusalStatus;
  /** Borrow the floating seat for this many days offline (checked against the policy by borrowRefusal). */
  borrowDays?: number;
}

/** Why a machine may not borrow this license's seat for `days` days, or null. */
export function borrowRefusal(license: Pick<LicenseForFile, 'policy'>, days: number): AppError | null {
  const max = license.policy.type === 'FLOATING' ? license.policy.maxBorrowDays : 0;
  if (days <= max) return null;
  return new AppError(422, 'ERR_BORROW_NOT_ALLOWED', `This license lets a machine borrow a seat for at most ${max} days`, { params: { max } });
}

/** The end of a borrowed seat taken now: `days` ahead, never past the license's own end. */
export function borrowEnd(license: LicenseForFile, now: Date, days: number): Date {
  return earliest(new Date(now.getTime() + days * DAY_MS), licenseEnd(license))!;
}

/** A desktop-protocol answer: a new file, or the word that the file the machine holds is still right. */
export type FileAnswer = ({ notModified: false } & IssuedFile) | { notModified: true; etag: string };

/**
 * The file a license would get if issued at `issuedAt`: everything but the two times comes from the
 * license, the catalogue cache and the active key, so the same inputs give the same bytes.
 */
export type PayloadAt = (issuedAt: Date, borrowedUntil?: Date, overage?: boolean) => LicensePayload;

/** Refused when revoked, upgraded or expired; otherwise what building the file needs. */
async function prepareFile(ctx: AppContext, license: LicenseForFile, options: IssueOptions): Promise<{ now: Date; payloadAt: PayloadAt; signer: Signer }> {
  const now = options.now ?? new Date();
  const refusal = refusalOf(license, now, options.refusalStatus);
  if (refusal) throw refusal;
  const cache = catalogueCache(ctx);
  const [entitlements, serverCustomerId] = await Promise.all([
    cache.entitlements(license.productId, license.product.featureValues, [license.policy.entitlements, license.tanGrants, license.grants], now.getTime()),
    cache.serverCustomerId(now.getTime()),
  ]);
  const metadata = publicMetadata(license.tanMetadata, license.metadata);
  const signer = signingKeys(ctx).current();
  // The key order is the file's: a file rebuilt for the conditional check must hash like the one signed.
  const payloadAt: PayloadAt = (issuedAt, borrowedUntil, overage) => ({
    formatVersion: LICENSE_FILE_FORMAT_VERSION,
    licenseId: license.id,
    kind: license.kind,
    policyType: license.policy.type,
    product: { id: license.productId, name: license.product.name, version: license.product.version },
    features: Object.keys(entitlements),
    entitlements,
    metadata,
    machineId: options.machineId,
    owner: { name: `${license.owner.firstName} ${license.owner.lastName}`.trim(), company: license.owner.company },
    issuedAt: issuedAt.toISOString(),
    expiresAt: (borrowedUntil ?? fileExpiry(license, issuedAt))?.toISOString() ?? null,
    licenseValidUntil: effectiveValidUntil(license),
    permanent: license.permanent,
    freeUpdatesUntil: license.freeUpdatesUntil,
    refetchIntervalSeconds: license.policy.refetchIntervalSeconds,
    refetchBeforeExpirySeconds: license.policy.refetchBeforeExpirySeconds,
    serverCustomerId,
    kid: signer.kid,
    ...(borrowedUntil ? { borrowedUntil: borrowedUntil.toISOString() } : {}),
    // A named user's seat (DESIGN.md 6f): the file names the person it is licensed to.
    ...(license.seatId !== null ? { licensee: { userId: license.ownerId, name: `${license.owner.firstName} ${license.owner.lastName}`.trim() } } : {}),
    ...(overage ? { overage: true as const } : {}),
    ...(license.installKeyId ? { installKeyId: license.installKeyId } : {}),
  });
  return { now, payloadAt, signer };
}

/** The floating lease a file issued now needs, or null (not floating, or the file never expires). */
function leaseFor(license: LicenseForFile, now: Date): Date | null {
  return license.policy.type === 'FLOATING' ? fileExpiry(license, now) : null;
}

/**
 * Takes or renews the machine's seat, before any file of a floating license is issued, up to that
 * file's expiry: so no more valid floating files exist than seats.
 */
async function takeSeat(ctx: AppContext, license: LicenseForFile, options: IssueOptions, now: Date, leasedUntil: Date, borrowed = false): Promise<boolean> {
  const { overage } = await leaseSeat(
    ctx,
    license,
    options.machineId,
    now,
    leasedUntil,
    (current) => (current?.machineId !== options.machineId ? noLicenseForMachine() : refusalOf({ ...license, ...current, machineId: license.machineId }, now, options.refusalStatus)),
    borrowed,
  );
  return overage;
}

/** A floating file borrowed for offline use: the seat taken until the borrow ends, and the file valid as long. */
async function issueBorrowed(ctx: AppContext, license: LicenseForFile, options: IssueOptions & { borrowDays: number }, now: Date, payloadAt: PayloadAt, signer: Signer) {
  const refusal = borrowRefusal(license, options.borrowDays);
  if (refusal) throw refusal;
  const until = borrowEnd(license, now, options.borrowDays);
  const overage = await takeSeat(ctx, license, options, now, until, true);
  return signFull(payloadAt(now, until, overage), signer);
}

/**
 * Whether a file issued at `tag.issuedAt` would be exactly the file the license gets now (same
 * license, owner, product, features, policy, server customer id and key: same hash), and more than
 * half of its validity is left (DESIGN.md section 6). A file without expiry has all of it left.
 */
export function stillRight(tag: FileTag, now: Date, payloadAt: PayloadAt, overage = false): boolean {
  if (tag.issuedAt.getTime() > now.getTime()) return false;
  const payload = payloadAt(tag.issuedAt, undefined, overage);
  if (payload.expiresAt !== null) {
    const expiresAt = Date.parse(payload.expiresAt);
    if (expiresAt - now.getTime() <= (expiresAt - tag.issuedAt.getTime()) / 2) return false;
  }
  return encHash(encodePayload(payload)) === tag.hash;
}

/**
 * A fresh signed file of a stored license for its machine: refused when revoked, upgraded or
 * expired; a floating license first takes or renews a seat.
 */
export async function issueLicenseFile(ctx: AppContext, license: LicenseForFile, options: IssueOptions): Promise<IssuedFile> {
  const { now, payloadAt, signer } = await prepareFile(ctx, license, options);
  if (options.borrowDays) return issueBorrowed(ctx, license, { ...options, borrowDays: options.borrowDays }, now, payloadAt, signer);
  const lease = leaseFor(license, now);
  const overage = lease ? await takeSeat(ctx, license, options, now, lease) : false;
  return signFull(payloadAt(now, undefined, overage), signer);
}

/**
 * The desktop protocol's answer: with `If-None-Match` naming a file that is still right, a 304
 * without a signature (a floating seat renewed all the same, its write behind the answer when the
 * machine holds the seat: seats.ts); otherwise a newly signed file.
 */
export async function answerLicenseFile(ctx: AppContext, license: LicenseForFile, options: IssueOptions & { ifNoneMatch?: string }): Promise<FileAnswer> {
  const { now, payloadAt, signer } = await prepareFile(ctx, license, options);
  // A borrow always gets its own file: the one the machine holds runs only as long as a refresh's.
  if (options.borrowDays) return { notModified: false, ...(await issueBorrowed(ctx, license, { ...options, borrowDays: options.borrowDays }, now, payloadAt, signer)) };
  const lease = leaseFor(license, now);
  // A floating file may be an over-limit one (its seat granted beyond the count): either is still right.
  const held = parseFileTags(options.ifNoneMatch).find((tag) => stillRight(tag, now, payloadAt) || (lease !== null && stillRight(tag, now, payloadAt, true)));
  if (held) {
    if (lease && !(await renewSeatLater(ctx, license, options.machineId, now, lease))) await takeSeat(ctx, license, options, now, lease);
    return { notModified: true, etag: formatFileTag(held) };
  }
  const overage = lease ? await takeSeat(ctx, license, options, now, lease) : false;
  return { notModified: false, ...(await signFull(payloadAt(now, undefined, overage), signer)) };
}

/**
 * The licenses of a machine for a product (by name, and version when given): one indexed query,
 * product and policy from the catalogue cache.
 */
/**
 * The machine's licenses, from a read replica where one is usable (DESIGN.md section 9). A machine
 * the replica does not know yet (activated a moment ago) is looked up on the primary, so that it gets
 * its file at once; the catalogue is never read from a replica (catalogue-cache.ts keeps what it reads).
 */
async function licensesOfMachine(ctx: AppContext, machineId: string) {
  if (!ctx.replicas) return findLicensesOfMachine(ctx.db, machineId);
  const onReplica = await readFromReplica(() => findLicensesOfMachine(ctx.db, machineId));
  return onReplica.length ? onReplica : findLicensesOfMachine(ctx.db, machineId);
}

export async function machineLicensesFor(ctx: AppContext, machineId: string, productName: string, version?: string): Promise<LicenseForFile[]> {
  const rows = await licensesOfMachine(ctx, machineId);
  if (!rows.length) return [];
  const cache = catalogueCache(ctx);
  let catalogue = await cache.current();
  // Only real licenses trigger a reload, never a product name a caller made up.
  if (rows.some((row) => !catalogue.product(row.productId) || !catalogue.policy(row.policyId))) catalogue = await cache.current({ reload: true });
  const wanted = catalogue.productsNamed(productName, version);
  const licenses: LicenseForFile[] = [];
  for (const row of rows) {
    const product = wanted.find((candidate) => candidate.id === row.productId);
    const policy = catalogue.policy(row.policyId);
    // The row is this call's own: completed in place rather than copied field by field.
    if (product && policy) licenses.push(Object.assign(row, { product, policy }));
  }
  return licenses;
}
