import type { FastifyRequest } from 'fastify';
import { todayOf, trialReachDays, type ActivateLicense, type License, type TemporaryLicense } from '@lm/contract/license';
import { recordChange } from '../../platform/changelog.ts';
import type { Actor, AppContext } from '../../platform/context.ts';
import { nowIso, type Executor } from '../../platform/db/database.ts';
import { actorOf, authorize, requireUser } from '../../platform/http/auth.ts';
import { AppError } from '../../platform/http/errors.ts';
import { FIFTEEN_MINUTES, rateLimited } from '../../platform/limits/limiter.ts';
import { limitedClient } from '../../platform/limits/client-address.ts';
import { settingValue } from '../settings/service.ts';
import { claimActivation, findTanById, findTanForActivation } from './tan-repo.ts';
import {
  bindMachine,
  findPolicy,
  findPolicyByName,
  findProductForLicensing,
  insertLicense,
  lockMachineLicenses,
  machineHoldsLicense,
  recordTrial,
  tanMachineBindings,
  trialStarts,
} from './repo.ts';
import { checkMachineWindow, checkTrialAllowed, freeUpdatesUntilAtActivation, tanActivationRefusal, tanMachineWindow, temporaryValidityRefusal } from './rules.ts';
import { licenseById, licenseValues } from './view.ts';

/**
 * Failed activations are counted per account and per address, in the database (shared by every
 * instance): ten wrong TANs per account or thirty per address within 15 minutes pause activations
 * there, so guessing a code out of 31^12 stays hopeless. Only the session's own account can spend
 * its ten, so nobody else can block a customer's activations.
 */
export const ACTIVATION_LIMITS = {
  account: { name: 'tan-account', max: 10, windowMs: FIFTEEN_MINUTES },
  address: { name: 'tan-address', max: 30, windowMs: FIFTEEN_MINUTES },
};

export const invalidLicense = () => new AppError(422, 'ERR_INVALID_LICENSE', 'Invalid license (activation failed)');
export const machineIdUsed = () => new AppError(409, 'ERR_MACHINE_ID_USED', 'Machine-ID already used for a license');

export function tooManyMachines(result: { count: number; days: number; hours: number }): AppError {
  return new AppError(
    422,
    'ERR_TOO_MANY_MACHINES',
    `You have already used this license on ${result.count} different machines within the last ${result.days} days or ${result.hours} hours`,
    { params: { count: result.count, days: result.days, hours: result.hours } },
  );
}

/**
 * Whether another live license keeps the machine from holding one of this kind for the product: any
 * TAN license does, and for a temporary license a running temporary one too. The pair's lock is taken
 * first (lockMachineLicenses), so the answer holds until the transaction ends.
 */
export async function machineTaken(
  trx: Executor,
  license: { machineId: string; productId: number; kind: 'TAN' | 'TEMPORARY' },
  today: string,
  except?: number,
): Promise<boolean> {
  await lockMachineLicenses(trx, license.machineId, license.productId);
  const kinds = license.kind === 'TAN' ? (['TAN'] as const) : (['TAN', 'TEMPORARY'] as const);
  return machineHoldsLicense(trx, license.machineId, license.productId, { kinds, today, except });
}

/** The policy of a new license: the TAN's, else the product's default, else the built-in indefinite one. */
export async function resolvePolicy(db: Executor, ...candidates: (number | null)[]) {
  for (const id of candidates) {
    const policy = id === null ? undefined : await findPolicy(db, id);
    if (policy) return policy;
  }
  return (await findPolicyByName(db, 'SINGLE_HOST_INDEFINITE'))!;
}

/**
 * `POST /licenses/activate`: a new license from a TAN, bound to a machine, for the caller; `bind`
 * adds to the new license in the same transaction (an offline activation's install key).
 */
