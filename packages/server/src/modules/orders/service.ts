import { orderTimeMs, orderWebhookResult, type OrderWebhook, type OrderWebhookResult } from '@lm/contract/order';
import { hashPassword, randomToken } from '../../platform/auth/secrets.ts';
import { recordChange } from '../../platform/changelog.ts';
import { SYSTEM, type AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { isUniqueViolation } from '../../platform/db/search.ts';
import { AppError } from '../../platform/http/errors.ts';
import { enqueueEvents } from '../../platform/webhooks/outbox.ts';
import { settingValue } from '../settings/service.ts';
import { findUserByEmail, insertUser, NO_CONTACT_DETAILS, toUser, type UserRow } from '../users/repo.ts';
import { machineTaken, resolvePolicy } from '../licenses/activation.ts';
import { bindMachine, findProductForLicensing, insertLicense, recordTrial, type LicenseRow } from '../licenses/repo.ts';
import { licenseValues } from '../licenses/view.ts';
import { claimOrder, findOrderResult, storeOrderResult } from './repo.ts';
import { queueSetPasswordMail } from './mail.ts';
import { isFresh, signatureMatches } from './signature.ts';

const invalidSignature = () => new AppError(401, 'ERR_INVALID_SIGNATURE', 'The signature of the order is missing or wrong');

/**
 * Refuses a delivery whose X-Signature is not the HMAC-SHA256 of its raw body with the webhook
 * secret. Without a secret nothing can be verified, so every delivery is refused.
 */
export async function verifyOrderSignature(ctx: AppContext, rawBody: string, signature: string | undefined): Promise<void> {
  const secret = await settingValue<string | null>(ctx.db, 'webhook.secret');
  if (!secret) throw new AppError(401, 'ERR_INVALID_SIGNATURE', 'The order webhook has no secret configured');
  if (!signatureMatches(secret, rawBody, signature)) throw invalidSignature();
}

function addDays(date: Date, days: number): string {
  const result = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + days));
  return result.toISOString().slice(0, 10);
}

/** Who ordered, as the shop says: enough to find or create the account. */
export type OrderBuyer = Pick<OrderWebhook, 'email' | 'firstName' | 'lastName' | 'company' | 'locale'>;

/**
 * The order's account: the existing one, or, when automatic creation is on, a new confirmed one whose
 * customer gets a mail to choose a password. A closed account gets nothing. Shop connections find
 * their buyers the same way (modules/shop), but always create a missing account (`create: true`):
 * a sold TAN must belong to someone.
 */
/** A new account's password hash, or how to make one: hashing is slow on purpose, so it is done only for an account really created. */
export type PasswordHash = string | null | (() => Promise<string>);

/**
 * The password hash for the account an order may create: hashed now (before the transaction, which
 * then holds no connection meanwhile) only when the buyer has no account yet; otherwise made only if
 * the account must be created after all (closed or deleted meanwhile), within the transaction.
 */
export async function passwordHashFor(db: Executor, email: string): Promise<PasswordHash> {
  const hash = () => hashPassword(randomToken());
  return (await findUserByEmail(db, email)) ? hash : hash();
}

export async function orderAccount(
  ctx: AppContext,
  trx: Executor,
  order: OrderBuyer,
  passwordHash: PasswordHash,
  now: Date,
  options: { create?: boolean } = {},
): Promise<{ row: UserRow | undefined; created: boolean }> {
  const existing = await findUserByEmail(trx, order.email);
  if (existing) return { row: existing.closed_at ? undefined : existing, created: false };
  if (!options.create && !(await settingValue<boolean>(trx, 'order.autoCreateAccount'))) return { row: undefined, created: false };
  const row = await insertUser(trx, {
    // Stored as it is looked up: a buyer whose shop sends capitals has one account.
    email: order.email.trim().toLowerCase(),
    passwordHash: typeof passwordHash === 'function' ? await passwordHash() : passwordHash,
    firstName: order.firstName,
    lastName: order.lastName,
    ...NO_CONTACT_DETAILS,
    company: order.company,
    accessRole: 'USER',
    optInEmail: false,
    confirmed: true,
    locale: order.locale,
  });
  await recordChange(trx, SYSTEM, { model: 'User', recordId: row.id, operation: 'insert', newValues: toUser(row) });
  await queueSetPasswordMail(ctx, trx, { id: row.id, email: row.email, firstName: row.first_name }, order.locale, now);
  return { row, created: true };
}

/**
 * The temporary license of the order, for the configured product and days, bound to the order's
 * machine if it names one (then recorded as that machine's trial of the product, as the licensing
 * rules expect), else unbound until the customer sets the machine with "change machine". The shop
 * sold it, so the repeat-trial rule of self-service trials does not apply.
 */
