import { randomInt } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { ListResult } from '@lm/contract';
import type { ClientLicenseRequest } from '@lm/contract/client-protocol';
import {
  DEVICE_CODE_EXPIRES_SECONDS,
  formatUserCode,
  USER_CODE_ALPHABET,
  type DesktopSignIn,
  type DeviceAuthorizeRequest,
  type DevicePending,
} from '@lm/contract/organization';
import { hashToken, randomToken } from '../../platform/auth/secrets.ts';
import { recordChange } from '../../platform/changelog.ts';
import type { AppContext } from '../../platform/context.ts';
import { requireUser } from '../../platform/http/auth.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { recordLicenseEvent } from '../license-events/recorder.ts';
import { resolvePolicy } from '../licenses/activation.ts';
import { bindMachine, insertLicense } from '../licenses/repo.ts';
import { freeUpdatesUntilAtActivation } from '../licenses/rules.ts';
import { licenseValues } from '../licenses/view.ts';
import { todayOf } from '@lm/contract/license';
import { machineLicensesFor, noLicenseForMachine, type FileAnswer } from '../license-files/service.ts';
import { answerDesktopContact } from '../license-files/desktop-contact.ts';
import {
  decideAuthorization,
  deleteSignIn,
  deleteStaleAuthorizations,
  findActiveSeat,
  findAuthorizationByDeviceCode,
  findAuthorizationByUserCode,
  findProductByName,
  findSignIn,
  insertAuthorization,
  insertSignIn,
  listSignIns,
  lockSeat,
  markAuthorizationUsed,
  recordPoll,
  seatLicenses,
} from './repo.ts';

/** The prefix of a desktop sign-in's access token: people, scanners and the server tell it apart. */
export const DESKTOP_TOKEN_PREFIX = 'lmdt_';
/** RFC 8628 section 3.5: a client polling too fast waits 5 seconds longer from then on. */
const SLOW_DOWN_SECONDS = 5;

/** An RFC 8628 token error (400 with `error`, not the API's error form: clients of the grant read these). */
export class DeviceGrantError extends Error {
  readonly grantError: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant';
  constructor(grantError: DeviceGrantError['grantError'], description: string) {
    super(description);
    this.grantError = grantError;
  }
}

function newUserCode(): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** `POST /api/client/v1/device/authorize`: a device code for the program, a user code for the person. */
export async function authorizeDevice(ctx: AppContext, input: DeviceAuthorizeRequest) {
  const product = await findProductByName(ctx.db, input.product, input.version);
  if (!product) throw noLicenseForMachine();
  const now = new Date();
  const deviceCode = randomToken(32);
  const interval = ctx.config.devicePollIntervalSeconds;
  let userCode = newUserCode();
  for (let attempt = 0; ; attempt++) {
    try {
      await insertAuthorization(
        ctx.db,
        { deviceCodeHash: hashToken(deviceCode), userCode, productId: product.id, machineId: input.machineId, intervalSeconds: interval, expiresAt: new Date(now.getTime() + DEVICE_CODE_EXPIRES_SECONDS * 1000).toISOString() },
        now.toISOString(),
      );
      break;
    } catch (error) {
      // One in 20^8 per pending code: another code, a few times at most.
      if (attempt >= 3) throw error;
      userCode = newUserCode();
    }
  }
  await deleteStaleAuthorizations(ctx.db, new Date(now.getTime() - 86_400_000).toISOString());
  const verification = `${ctx.config.publicUrl}/device`;
  return {
    device_code: deviceCode,
    user_code: formatUserCode(userCode),
    verification_uri: verification,
    verification_uri_complete: `${verification}?code=${formatUserCode(userCode)}`,
    expires_in: DEVICE_CODE_EXPIRES_SECONDS,
    interval,
  };
}

