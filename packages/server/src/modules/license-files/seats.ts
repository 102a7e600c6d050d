import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import type { Executor } from '../../platform/db/database.ts';
import { endSeatLeases, findSeatState, findTanLicenseCount, lockSeatPool, upsertSeat } from './repo.ts';
import type { LicenseForFile } from './repo.ts';

/**
 * Floating seats (DESIGN.md section 6): the machines of a floating TAN share `licenseCount` seats;
 * a floating license without TAN has one. A seat is a lease that each fetch renews and that ends
 * when it lapses or is released. Seat decisions of one pool run one at a time, on either database.
 */
export function seatPool(license: Pick<LicenseForFile, 'id' | 'tanId'>): string {
  return license.tanId !== null ? `tan:${license.tanId}` : `license:${license.id}`;
}

/** A floating TAN has its license count of seats; a floating license without TAN has one. */
async function seatCapacity(trx: Executor, license: Pick<LicenseForFile, 'tanId'>): Promise<number> {
  return license.tanId !== null ? findTanLicenseCount(trx, license.tanId) : 1;
}

export async function leaseSeat(ctx: AppContext, license: LicenseForFile, machineId: string, now: Date, leasedUntil: Date): Promise<void> {
  const pool = seatPool(license);
  const nowIso = now.toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    await lockSeatPool(trx, ctx.dialect, pool);
    const { maxDifferentMachinesCount: count, maxDifferentMachinesIntervalHours: hours } = license.policy;
    const windowStart = new Date(now.getTime() - hours * 3600_000).toISOString();
    const state = await findSeatState(trx, { pool, machineId, now: nowIso, since: windowStart });
    const holdsSeat = state.own !== null && state.own.leasedUntil > nowIso;
    if (!holdsSeat) {
      if (state.leasedByOthers >= (await seatCapacity(trx, license))) {
        throw new AppError(409, 'ERR_NO_SEAT', 'All seats of this floating license are taken');
      }
      const days = Math.round((hours / 24) * 10) / 10;
      if (!(state.own && state.own.renewedAt >= windowStart) && state.recentOthers >= count) {
        throw new AppError(422, 'ERR_TOO_MANY_MACHINES', `You have already used this license on ${count} different machines within the last ${days} days or ${hours} hours`, {
          params: { count, days, hours },
        });
      }
    }
    await upsertSeat(trx, pool, { machine_id: machineId, license_id: license.id, leased_until: leasedUntil.toISOString(), renewed_at: nowIso });
  });
}

/** Frees the seat that `machineId` holds in the license's pool. */
export async function releaseSeat(ctx: AppContext, license: LicenseForFile, machineId: string, now: Date): Promise<void> {
  await endSeatLeases(ctx.db, { pool: seatPool(license), machineId }, now.toISOString());
}

/** A revoked license holds no seat. */
export async function releaseSeatsOfLicense(ctx: AppContext, licenseId: number, now: Date): Promise<void> {
  await endSeatLeases(ctx.db, { licenseId }, now.toISOString());
}
