import { LICENSE_FILE_FORMAT_VERSION, type LicensePayload } from '@lm/contract/license-file';
import type { ClientLeaseRequest } from '@lm/contract/client-protocol';
import type { AppContext } from '../../platform/context.ts';
import { lockKey } from '../../platform/db/dialect.ts';
import { AppError } from '../../platform/http/errors.ts';
import { signingKeys } from '../../platform/signing/keys.ts';
import { catalogueCache } from '../license-files/catalogue-cache.ts';
import { formatFileTag, parseFileTags } from '../license-files/file-tag.ts';
import type { PolicyRow } from '../license-files/repo.ts';
import { effectiveValidUntil, licenseEnd, noLicenseForMachine, refusalOf, signFull, stillRight, type FileAnswer, type PayloadAt } from '../license-files/service.ts';
import { WriteBehind } from '../license-files/write-behind.ts';
import { recordLicenseEvent } from '../license-events/recorder.ts';
import { deleteLapsedLeases, endLease, extendLeases, findLeaseKey, findSeats, renewLiveLease, upsertLease, type LeaseExtension, type LeaseKey } from './repo.ts';

/**
 * Instance leases (DESIGN.md section 6h): a FLOATING policy's `leaseMode: INSTANCE` makes its TAN
 * the key every process of the customer's containers leases a seat with, for `leaseTtlSeconds`. A
 * seat is a lease whose end lies ahead, so one not renewed frees its seat the moment it lapses; a
 * conditional refresh renews it (the heartbeat), DELETE ends it. Taking a seat runs under the TAN's
 * lock on either database, so no more leases are live than the TAN's license count.
 */

export const notInstanceKey = () =>
  new AppError(422, 'ERR_NOT_INSTANCE_KEY', 'This license key is bound to machines; activate it for a machine instead of leasing a seat with it');

const noSeat = () => new AppError(409, 'ERR_NO_SEAT', 'All seats of this floating license are taken');

interface LeaseContext {
  key: LeaseKey;
  policy: PolicyRow & { leaseTtlSeconds: number };
  product: { id: number; name: string; version: string };
}

/** The TAN of the key with its policy and product; refused (nothing changed) unless it may lease now. */
async function leaseContext(ctx: AppContext, request: ClientLeaseRequest, now: Date): Promise<LeaseContext> {
  const key = await findLeaseKey(ctx.db, { code: request.key, instanceId: request.instanceId, now: now.toISOString() });
  if (!key) throw noLicenseForMachine();
  const cache = catalogueCache(ctx);
  let catalogue = await cache.current();
  if (!catalogue.product(key.productId) || (key.policyId !== null && !catalogue.policy(key.policyId))) catalogue = await cache.current({ reload: true });
  const product = catalogue.productsNamed(request.product, request.version).find((candidate) => candidate.id === key.productId);
  if (!product) throw noLicenseForMachine();
  const policy = key.policyId === null ? undefined : catalogue.policy(key.policyId);
  if (!policy || policy.type !== 'FLOATING' || policy.leaseMode !== 'INSTANCE' || policy.leaseTtlSeconds === null) throw notInstanceKey();
  const refusal = refusalOf(
    { ...asLicense(key), policy, product } as Parameters<typeof refusalOf>[0],
    now,
    403,
  );
  if (refusal) throw refusal;
  return { key, policy: { ...policy, leaseTtlSeconds: policy.leaseTtlSeconds }, product };
}

/** The fields of a TAN that the license rules read. */
function asLicense(key: LeaseKey) {
  return { revoked: key.revoked, suspended: key.suspended, upgradedToId: null, validUntil: null, permanent: false, tanValidUntil: key.validUntil };
}

/** The lease's end if taken now: its time to live, never past the TAN's own end. */
function leaseEnd(lease: LeaseContext, now: Date): Date {
  const ttl = new Date(now.getTime() + lease.policy.leaseTtlSeconds * 1000);
  const end = licenseEnd(asLicense(lease.key));
  return end && end < ttl ? end : ttl;
}

/** The file of a lease issued at `issuedAt`: the instance id in place of a machine id, no license, no owner. */
async function payloadsFor(ctx: AppContext, lease: LeaseContext, instanceId: string, now: Date): Promise<PayloadAt> {
  const cache = catalogueCache(ctx);
  const [features, serverCustomerId] = await Promise.all([cache.featureNames(lease.product.id, now.getTime()), cache.serverCustomerId(now.getTime())]);
  const ttl = lease.policy.leaseTtlSeconds;
  // The heartbeat: three refreshes per time to live, so a missed one still leaves the lease live.
  const refetch = Math.max(1, Math.floor(ttl / 3));
  const kid = signingKeys(ctx).current().kid;
  return (issuedAt): LicensePayload => ({
    formatVersion: LICENSE_FILE_FORMAT_VERSION,
    licenseId: null,
    kind: 'TAN',
    policyType: 'FLOATING',
    product: { id: lease.product.id, name: lease.product.name, version: lease.product.version },
    features,
    // A lease carries the product's features as flags; values and metadata belong to licenses (DESIGN.md 6g).
    entitlements: Object.fromEntries(features.map((name) => [name, true as const])),
    metadata: {},
    machineId: instanceId,
    owner: { name: '', company: null },
    issuedAt: issuedAt.toISOString(),
    expiresAt: leaseEnd(lease, issuedAt).toISOString(),
    licenseValidUntil: effectiveValidUntil(asLicense(lease.key)),
    permanent: false,
    freeUpdatesUntil: lease.key.freeUpdatesUntil,
    refetchIntervalSeconds: refetch,
    refetchBeforeExpirySeconds: ttl - refetch,
    serverCustomerId,
    kid,
    leaseMode: 'INSTANCE',
  });
}