/** `POST /api/client/v1/device/token`: the program polls; once approved, it gets its access token (once). */
export async function pollDeviceToken(ctx: AppContext, deviceCode: string): Promise<{ access_token: string; token_type: 'Bearer' }> {
  return ctx.db.transaction().execute(async (trx) => {
    const row = await findAuthorizationByDeviceCode(trx, hashToken(deviceCode));
    if (!row || row.status === 'used') throw new DeviceGrantError('invalid_grant', 'The device code is unknown or was used already');
    const now = new Date();
    if (row.expires_at <= now.toISOString()) throw new DeviceGrantError('expired_token', 'The device code has expired; start the sign-in again');
    if (row.status === 'denied') throw new DeviceGrantError('access_denied', 'The sign-in was denied');
    const tooSoon = row.last_polled_at !== null && now.getTime() - Date.parse(row.last_polled_at) < row.interval_seconds * 1000;
    if (row.status === 'pending' || tooSoon) {
      // A poll that comes too soon is answered slow_down and waits longer from then on (RFC 8628 3.5); committed, not rolled back.
      await recordPoll(trx, row.id, now.toISOString(), tooSoon ? row.interval_seconds + SLOW_DOWN_SECONDS : row.interval_seconds);
      return tooSoon ? { slowDown: true as const } : { pending: true as const };
    }
    if (!(await markAuthorizationUsed(trx, row.id))) throw new DeviceGrantError('invalid_grant', 'The device code was used already');
    const token = `${DESKTOP_TOKEN_PREFIX}${randomToken(32)}`;
    const signInId = await insertSignIn(trx, { tokenHash: hashToken(token), userId: row.user_id!, productId: row.product_id, machineId: row.machine_id }, now.toISOString());
    ctx.log.info({ signInId, userId: row.user_id }, 'desktop sign-in');
    // The runtime event (DESIGN.md section 6j): of the person's seat's TAN, and of the machine's license when it holds one already.
    const seat = await findActiveSeat(trx, row.user_id!, row.product_name);
    const licenseId = seat ? (licenseOnMachine(await seatLicenses(trx, seat.id), row.machine_id)?.id ?? null) : null;
    const event = { type: 'desktop.signin' as const, licenseId, tanId: seat?.tan_id ?? null, ownerId: row.user_id, machineId: row.machine_id, at: now.toISOString() };
    return { access_token: token, token_type: 'Bearer' as const, event };
  }).then((answer) => {
    if ('slowDown' in answer) throw new DeviceGrantError('slow_down', `Poll at most every ${SLOW_DOWN_SECONDS} seconds longer than before`);
    if ('pending' in answer) throw new DeviceGrantError('authorization_pending', 'The person has not approved the sign-in yet');
    // Recorded once the sign-in is committed, written behind (license-events/recorder.ts).
    recordLicenseEvent(ctx, answer.event);
    return { access_token: answer.access_token, token_type: answer.token_type };
  });
}

async function pendingAuthorization(ctx: AppContext, userCode: string, options: { lock?: boolean; db?: Parameters<typeof findAuthorizationByUserCode>[0] } = {}) {
  const row = await findAuthorizationByUserCode(options.db ?? ctx.db, userCode, options);
  if (!row || row.expires_at <= new Date().toISOString()) throw notFound('Sign-in code');
  return row;
}

/** `GET /api/device?userCode=`: what the /device page shows before the person decides. */
export async function devicePending(ctx: AppContext, request: FastifyRequest, userCode: string): Promise<DevicePending> {
  requireUser(request);
  const row = await pendingAuthorization(ctx, userCode);
  if (row.status !== 'pending') throw new AppError(409, 'ERR_DEVICE_DECIDED', 'This sign-in was already approved or denied');
  return { userCode: formatUserCode(row.user_code), productName: row.product_name, machineId: row.machine_id, expiresAt: row.expires_at };
}

/** `POST /api/device/approve` and `/deny`: the signed-in person decides, once. */
export async function decideDevice(ctx: AppContext, request: FastifyRequest, userCode: string, decision: 'approved' | 'denied'): Promise<void> {
  const user = requireUser(request);
  await ctx.db.transaction().execute(async (trx) => {
    const row = await pendingAuthorization(ctx, userCode, { lock: true, db: trx });
    if (!(await decideAuthorization(trx, row.id, decision, user.id))) throw new AppError(409, 'ERR_DEVICE_DECIDED', 'This sign-in was already approved or denied');
  });
  ctx.log.info({ userId: user.id, decision }, 'desktop sign-in decided');
}

export async function listDesktopSignIns(ctx: AppContext, request: FastifyRequest): Promise<ListResult<DesktopSignIn>> {
  const user = requireUser(request);
  const rows = await listSignIns(ctx.db, user.id);
  return { items: rows.map((row) => ({ id: row.id, productName: row.product_name, machineId: row.machine_id, createdAt: row.created_at })), totalCount: rows.length };
}

export async function revokeDesktopSignIn(ctx: AppContext, request: FastifyRequest, id: number): Promise<void> {
  const user = requireUser(request);
  if (!(await deleteSignIn(ctx.db, id, user.id))) throw notFound('Desktop sign-in');
}

const unauthenticatedDesktop = () => new AppError(401, 'ERR_UNAUTHENTICATED', 'The desktop sign-in is unknown or was revoked; sign in again');

