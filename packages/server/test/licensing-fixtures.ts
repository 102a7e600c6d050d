/**
 * Catalogue and licenses inserted straight into the database, for the tests of license files, the
 * desktop protocol and ANY-Lic links (their own modules create none of these).
 */
import { randomBytes } from 'node:crypto';
import type { App } from '../src/app.ts';
import { catalogueCache } from '../src/modules/license-files/catalogue-cache.ts';
import { lastSeenRecorder } from '../src/modules/license-files/last-seen.ts';
import { seatRenewals } from '../src/modules/license-files/seats.ts';

const now = () => new Date().toISOString();
export const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

export async function insertFeature(app: App, name: string, expandsTo: string[] = []): Promise<number> {
  const { db } = app.ctx;
  const { id } = await db
    .insertInto('features')
    .values({ name, localized_description: '{}', hidden: false, notes: null, created_at: now(), updated_at: now() })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const target of expandsTo) {
    const row = await db.selectFrom('features').select('id').where('name', '=', target).executeTakeFirstOrThrow();
    await db.insertInto('feature_expansions').values({ feature_id: id, expands_to_id: row.id }).execute();
  }
  return id;
}

export interface ProductInput {
  name?: string;
  version?: string;
  features?: string[];
  releaseDate?: string | null;
  defaultPolicy?: string;
}

export async function insertProduct(app: App, input: ProductInput = {}): Promise<{ id: number; name: string; version: string }> {
  const { db } = app.ctx;
  const name = input.name ?? unique('Product');
  const version = input.version ?? '1.0';
  const policy = input.defaultPolicy ? await policyId(app, input.defaultPolicy) : null;
  const { id } = await db
    .insertInto('products')
    .values({
      name,
      version,
      active: true,
      trial_days: null,
      repeat_trial_after_months: null,
      ignore_trials_before: null,
      release_date: input.releaseDate ?? null,
      default_license_policy_id: policy,
      notes: null,
      created_at: now(),
      updated_at: now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const feature of input.features ?? []) {
    const row = await db.selectFrom('features').select('id').where('name', '=', feature).executeTakeFirstOrThrow();
    await db.insertInto('product_features').values({ product_id: id, feature_id: row.id }).execute();
  }
  catalogueCache(app.ctx).clear();
  return { id, name, version };
}

export async function policyId(app: App, name: string): Promise<number> {
  const row = await app.ctx.db.selectFrom('license_policies').select('id').where('name', '=', name).executeTakeFirstOrThrow();
  return row.id;
}

export interface PolicyInput {
  type: 'INDEFINITE' | 'PERPETUAL' | 'FLOATING';
  licenseMaxValidDays?: number;
  refetchIntervalSeconds?: number;
  refetchBeforeExpirySeconds?: number;
  maxDifferentMachinesCount?: number;
  maxDifferentMachinesIntervalHours?: number;
}

export async function insertPolicy(app: App, input: PolicyInput): Promise<number> {
  const { id } = await app.ctx.db
    .insertInto('license_policies')
    .values({
      name: unique(`POLICY_${input.type}`),
      public_name: '{}',
      type: input.type,
      license_max_valid_days: input.licenseMaxValidDays ?? 30,
      refetch_interval_seconds: input.refetchIntervalSeconds ?? 3600,
      refetch_before_expiry_seconds: input.refetchBeforeExpirySeconds ?? 600,
      max_different_machines_count: input.maxDifferentMachinesCount ?? 100,
      max_different_machines_interval_hours: input.maxDifferentMachinesIntervalHours ?? 24,
      free_updates_period_days: 366,
      notes: null,
      created_at: now(),
      updated_at: now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export async function insertTan(app: App, input: { productId: number; policyId: number; licenseCount: number; distributorId?: number | null }): Promise<number> {
  const { id } = await app.ctx.db
    .insertInto('tans')
    .values({
      code: randomBytes(6).toString('hex'),
      product_id: input.productId,
      license_policy_id: input.policyId,
      license_count: input.licenseCount,
      activated_count: 0,
      distributor_id: input.distributorId ?? null,
      revoked: false,
      free_updates_until: null,
      notes: null,
      created_by: null,
      created_at: now(),
      updated_at: now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export interface LicenseInput {
  ownerId: number;
  productId: number;
  policyId: number;
  machineId: string | null;
  tanId?: number | null;
  kind?: 'TAN' | 'TEMPORARY';
  validUntil?: string | null;
  permanent?: boolean;
  revoked?: boolean;
  freeUpdatesUntil?: string | null;
  upgradedToId?: number | null;
}

export async function insertLicense(app: App, input: LicenseInput): Promise<number> {
  const { id } = await app.ctx.db
    .insertInto('licenses')
    .values({
      kind: input.kind ?? (input.tanId ? 'TAN' : 'TEMPORARY'),
      owner_id: input.ownerId,
      product_id: input.productId,
      license_policy_id: input.policyId,
      tan_id: input.tanId ?? null,
      machine_id: input.machineId,
      valid_until: input.validUntil ?? null,
      permanent: input.permanent ?? false,
      revoked: input.revoked ?? false,
      free_updates_until: input.freeUpdatesUntil ?? null,
      upgraded_to_id: input.upgradedToId ?? null,
      created_at: now(),
      updated_at: now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export async function updateLicense(app: App, id: number, values: { revoked?: boolean; valid_until?: string | null; upgraded_to_id?: number | null; machine_id?: string | null }): Promise<void> {
  await app.ctx.db.updateTable('licenses').set(values).where('id', '=', id).execute();
}

/**
 * Flushes until nothing waits: a flush keeps its rows for the next one while the database is away,
 * as a connection that takes seconds under a loaded CI machine looks; the next timed flush would then
 * write them in the middle of a test.
 */
async function flushAll(writes: { flush(): Promise<void>; readonly waiting: number }): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await writes.flush();
    if (!writes.waiting) return;
    if (attempt === 20) throw new Error(`${writes.waiting} rows still wait after ${attempt} flushes`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Writes the batched last-seen times now. */
export function flushLastSeen(app: App): Promise<void> {
  return flushAll(lastSeenRecorder(app.ctx));
}

/** Writes the seat renewals that 304 answers decided, now. */
export function flushSeatRenewals(app: App): Promise<void> {
  return flushAll(seatRenewals(app.ctx));
}

/** A calendar date `days` from today (UTC). */
export function dateFromToday(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}
