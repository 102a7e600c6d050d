/** Catalogue records for tests, created through the API as an administrator would. */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Feature, FeatureInput } from '@lm/contract/feature';
import type { LicensePolicy, LicensePolicyInput } from '@lm/contract/license-policy';
import type { Product, ProductInput } from '@lm/contract/product';
import type { App } from '../src/app.ts';
import { request } from './harness.ts';

export const uniqueName = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

export async function createFeature(app: App, cookie: string, input: Partial<FeatureInput> = {}): Promise<Feature> {
  const response = await request(app, 'POST', '/api/features', { cookie, body: { name: uniqueName('feature'), ...input } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

export function policyInput(input: Partial<LicensePolicyInput> = {}): LicensePolicyInput {
  return {
    name: uniqueName('policy'),
    publicName: { en: 'A policy', de: 'Eine Richtlinie' },
    type: 'PERPETUAL',
    licenseMaxValidDays: 30,
    refetchIntervalSeconds: 86400,
    refetchBeforeExpirySeconds: 7 * 86400,
    maxDifferentMachinesCount: 3,
    maxDifferentMachinesIntervalHours: 720,
    freeUpdatesPeriodDays: 366,
    notes: null,
    ...input,
  };
}

export async function createPolicy(app: App, cookie: string, input: Partial<LicensePolicyInput> = {}): Promise<LicensePolicy> {
  const response = await request(app, 'POST', '/api/license-policies', { cookie, body: policyInput(input) });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

/** The id of a built-in policy by its internal name. */
export async function builtInPolicyId(app: App, name = 'SINGLE_HOST_PERPETUAL'): Promise<number> {
  const row = await app.ctx.db.selectFrom('license_policies').select('id').where('name', '=', name).executeTakeFirstOrThrow();
  return row.id;
}

export async function productInput(app: App, input: Partial<ProductInput> = {}): Promise<ProductInput> {
  return { name: uniqueName('Product'), version: '1.0', defaultLicensePolicyId: await builtInPolicyId(app), ...input };
}

export async function createProduct(app: App, cookie: string, input: Partial<ProductInput> = {}): Promise<Product> {
  const response = await request(app, 'POST', '/api/products', { cookie, body: await productInput(app, input) });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

/** The change-log rows of one record, oldest first. */
export function changesOf(app: App, model: string, recordId: number) {
  return app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', model).where('record_id', '=', recordId).orderBy('id').execute();
}
