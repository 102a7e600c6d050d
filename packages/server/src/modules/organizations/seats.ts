import type { FastifyRequest } from 'fastify';
import { formatUserName, type ListResult } from '@lm/contract';
import type { OrganizationLicense, OrganizationTan, Seat, SeatCreate } from '@lm/contract/organization';
import { recordChange } from '../../platform/changelog.ts';
import type { AppContext } from '../../platform/context.ts';
import { actorOf } from '../../platform/http/auth.ts';
import { AppError, forbidden, notFound, validationError } from '../../platform/http/errors.ts';
import { limitedClient } from '../../platform/limits/client-address.ts';
import { rateLimited } from '../../platform/limits/limiter.ts';
import { ACTIVATION_LIMITS, invalidLicense } from '../licenses/activation.ts';
import { endSeat, recordOrganizationChange } from './changes.ts';
import { findMember } from './repo.ts';
import {
  claimTanForOrganization,
  findLicenseForMove,
  findOrganizationTan,
  findSeat,
  insertSeat,
  listOrganizationLicenses,
  listOrganizationTans,
  listSeats,
  seatsHeld,
  setLicenseOrganization,
  setOrganizationTansSuspended,
  type SeatRow,
} from './seats-repo.ts';
import { managerAccess, organizationAccess } from './service.ts';

const toSeat = (row: SeatRow): Seat => ({
  id: row.id,
  tanId: row.tan_id,
  tanCode: row.tan_code,
  productName: row.product_name,
  userId: row.user_id ?? 0,
  userName: formatUserName({ firstName: row.first_name, lastName: row.last_name, email: row.email }),
  userEmail: row.email,
  assignedAt: row.assigned_at,
});

/** `GET /organizations/{id}/seats`: managers see every seat, members their own. */
export async function listOrganizationSeats(ctx: AppContext, request: FastifyRequest, id: number, page: { offset: number; limit: number }): Promise<ListResult<Seat>> {
  const access = await organizationAccess(ctx, request, id);
  const { rows, totalCount } = await listSeats(ctx.db, id, { userId: access.manages || access.staff ? undefined : access.user.id, ...page });
  return { items: rows.map(toSeat), totalCount };
}

/**
 * `POST /organizations/{id}/seats`: a named-user seat of the organization's TAN for a member. The
 * TAN's row is locked for the decision, so that concurrent assignments never pass its count (on
 * PostgreSQL a row lock, on SQLite the one writer); a seat freed within the policy's
 * reassignment wait still counts, unless it goes back to the person who had it.
 */
export async function assignSeat(ctx: AppContext, request: FastifyRequest, id: number, input: SeatCreate): Promise<Seat> {
  const seatId = await ctx.db.transaction().execute(async (trx) => {
    const access = await managerAccess(ctx, request, id, trx);
    const tan = await findOrganizationTan(trx, id, input.tanId, { lock: true });
    if (!tan) throw notFound('TAN');
    if (tan.seat_mode !== 'USER') throw validationError('tanId', 'notUserSeats');
    if (tan.revoked) throw invalidLicense();
    if (!(await findMember(trx, id, input.userId))) throw new AppError(422, 'ERR_NOT_MEMBER', 'Seats go to members of the organization only');
    const now = new Date();
    const since = new Date(now.getTime() - tan.seat_reassign_hours * 3_600_000).toISOString();
    const held = await seatsHeld(trx, tan.id, input.userId, since);
    if (held.own !== null) return held.own;
    if (held.assigned >= tan.license_count) {
      throw new AppError(409, 'ERR_SEATS_TAKEN', `All ${tan.license_count} seats of this TAN are assigned`, { params: { count: tan.license_count } });
    }
    const needed = held.assigned + held.waiting.length - tan.license_count;
    if (needed >= 0) {
      const until = new Date(Date.parse(held.waiting[needed]!) + tan.seat_reassign_hours * 3_600_000).toISOString();
      throw new AppError(409, 'ERR_SEAT_REASSIGN_WAIT', `A seat freed recently passes to another person from ${until} only`, { params: { until } });
    }
    const newId = await insertSeat(trx, { organizationId: id, tanId: tan.id, userId: input.userId, assignedBy: access.user.id }, now.toISOString());
    await recordOrganizationChange(
      trx,
      actorOf(request),
      { organizationId: id, operation: 'update', newValues: { seat: newId, tanId: tan.id, userId: input.userId } },
      { type: 'seat.assigned', userId: input.userId, data: { seatId: newId, tanId: tan.id } },
    );
    return newId;
  });
  return toSeat((await findSeat(ctx.db, id, seatId))!);
}

/** `DELETE /organizations/{id}/seats/{seatId}`: the seat ends at once; its machines are refused at their next refresh. */
export async function unassignSeat(ctx: AppContext, request: FastifyRequest, id: number, seatId: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await managerAccess(ctx, request, id, trx);
    const seat = await findSeat(trx, id, seatId);
    if (!seat || seat.unassigned_at !== null) throw notFound('Seat');
    await findOrganizationTan(trx, id, seat.tan_id, { lock: true });
    await endSeat(trx, actorOf(request), id, seat, new Date());
  });
}