export async function activateLicense(ctx: AppContext, request: FastifyRequest, input: ActivateLicense, bind?: (trx: Executor, id: number) => Promise<void>): Promise<License> {
  const user = requireUser(request);
  authorize(request, 'create', 'License', { ownerId: user.id, kind: 'TAN' });
  const attempts = [await ctx.limits.attempt(ACTIVATION_LIMITS.account, String(user.id)), await ctx.limits.attempt(ACTIVATION_LIMITS.address, limitedClient(request.ip))];
  const refused = attempts.find((attempt) => !attempt.allowed);
  let guessedWrong = false;
  try {
    if (refused && !refused.allowed) throw rateLimited('Too many failed activations, please try again later', refused.retryAfter);
    const id = await ctx.db.transaction().execute(async (trx) => {
      const created = await activateIn(trx, request, user.id, input);
      if (bind) await bind(trx, created);
      return created;
    });
    return await licenseById(ctx.db, id);
  } catch (error) {
    guessedWrong = error instanceof AppError && error.code === 'ERR_INVALID_LICENSE';
    throw error;
  } finally {
    // Only a wrong TAN counts: a success or another refusal (machine in use, …) was no guess.
    if (!guessedWrong) for (const attempt of attempts) await ctx.limits.forget(attempt);
  }
}

async function activateIn(trx: Executor, request: FastifyRequest, ownerId: number, input: ActivateLicense): Promise<number> {
  const now = new Date();
  const nowText = now.toISOString();
  const today = todayOf(now);
  const tan = await findTanForActivation(trx, input.tan);
  const policy = tan && (await resolvePolicy(trx, tan.license_policy_id, tan.product_policy_id));
  const floating = policy?.type === 'FLOATING';
  const refusal = tanActivationRefusal(
    tan && { revoked: Boolean(tan.revoked), licenseCount: tan.license_count, activatedCount: tan.activated_count, productActive: Boolean(tan.product_active), floating },
  );
  if (!tan || !policy || refusal) throw invalidLicense();

  // The count is enforced here, by the conditional UPDATE. It also locks the TAN's row until the
  // transaction ends, so that the checks below see every activation of this TAN that came first;
  // a refusal below rolls the claim back.
  const activatedCount = await claimActivation(trx, tan.id, nowText, { floating });
  if (activatedCount === null) throw invalidLicense();
  // Read before the claim locked the row, so read again: a suspension committed meanwhile counts.
  const current = (await findTanById(trx, tan.id))!;
  if (current.suspended) throw new AppError(422, 'ERR_LICENSE_SUSPENDED', 'This license is suspended; please contact your vendor');
  if (current.valid_until !== null && current.valid_until < today) throw new AppError(422, 'ERR_LICENSE_EXPIRED', `This license expired on ${current.valid_until}`);
  if (await machineTaken(trx, { machineId: input.machineId, productId: tan.product_id, kind: 'TAN' }, today)) throw machineIdUsed();

  const window = tanMachineWindow(
    { maxCount: policy.max_different_machines_count, intervalHours: policy.max_different_machines_interval_hours },
    tan.license_count,
  );
  const since = new Date(now.getTime() - window.intervalHours * 3_600_000).toISOString();
  const machines = checkMachineWindow(await tanMachineBindings(trx, tan.id, since), input.machineId, window, now);
  if (!machines.allowed) throw tooManyMachines(machines);

  const license = await insertActivatedLicense(trx, actorOf(request), { tan, code: input.tan, policy, ownerId, machineId: input.machineId, activatedCount }, now);
  return license.id;
}

/**
 * The license of an activation whose claim on the TAN was taken (activatedCount, the TAN's new
 * count): bound to its machine, with free updates from the TAN or the policy, and logged with the
 * TAN's new count. The web's activation and a shop purchase's both make it here.
 */
export async function insertActivatedLicense(
  trx: Executor,
  actor: Actor,
  activation: {
    tan: { id: number; product_id: number; free_updates_until: string | null };
    code: string;
    policy: { id: number; free_updates_period_days: number | null };
    ownerId: number;
    machineId: string;
    activatedCount: number;
  },
  now: Date,
) {
  const { tan, policy, machineId, activatedCount } = activation;
  const nowText = now.toISOString();
  const license = await insertLicense(
    trx,
    {
      kind: 'TAN',
      owner_id: activation.ownerId,
      product_id: tan.product_id,
      license_policy_id: policy.id,
      tan_id: tan.id,
      tan_code: activation.code,
      machine_id: machineId,
      valid_until: null,
      free_updates_until: freeUpdatesUntilAtActivation(tan.free_updates_until, policy.free_updates_period_days, todayOf(now)),
    },
    nowText,
  );
  await bindMachine(trx, license.id, machineId, nowText);
  await recordChange(trx, actor, { model: 'License', recordId: license.id, operation: 'insert', newValues: licenseValues(license) });
  await recordChange(trx, actor, { model: 'Tan', recordId: tan.id, operation: 'update', oldValues: { activatedCount: activatedCount - 1 }, newValues: { activatedCount } });
  return license;
}

