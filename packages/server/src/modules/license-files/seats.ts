import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import { recordLicenseEvent } from '../license-events/recorder.ts';
import type { Executor } from '../../platform/db/database.ts';
import { lockKey } from '../../platform/db/dialect.ts';
import { findTanLicenseCount, type LicenseForFile } from './repo.ts';
import { overageAllowance } from '@lm/contract/entitlement';
import { enqueueEvents } from '../../platform/webhooks/outbox.ts';
import { endSeatLeases, extendSeats, findHeldSeat, findLicenseBinding, findSeatState, recordOverage, renewHeldSeat, upsertSeat, type LicenseBinding, type SeatExtension } from './seats-repo.ts';
import { WriteBehind } from './write-behind.ts';

/**
 * Floating seats (DESIGN.md section 6): the machines of a floating TAN share `licenseCount` seats;
 * a floating license without TAN has one. A seat is a lease that each fetch renews and that ends
 * when it lapses, is released, or its license is revoked, deleted or bound to another machine.
 * Every decision about a pool's seats runs under the pool's lock (lockKey), on either database.
 */
export function seatPool(license: Pick<LicenseForFile, 'id' | 'tanId'>): string {
  return license.tanId !== null ? `tan:${license.tanId}` : `license:${license.id}`;
}

const lockPool = (trx: Executor, pool: string) => lockKey(trx, `seat:${pool}`);

/** A floating TAN has its license count of seats; a floating license without TAN has one. */
async function seatCapacity(trx: Executor, license: Pick<LicenseForFile, 'tanId'>): Promise<number> {
  return license.tanId !== null ? findTanLicenseCount(trx, license.tanId) : 1;
}

/**
 * Seats beyond the count a floating TAN's policy allows (its overagePercent, DESIGN.md section 6g);
 * a license without TAN has its one seat and no more.
 */
function overageOf(license: Pick<LicenseForFile, 'tanId' | 'policy'>, capacity: number): number {
  return license.tanId === null ? 0 : overageAllowance(capacity, license.policy.overagePercent);
}

/**
 * Takes or renews the machine's seat, up to `leasedUntil`; `borrowed`: the machine takes it offline,
 * and the seat stays taken until then whatever it fetches meanwhile, unless it releases it. The
 * license was read before the pool's lock was taken; it is read again under the lock, and
 * `stillIssuable` refuses when it changed meanwhile (bound to another machine, deleted, revoked,
 * suspended), so that no seat outlives a change that already ended it.
 */
export async function leaseSeat(
  ctx: AppContext,
  license: LicenseForFile,
  machineId: string,
  now: Date,
  leasedUntil: Date,
  stillIssuable: (current: LicenseBinding | undefined) => AppError | null,
  borrowed = false,
): Promise<{ overage: boolean }> {
  const pool = seatPool(license);
  const nowIso = now.toISOString();
  // A machine that holds its seat (each refresh of a running program) renews it in one statement,
  // without a transaction or the pool's lock: nothing about the pool's other seats is decided.
  const renewed = borrowed ? undefined : await renewHeldSeat(ctx.db, { pool, machineId, licenseId: license.id, now: nowIso, leasedUntil: leasedUntil.toISOString() });
  if (renewed) return renewed;
  const granted = await ctx.db.transaction().execute(async (trx) => {
    await lockPool(trx, pool);
    const refusal = stillIssuable(await findLicenseBinding(trx, license.id));
    if (refusal) throw refusal;
    const { maxDifferentMachinesCount: count, maxDifferentMachinesIntervalHours: hours } = license.policy;
    const windowStart = new Date(now.getTime() - hours * 3600_000).toISOString();
    const state = await findSeatState(trx, { pool, machineId, now: nowIso, since: windowStart });
    const holdsSeat = state.own !== null && state.own.leasedUntil > nowIso;
    // The machine comes back after its lease ran out: the runtime event, at the time it ran out (written behind, recorder.ts).
    if (state.own !== null && !holdsSeat) {
      recordLicenseEvent(ctx, { type: 'lease.expired', licenseId: license.id, tanId: license.tanId, ownerId: license.ownerId, machineId, at: state.own.leasedUntil });
    }
    // A seat held keeps what it was granted as; a new one beyond the count is an overage.
    let overage = holdsSeat && state.own!.overage;
    if (!holdsSeat) {
      const capacity = await seatCapacity(trx, license);
      if (state.leasedByOthers >= capacity + overageOf(license, capacity)) {
        throw new AppError(409, 'ERR_NO_SEAT', 'All seats of this floating license are taken');
      }
      overage = state.leasedByOthers >= capacity;
      const days = Math.round((hours / 24) * 10) / 10;
      if (!(state.own && state.own.renewedAt >= windowStart) && state.recentOthers >= count) {
        throw new AppError(422, 'ERR_TOO_MANY_MACHINES', `You have already used this license on ${count} different machines within the last ${days} days or ${hours} hours`, {
          params: { count, days, hours },
        });
      }
    }
    const until = leasedUntil.toISOString();
    await upsertSeat(trx, pool, { machine_id: machineId, license_id: license.id, leased_until: until, renewed_at: nowIso, borrowed_until: borrowed ? until : null, overage });
    const newOverage = overage && !holdsSeat && license.tanId !== null;
    if (newOverage) await noteOverage(trx, license, license.tanId!, machineId, nowIso);
    return { overage, newOverage };
  });
  // The runtime event once the grant is committed, written behind (license-events/recorder.ts).
  if (granted.newOverage) recordLicenseEvent(ctx, { type: 'overage.granted', licenseId: license.id, tanId: license.tanId, ownerId: license.ownerId, machineId, at: nowIso });
  return { overage: granted.overage };
}

