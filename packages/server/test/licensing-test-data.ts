/**
 * Catalogue rows for the licensing suites, written straight into the tables of migration 0001 (the
 * catalogue API is another module's), plus small helpers around the TAN and license calls.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { App } from '../src/app.ts';
import { client } from './harness.ts';

export interface ProductFixture {
  name?: string;
  version?: string;
  active?: boolean;
  releaseDate?: string | null;
  trialDays?: number | null;
  repeatTrialAfterMonths?: number | null;
  ignoreTrialsBefore?: string | null;
  defaultLicensePolicyId?: number | null;
}

export const uniqueName = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

export async function insertProduct(app: App, fixture: ProductFixture = {}): Promise<{ id: number; name: string; version: string }> {
  const now = new Date().toISOString();
  const row = await app.ctx.db
    .insertInto('products')
    .values({
      name: fixture.name ?? uniqueName('Product'),
      version: fixture.version ?? '1.0',
      active: fixture.active ?? true,
      trial_days: fixture.trialDays === undefined ? 14 : fixture.trialDays,
      repeat_trial_after_months: fixture.repeatTrialAfterMonths ?? null,
      ignore_trials_before: fixture.ignoreTrialsBefore ?? null,
      release_date: fixture.releaseDate ?? '2025-01-01',
      default_license_policy_id: fixture.defaultLicensePolicyId ?? null,
      notes: null,
      created_at: now,
      updated_at: now,
    })
    .returning(['id', 'name', 'version'])
    .executeTakeFirstOrThrow();
  return row;
}

export interface PolicyFixture {
  maxDifferentMachinesCount?: number;
  maxDifferentMachinesIntervalHours?: number;
  freeUpdatesPeriodDays?: number | null;
  type?: 'INDEFINITE' | 'PERPETUAL' | 'FLOATING';
}

export async function insertPolicy(app: App, fixture: PolicyFixture = {}): Promise<number> {
  const now = new Date().toISOString();
  const row = await app.ctx.db
    .insertInto('license_policies')
    .values({
      name: uniqueName('POLICY'),
      public_name: '{}',
      type: fixture.type ?? 'INDEFINITE',
      license_max_valid_days: 30,
      refetch_interval_seconds: 86400,
      refetch_before_expiry_seconds: 604800,
      max_different_machines_count: fixture.maxDifferentMachinesCount ?? 3,
      max_different_machines_interval_hours: fixture.maxDifferentMachinesIntervalHours ?? 720,
      free_updates_period_days: fixture.freeUpdatesPeriodDays === undefined ? 366 : fixture.freeUpdatesPeriodDays,
      notes: null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function policyIdByName(app: App, name: string): Promise<number> {
  return (await app.ctx.db.selectFrom('license_policies').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;
}

export type Client = ReturnType<typeof client>;

export interface TanBody {
  productId: number;
  licensePolicyId?: number | null;
  licenseCount?: number;
  distributorId?: number | null;
  freeUpdatesUntil?: string | null;
  tags?: string[];
  notes?: string | null;
}

/** Creates TANs through the API and returns them. */
export async function createTans(caller: Client, body: TanBody, count = 1) {
  const response = await caller.post('/api/tans', { query: { count: String(count) }, body: { licenseCount: 1, ...body } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().items as { id: number; code: string; licenseCount: number; activatedCount: number; distributorId: number | null }[];
}

export const machine = () => `M-${randomBytes(6).toString('hex')}`;

export async function activate(caller: Client, tan: string, machineId = machine()) {
  return caller.post('/api/licenses/activate', { body: { tan, machineId } });
}

export function isoDaysFromToday(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}