function invalidValidUntil(code: string, params: Record<string, string | number>): AppError {
  return new AppError(400, 'ERR_VALIDATION', `validUntil: ${code}`, { details: [{ path: 'validUntil', message: code, code, params }], params });
}

/**
 * Refuses a machine that has had a trial of the product and may not have another yet (DESIGN.md
 * section 6), not counting the trial `exceptLicenseId` itself (a trial moving back to a machine it was on).
 */
export async function refuseUsedTrial(
  trx: Executor,
  product: { id: number; repeat_trial_after_months: number | null; ignore_trials_before: string | null },
  machineId: string,
  today: string,
  exceptLicenseId?: number,
): Promise<void> {
  const trial = checkTrialAllowed(
    await trialStarts(trx, product.id, machineId, exceptLicenseId),
    { repeatTrialAfterMonths: product.repeat_trial_after_months, ignoreTrialsBefore: product.ignore_trials_before },
    today,
  );
  if (trial.allowed) return;
  throw new AppError(422, 'ERR_TRIAL_USED', 'This computer has already had a temporary license for this product', {
    params: trial.nextTrialFrom ? { nextTrialFrom: trial.nextTrialFrom } : {},
  });
}

/** `POST /licenses/temporary`: a trial license for the caller, within the trial rules of DESIGN.md section 6. */
export async function addTemporaryLicense(ctx: AppContext, request: FastifyRequest, input: TemporaryLicense): Promise<License> {
  const user = requireUser(request);
  authorize(request, 'create', 'License', { ownerId: user.id, kind: 'TEMPORARY' });
  const id = await ctx.db.transaction().execute(async (trx) => {
    const nowText = nowIso();
    const today = todayOf(new Date(nowText));
    const product = await findProductForLicensing(trx, input.productId);
    if (!product) throw new AppError(400, 'ERR_VALIDATION', 'productId: unknownProduct', { details: [{ path: 'productId', message: 'unknownProduct', code: 'unknownProduct' }] });
    if (!product.active) throw new AppError(422, 'ERR_TRIAL_NOT_ALLOWED', 'This product is not available');
    // A product's trial days of "none" means it offers no temporary licenses.
    if (product.trial_days === null) throw new AppError(422, 'ERR_TRIAL_NOT_ALLOWED', 'This product offers no temporary licenses');

    const maxDays = trialReachDays(product.trial_days, await settingValue<number>(trx, 'license.temporaryMaxDays'));
    const validity = temporaryValidityRefusal(input.validUntil, today, maxDays);
    if (validity === 'past') throw invalidValidUntil('maxDaysAhead', { min: today, count: maxDays });
    if (validity === 'too-far') throw invalidValidUntil('maxDaysAhead', { max: maxDays, count: maxDays });

    // The machine's licenses of the product are locked first; a used trial is the more telling refusal.
    const taken = await machineTaken(trx, { machineId: input.machineId, productId: product.id, kind: 'TEMPORARY' }, today);
    await refuseUsedTrial(trx, product, input.machineId, today);
    if (taken) throw machineIdUsed();

    const policy = await resolvePolicy(trx, product.default_license_policy_id);
    const license = await insertLicense(
      trx,
      {
        kind: 'TEMPORARY',
        owner_id: user.id,
        product_id: product.id,
        license_policy_id: policy.id,
        tan_id: null,
        tan_code: null,
        machine_id: input.machineId,
        valid_until: input.validUntil,
        free_updates_until: null,
      },
      nowText,
    );
    await bindMachine(trx, license.id, input.machineId, nowText);
    await recordTrial(trx, { productId: product.id, machineId: input.machineId, ownerId: user.id, licenseId: license.id }, nowText);
    await recordChange(trx, actorOf(request), { model: 'License', recordId: license.id, operation: 'insert', newValues: licenseValues(license) });
    return license.id;
  });
  return licenseById(ctx.db, id);
}