async function orderTemporaryLicense(trx: Executor, order: OrderWebhook, owner: UserRow | undefined, now: Date): Promise<{ outcome: OrderWebhookResult['temporaryLicense']; row?: LicenseRow }> {
  if (!(await settingValue<boolean>(trx, 'order.autoTemporaryLicense'))) return { outcome: 'off' };
  if (!owner) return { outcome: 'no-account' };
  const productId = await settingValue<number | null>(trx, 'order.temporaryLicenseProductId');
  const product = productId ? await findProductForLicensing(trx, productId) : undefined;
  if (!product || !product.active) return { outcome: 'no-product' };
  const today = now.toISOString().slice(0, 10);
  if (order.machineId && (await machineTaken(trx, { machineId: order.machineId, productId: product.id, kind: 'TEMPORARY' }, today))) return { outcome: 'machine-has-license' };
  // Within the maximum for temporary licenses, also when that was lowered after the order days were set.
  const days = Math.min(await settingValue<number>(trx, 'order.temporaryLicenseDays'), await settingValue<number>(trx, 'license.temporaryMaxDays'));
  const policy = await resolvePolicy(trx, product.default_license_policy_id);
  const nowText = now.toISOString();
  const row = await insertLicense(
    trx,
    {
      kind: 'TEMPORARY',
      owner_id: owner.id,
      product_id: product.id,
      license_policy_id: policy.id,
      tan_id: null,
      tan_code: null,
      machine_id: order.machineId,
      valid_until: addDays(now, days),
      free_updates_until: null,
    },
    nowText,
  );
  if (order.machineId) {
    await bindMachine(trx, row.id, order.machineId, nowText);
    await recordTrial(trx, { productId: product.id, machineId: order.machineId, ownerId: owner.id, licenseId: row.id }, nowText);
  }
  await recordChange(trx, SYSTEM, { model: 'License', recordId: row.id, operation: 'insert', newValues: licenseValues(row) });
  return { outcome: 'created', row };
}

/**
 * Handles one signed order: refuses stale timestamps (replays), does nothing twice for one order id,
 * and otherwise runs the automations that the settings switch on, all in one transaction.
 */
export async function handleOrder(ctx: AppContext, order: OrderWebhook, now = new Date()): Promise<OrderWebhookResult> {
  if (!isFresh(orderTimeMs(order.timestamp), now.getTime())) {
    throw new AppError(401, 'ERR_STALE_REQUEST', 'The order timestamp is more than five minutes away from the server time');
  }
  // Hashing is slow on purpose: done before the transaction, so that it holds no lock meanwhile, and only for a new buyer.
  const passwordHash = await passwordHashFor(ctx.db, order.email);
  let outcome: OrderWebhookResult | undefined;
  try {
    outcome = await runOrder(ctx, order, passwordHash, now);
  } catch (error) {
    // Two orders of one new customer at once (a unique violation): the second finds the account the first created.
    if (!isUniqueViolation(error)) throw error;
    outcome = await runOrder(ctx, order, passwordHash, now);
  }
  if (outcome) {
    if (outcome.account === 'created') ctx.mail.wake();
    ctx.log.info({ orderId: order.orderId, account: outcome.account, temporaryLicense: outcome.temporaryLicense }, 'order handled');
    return outcome;
  }
  const stored = await findOrderResult(ctx.db, order.orderId);
  const first = orderWebhookResult.parse(JSON.parse(stored ?? '{}'));
  return { ...first, duplicate: true };
}

/** The automations of one order in one transaction; undefined when the order id was handled before. */
function runOrder(ctx: AppContext, order: OrderWebhook, passwordHash: PasswordHash, now: Date): Promise<OrderWebhookResult | undefined> {
  const nowText = now.toISOString();
  return ctx.db.transaction().execute(async (trx) => {
    if (!(await claimOrder(trx, { orderId: order.orderId, email: order.email, receivedAt: nowText }))) return undefined;
    const account = await orderAccount(ctx, trx, order, passwordHash, now);
    const license = await orderTemporaryLicense(trx, order, account.row, now);
    const result: OrderWebhookResult = {
      orderId: order.orderId,
      duplicate: false,
      account: account.created ? 'created' : account.row ? 'existing' : 'none',
      userId: account.row?.id ?? null,
      temporaryLicense: license.outcome,
      licenseId: license.row?.id ?? null,
    };
    await storeOrderResult(trx, order.orderId, { userId: result.userId, licenseId: result.licenseId, json: JSON.stringify(result) });
    // The order as its endpoint answered it (never a repeat); receivers may view it as they may view its account.
    const { duplicate: _duplicate, ...data } = result;
    await enqueueEvents(trx, 'order.processed', [{ data: { ...data, email: order.email }, subject: 'User', record: { id: result.userId ?? 0 }, personId: result.userId }]);
    return result;
  });
}