/** The sign-in of a bearer token, refused (401) when unknown or revoked. */
async function signInOf(ctx: AppContext, token: string) {
  const signIn = await findSignIn(ctx.db, hashToken(token));
  if (!signIn) throw unauthenticatedDesktop();
  return signIn;
}

/** `DELETE /api/client/v1/device/token`: the program signs out (its token stops working). */
export async function signOutDesktop(ctx: AppContext, token: string): Promise<void> {
  const signIn = await signInOf(ctx, token);
  await deleteSignIn(ctx.db, signIn.id, signIn.user_id);
}

/**
 * `POST /api/client/v1/license` with a desktop sign-in's bearer token: the file of the person's seat
 * on this machine. The token is good only for its machine and product; the seat must still be
 * assigned and the person still a member (else 403 ERR_SEAT_UNASSIGNED); a machine new to the seat
 * binds to it, up to the policy's machinesPerUser. A machine whose license of the seat staff revoked
 * is refused as that license (403 ERR_LICENSE_REVOKED), not bound anew: a revocation that the next
 * refresh undid would not keep a lost or misused machine out. It no longer counts towards
 * machinesPerUser, and lifting the revocation lets the machine in again.
 */
export async function fetchSignedInLicense(ctx: AppContext, token: string, request: ClientLicenseRequest, ifNoneMatch?: string): Promise<FileAnswer> {
  const signIn = await signInOf(ctx, token);
  if (signIn.machine_id !== request.machineId || signIn.product_name !== request.product) {
    throw new AppError(403, 'ERR_FORBIDDEN', 'This sign-in belongs to another machine or product; sign in on this machine');
  }
  const seat = await findActiveSeat(ctx.db, signIn.user_id, request.product, request.version);
  if (!seat) throw new AppError(403, 'ERR_SEAT_UNASSIGNED', 'You have no seat for this product any more; ask an administrator of your organization');
  const held = licenseOnMachine(await seatLicenses(ctx.db, seat.id), request.machineId);
  const licenseId = held?.id ?? (await bindSeatMachine(ctx, signIn.user_id, seat, request.machineId));
  const license = (await machineLicensesFor(ctx, request.machineId, request.product, request.version)).find((candidate) => candidate.id === licenseId);
  if (!license) throw noLicenseForMachine();
  // As an anonymous machine's contact: borrowing, its last contact and its refusals recorded alike.
  return answerDesktopContact(ctx, license, request, ifNoneMatch, new Date());
}

type ActiveSeat = NonNullable<Awaited<ReturnType<typeof findActiveSeat>>>;

/** The seat's license on the machine: a live one, else one staff revoked (which keeps the machine out). */
function licenseOnMachine<License extends { machine_id: string | null; revoked: boolean }>(ofSeat: License[], machineId: string): License | undefined {
  const onMachine = ofSeat.filter((license) => license.machine_id === machineId);
  return onMachine.find((license) => !license.revoked) ?? onMachine[0];
}

/** A machine new to a seat: a license of the seat's TAN for the person and machine, within machinesPerUser. */
async function bindSeatMachine(ctx: AppContext, userId: number, seat: ActiveSeat, machineId: string): Promise<number> {
  return ctx.db.transaction().execute(async (trx) => {
    const current = await lockSeat(trx, seat.id);
    if (!current || current.unassigned_at !== null) throw new AppError(403, 'ERR_SEAT_UNASSIGNED', 'You have no seat for this product any more');
    const ofSeat = await seatLicenses(trx, seat.id);
    const same = licenseOnMachine(ofSeat, machineId);
    if (same) return same.id;
    const policy = await resolvePolicy(trx, seat.license_policy_id, seat.default_license_policy_id);
    const live = ofSeat.filter((license) => !license.revoked).length;
    if (live >= policy.machines_per_user) {
      throw new AppError(403, 'ERR_TOO_MANY_MACHINES', `Your seat is in use on ${live} machines already; sign out on one of them first`, {
        params: { count: live, days: 0, hours: 0 },
      });
    }
    const now = new Date();
    const license = await insertLicense(
      trx,
      {
        kind: 'TAN',
        owner_id: userId,
        product_id: seat.product_id,
        license_policy_id: policy.id,
        tan_id: seat.tan_id,
        tan_code: seat.code,
        machine_id: machineId,
        valid_until: null,
        free_updates_until: freeUpdatesUntilAtActivation(seat.free_updates_until, policy.free_updates_period_days, todayOf(now)),
        seat_id: seat.id,
      },
      now.toISOString(),
    );
    await bindMachine(trx, license.id, machineId, now.toISOString());
    await recordChange(trx, { userId }, { model: 'License', recordId: license.id, operation: 'insert', newValues: licenseValues(license) });
    return license.id;
  });
}