/** `GET /organizations/{id}/tans`: the organization's TANs with their seats in use (managers and staff). */
export async function listTansOfOrganization(ctx: AppContext, request: FastifyRequest, id: number): Promise<ListResult<OrganizationTan>> {
  const access = await organizationAccess(ctx, request, id);
  if (!access.manages && !access.staff) throw forbidden();
  const rows = await listOrganizationTans(ctx.db, id);
  const items = rows.map((row) => ({
    id: row.id,
    code: row.code,
    productId: row.product_id,
    productName: row.product_name,
    licenseCount: row.license_count,
    seatMode: row.seat_mode === 'USER' ? ('USER' as const) : ('MACHINE' as const),
    used: row.seat_mode === 'USER' ? row.seats : row.activated_count,
    suspended: Boolean(row.suspended),
    revoked: Boolean(row.revoked),
  }));
  return { items, totalCount: items.length };
}

/**
 * `POST /organizations/{id}/tans`: an admin claims a TAN by its code for the organization (its
 * licenses become the organization's). Knowing the code is the credential, so a wrong code counts
 * against the activation limits like a wrong activation.
 */
export async function claimTan(ctx: AppContext, request: FastifyRequest, id: number, code: string): Promise<OrganizationTan> {
  const access = await managerAccess(ctx, request, id);
  const attempt = await ctx.limits.attempt(ACTIVATION_LIMITS.account, String(access.user.id));
  const address = await ctx.limits.attempt(ACTIVATION_LIMITS.address, limitedClient(request.ip));
  const refused = [attempt, address].find((candidate) => !candidate.allowed);
  if (refused && !refused.allowed) throw rateLimited('Too many failed attempts, please try again later', refused.retryAfter);
  const tanId = await ctx.db.transaction().execute(async (trx) => {
    const claimed = await claimTanForOrganization(trx, id, code, new Date().toISOString());
    if (claimed === undefined) return undefined;
    await recordChange(trx, actorOf(request), { model: 'Tan', recordId: claimed, operation: 'update', oldValues: { organizationId: null }, newValues: { organizationId: id } });
    await recordOrganizationChange(trx, actorOf(request), { organizationId: id, operation: 'update', newValues: { tanId: claimed, claimed: true } });
    return claimed;
  });
  if (tanId === undefined) throw invalidLicense();
  await ctx.limits.forget(attempt);
  await ctx.limits.forget(address);
  return (await listTansOfOrganization(ctx, request, id)).items.find((tan) => tan.id === tanId)!;
}

/** `GET /organizations/{id}/licenses`: managers and staff see every license of the organization, members theirs. */
export async function listLicensesOfOrganization(ctx: AppContext, request: FastifyRequest, id: number, page: { offset: number; limit: number }): Promise<ListResult<OrganizationLicense>> {
  const access = await organizationAccess(ctx, request, id);
  const { rows, totalCount } = await listOrganizationLicenses(ctx.db, id, { userId: access.manages || access.staff ? undefined : access.user.id, ...page });
  const items = rows.map((row) => ({
    id: row.id,
    productName: row.product_name,
    machineId: row.machine_id,
    ownerId: row.owner_id,
    ownerName: formatUserName({ firstName: row.first_name, lastName: row.last_name, email: row.email }),
    tanId: row.tan_id,
    revoked: Boolean(row.revoked),
    createdAt: row.created_at,
  }));
  return { items, totalCount };
}

/** `POST /organizations/{id}/licenses`: a manager moves a license of their own to the organization. */
export async function moveLicenseToOrganization(ctx: AppContext, request: FastifyRequest, id: number, licenseId: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const access = await managerAccess(ctx, request, id, trx);
    const license = await findLicenseForMove(trx, licenseId);
    if (!license || license.owner_id !== access.user.id) throw notFound('License');
    if (license.organization_id === id) return;
    if (license.organization_id !== null) throw forbidden();
    await setLicenseOrganization(trx, licenseId, id, new Date().toISOString());
    await recordChange(trx, actorOf(request), { model: 'License', recordId: licenseId, operation: 'update', oldValues: { organizationId: null }, newValues: { organizationId: id } });
  });
}

/** `POST /organizations/{id}/suspend`: staff suspend (or reinstate) every TAN of an organization in one call. */
export async function suspendOrganization(ctx: AppContext, request: FastifyRequest, id: number, suspended: boolean): Promise<{ tanCount: number }> {
  if (!(await organizationAccess(ctx, request, id)).staff) throw forbidden();
  const ids = await ctx.db.transaction().execute(async (trx) => {
    const changed = await setOrganizationTansSuspended(trx, id, suspended, new Date().toISOString());
    for (const tanId of changed) {
      await recordChange(trx, actorOf(request), { model: 'Tan', recordId: tanId, operation: 'update', oldValues: { suspended: !suspended }, newValues: { suspended } });
    }
    return changed;
  });
  return { tanCount: ids.length };
}
