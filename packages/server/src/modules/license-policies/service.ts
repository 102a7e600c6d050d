import {
  isBuiltInPolicyName,
  licensePolicyFields,
  SELECTABLE_POLICY_TYPES,
  type LicensePolicy,
  type LicensePolicyFields,
  type LicensePolicyUpdate,
  type PolicyType,
} from '@lm/contract/license-policy';
import type { ListQuery, ListResult } from '@lm/contract';
import { recordChange } from '../../platform/changelog.ts';
import type { Actor, AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { isUniqueViolation, type StaffSearch } from '../../platform/db/search.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { mergeUpdate } from '../../platform/http/validation.ts';
import { lockRow } from '../../platform/db/dialect.ts';
import { checkPrecondition, type Precondition } from '../../platform/http/versioned.ts';
import { parseGrants } from '@lm/contract/entitlement';
import { checkGrants } from '../entitlements/service.ts';
import { findPolicyIdByName, findPolicyRow, insertPolicyRow, listPolicyRows, updatePolicyRow, type LicensePolicyRow } from './repo.ts';
import { changingCatalogue } from '../../platform/catalogue-generation.ts';

export function toLicensePolicy(row: LicensePolicyRow): LicensePolicy {
  return {
    id: row.id,
    name: row.name,
    builtIn: isBuiltInPolicyName(row.name),
    publicName: JSON.parse(row.public_name) as LicensePolicy['publicName'],
    type: row.type,
    licenseMaxValidDays: row.license_max_valid_days,
    refetchIntervalSeconds: row.refetch_interval_seconds,
    refetchBeforeExpirySeconds: row.refetch_before_expiry_seconds,
    maxDifferentMachinesCount: row.max_different_machines_count,
    maxDifferentMachinesIntervalHours: row.max_different_machines_interval_hours,
    maxBorrowDays: row.max_borrow_days,
    betaUpdates: Boolean(row.beta_updates),
    seatMode: row.seat_mode,
    seatReassignHours: row.seat_reassign_hours,
    machinesPerUser: row.machines_per_user,
    entitlements: parseGrants(row.entitlements),
    overagePercent: row.overage_percent,
    leaseMode: row.lease_mode,
    leaseTtlSeconds: row.lease_ttl_seconds === null ? null : Number(row.lease_ttl_seconds),
    freeUpdatesPeriodDays: row.free_updates_period_days === null ? null : Number(row.free_updates_period_days),
    notes: row.notes,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function listLicensePolicies(ctx: AppContext, query: ListQuery & StaffSearch & { type?: PolicyType }): Promise<ListResult<LicensePolicy>> {
  const { rows, totalCount } = await listPolicyRows(ctx.db, query);
  return { items: rows.map(toLicensePolicy), totalCount };
}

async function loadPolicy(db: Executor, id: number): Promise<LicensePolicy> {
  const row = await findPolicyRow(db, id);
  if (!row) throw notFound('License policy');
  return toLicensePolicy(row);
}

export function getLicensePolicy(ctx: AppContext, id: number): Promise<LicensePolicy> {
  return loadPolicy(ctx.db, id);
}


const invalid = (path: string, code: string) => new AppError(400, 'ERR_VALIDATION', `${path} is not an allowed value`, { details: [{ path, message: code, code }] });
const duplicateName = (name: string) =>
  new AppError(409, 'ERR_CONFLICT', `A license policy named ${name} already exists`, { details: [{ path: 'name', message: 'already exists', code: 'duplicate' }] });

/**
 * Type rules (spec sections 4 and 5): a person chooses PERPETUAL or FLOATING; INDEFINITE belongs to
 * the built-in policy, which keeps it. Built-in policies keep their internal names and their types,
 * which the web app and other modules recognise (FLOATING_DEFAULT is labelled a floating license).
 */
function checkRules(fields: LicensePolicyFields, before: LicensePolicy | null): void {
  const keepsIndefinite = before?.type === 'INDEFINITE' && fields.type === 'INDEFINITE';
  if (before?.builtIn && fields.type !== before.type) throw invalid('type', 'builtInPolicyType');
  if (before?.type === 'INDEFINITE' && fields.type !== 'INDEFINITE') throw invalid('type', 'builtInPolicyType');
  if (!keepsIndefinite && !(SELECTABLE_POLICY_TYPES as readonly string[]).includes(fields.type)) throw invalid('type', 'notAnOption');
  if (before?.builtIn && fields.name !== before.name) throw invalid('name', 'builtInPolicyName');
  if (!before && isBuiltInPolicyName(fields.name)) throw duplicateName(fields.name);
}

async function checkName(db: Executor, name: string, selfId?: number): Promise<void> {
  const existing = await findPolicyIdByName(db, name);
  if (existing !== undefined && existing !== selfId) throw duplicateName(name);
}

/** `name`: the name the work writes (known once an update has merged its fields). */
async function uniqueGuard<T>(name: () => string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateName(name());
    throw error;
  }
}

export function createLicensePolicy(ctx: AppContext, actor: Actor, fields: LicensePolicyFields): Promise<LicensePolicy> {
  checkRules(fields, null);
  return uniqueGuard(() => fields.name, () =>
    changingCatalogue(ctx, () => ctx.db.transaction().execute(async (trx) => {
      await checkName(trx, fields.name);
      await checkGrants(trx, fields.entitlements, 'entitlements');
      const created = toLicensePolicy(await insertPolicyRow(trx, fields));
      await recordChange(trx, actor, { model: 'LicensePolicy', recordId: created.id, operation: 'insert', newValues: created });
      return created;
    })),
  );
}

/** `PUT /license-policies/{id}`: a field left out keeps its value. */
export function updateLicensePolicy(ctx: AppContext, actor: Actor, id: number, input: LicensePolicyUpdate, precondition?: Precondition): Promise<LicensePolicy> {
  let fields: LicensePolicyFields | undefined;
  return uniqueGuard(() => fields?.name ?? '', () =>
    changingCatalogue(ctx, () => ctx.db.transaction().execute(async (trx) => {
      await lockRow(trx, 'license_policies', id);
      const before = await loadPolicy(trx, id);
      checkPrecondition(precondition, before);
      fields = mergeUpdate(licensePolicyFields, before, input);
      checkRules(fields, before);
      await checkName(trx, fields.name, id);
      await checkGrants(trx, fields.entitlements, 'entitlements');
      const after = toLicensePolicy(await updatePolicyRow(trx, id, fields));
      await recordChange(trx, actor, { model: 'LicensePolicy', recordId: id, operation: 'update', oldValues: before, newValues: after });
      return after;
    })),
  );
}