const renewals = new WeakMap<AppContext, WriteBehind<LeaseExtension>>();
const leaseKeyOf = (row: LeaseExtension) => `${row.tanId}\u0000${row.instanceId}`;

/** The renewals that 304 answers decided, written behind them (started and stopped with the protocol's routes). */
export function leaseRenewals(ctx: AppContext): WriteBehind<LeaseExtension> {
  let writes = renewals.get(ctx);
  if (!writes) {
    writes = new WriteBehind<LeaseExtension>(ctx, {
      what: 'instance lease renewals',
      keyOf: leaseKeyOf,
      merge: (waiting, next) => ({ ...next, seenLeasedUntil: waiting.seenLeasedUntil }),
      order: (a, b) => (leaseKeyOf(a) < leaseKeyOf(b) ? -1 : leaseKeyOf(a) > leaseKeyOf(b) ? 1 : 0),
      write: (rows) => extendLeases(ctx.db, rows),
    });
    renewals.set(ctx, writes);
  }
  return writes;
}

/** Takes a seat for the instance under the TAN's lock, or renews the lease it still holds. */
async function takeLease(ctx: AppContext, lease: LeaseContext, instanceId: string, now: Date): Promise<void> {
  const values = { tanId: lease.key.tanId, instanceId, leasedUntil: leaseEnd(lease, now).toISOString(), now: now.toISOString() };
  if (lease.key.heldUntil !== null && (await renewLiveLease(ctx.db, values))) return;
  const lapsed = await ctx.db.transaction().execute(async (trx) => {
    await lockKey(trx, `lease:${lease.key.tanId}`);
    const { live, seats } = await findSeats(trx, values);
    if (live >= seats) throw noSeat();
    const deleted = await deleteLapsedLeases(trx, lease.key.tanId, values.now);
    await upsertLease(trx, values);
    return deleted;
  });
  // Each instance that stopped without saying goodbye: the runtime event, at the time its lease ran
  // out (written behind, recorder.ts). An instance has no license of its own: the TAN names it.
  for (const gone of lapsed) {
    recordLicenseEvent(ctx, { type: 'lease.expired', licenseId: null, tanId: lease.key.tanId, machineId: gone.instanceId, at: gone.leasedUntil });
  }
}

/**
 * `POST /api/client/v1/lease`: the instance's file, valid for the lease's time to live; with
 * `If-None-Match` naming a file still right while the lease is live, a 304 whose renewal is written
 * behind it: one read, as a floating seat's conditional refresh.
 */
export async function leaseInstance(ctx: AppContext, request: ClientLeaseRequest, ifNoneMatch?: string): Promise<FileAnswer> {
  const now = new Date();
  const lease = await leaseContext(ctx, request, now);
  const payloadAt = await payloadsFor(ctx, lease, request.instanceId, now);
  const held = lease.key.heldUntil !== null ? parseFileTags(ifNoneMatch).find((tag) => stillRight(tag, now, payloadAt)) : undefined;
  if (held && lease.key.heldUntil !== null) {
    const until = leaseEnd(lease, now).toISOString();
    if (lease.key.heldUntil < until) {
      leaseRenewals(ctx).queue({ tanId: lease.key.tanId, instanceId: request.instanceId, seenLeasedUntil: lease.key.heldUntil, leasedUntil: until, renewedAt: now.toISOString() });
    }
    return { notModified: true, etag: formatFileTag(held) };
  }
  await takeLease(ctx, lease, request.instanceId, now);
  return { notModified: false, ...(await signFull(payloadAt(now), signingKeys(ctx).current())) };
}

/** `DELETE /api/client/v1/lease`: the instance's clean exit frees its seat at once. */
export async function releaseInstance(ctx: AppContext, request: ClientLeaseRequest): Promise<void> {
  const now = new Date();
  const lease = await leaseContext(ctx, request, now).catch((error: unknown) => {
    // A revoked or suspended key's instance may still say goodbye.
    if (error instanceof AppError && error.status === 403) return null;
    throw error;
  });
  const key = lease?.key ?? (await findLeaseKey(ctx.db, { code: request.key, instanceId: request.instanceId, now: now.toISOString() }));
  if (!key) throw noLicenseForMachine();
  await endLease(ctx.db, { tanId: key.tanId, instanceId: request.instanceId, now: now.toISOString() });
}