/** An over-limit grant: kept for the statistics and the monthly true-up, and sent as `license.overage`. */
async function noteOverage(trx: Executor, license: LicenseForFile, tanId: number, machineId: string, nowIso: string): Promise<void> {
  await recordOverage(trx, { tanId, licenseId: license.id, machineId, day: nowIso.slice(0, 10) });
  const data = { licenseId: license.id, tanId, machineId, productId: license.productId, grantedAt: nowIso };
  await enqueueEvents(trx, 'license.overage', [{ data, subject: 'License', record: { ownerId: license.ownerId, kind: license.kind, distributorId: null }, personId: license.ownerId }]);
}

const renewals = new WeakMap<AppContext, WriteBehind<SeatExtension>>();
/** The seat's primary key (pool, machine) as one string; NUL sorts first, so the strings sort as the key does. */
const seatKey = (row: SeatExtension) => `${row.pool}\u0000${row.machineId}`;

/** The renewals that 304 answers decided, written behind them (lifecycle.ts starts and stops it). */
export function seatRenewals(ctx: AppContext): WriteBehind<SeatExtension> {
  let writes = renewals.get(ctx);
  if (!writes) {
    writes = new WriteBehind<SeatExtension>(ctx, {
      what: 'seat renewals',
      keyOf: seatKey,
      order: (a, b) => (seatKey(a) < seatKey(b) ? -1 : seatKey(a) > seatKey(b) ? 1 : 0),
      write: (rows) => extendSeats(ctx.db, rows),
    });
    renewals.set(ctx, writes);
  }
  return writes;
}

/**
 * A conditional refresh answered 304 renews the machine's seat without waiting for the write: the
 * machine keeps the file it holds, whose expiry its lease already covers (the lease was written up
 * to that expiry when the file was issued), so the renewal only keeps the seat further ahead and may
 * follow a few seconds later (write-behind.ts). False when the machine holds no live seat: the caller
 * then takes one with leaseSeat. A release, revocation or machine change in between wins over the
 * renewal (extendSeats only extends the lease it saw).
 */
export async function renewSeatLater(ctx: AppContext, license: LicenseForFile, machineId: string, now: Date, leasedUntil: Date): Promise<boolean> {
  const pool = seatPool(license);
  const renewedAt = now.toISOString();
  // The machine's lookup read the lease already (repo.ts, heldLeaseUntil); other callers look it up.
  const seen =
    license.heldLeaseUntil !== undefined
      ? license.heldLeaseUntil !== null && license.heldLeaseUntil > renewedAt
        ? license.heldLeaseUntil
        : undefined
      : await findHeldSeat(ctx.db, { pool, machineId, licenseId: license.id, now: renewedAt });
  if (seen === undefined) return false;
  const until = leasedUntil.toISOString();
  if (seen < until) seatRenewals(ctx).queue({ pool, machineId, licenseId: license.id, seenLeasedUntil: seen, leasedUntil: until, renewedAt });
  return true;
}

/** Frees the seat that `machineId` holds in the license's pool. */
export async function releaseSeat(ctx: AppContext, license: LicenseForFile, machineId: string, now: Date): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await lockPool(trx, seatPool(license));
    await endSeatLeases(trx, { pool: seatPool(license), machineId }, now.toISOString());
  });
}

/**
 * Ends the leases a license holds (all, or only its old machine's), in the caller's transaction and
 * under the pool's lock: a license revoked, deleted or bound to another machine frees its seat at
 * once instead of keeping it until the lease lapses.
 */
export async function endSeatsOfLicense(trx: Executor, license: Pick<LicenseForFile, 'id' | 'tanId'>, now: Date, machineId?: string): Promise<void> {
  await lockPool(trx, seatPool(license));
  await endSeatLeases(trx, { licenseId: license.id, machineId }, now.toISOString());
}
