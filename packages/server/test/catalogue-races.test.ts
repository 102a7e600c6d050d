/**
 * Races the services' own checks lose: a record deleted between the check and the write. The
 * database refuses (a foreign key), and the answer says what happened, with its own code, never
 * "This name is already taken". The races are staged by letting a check pass while the record goes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Executor } from '../src/platform/db/database.ts';
import * as featuresRepo from '../src/modules/features/repo.ts';
import * as references from '../src/platform/db/references.ts';
import * as productsRepo from '../src/modules/products/repo.ts';
import { createFeature, createPolicy, createProduct, productInput, uniqueName } from './catalogue-fixtures.ts';
import { callersOfEachRole, describeBothDatabases, expectError } from './harness.ts';

vi.mock('../src/modules/features/repo.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../src/modules/features/repo.ts')>();
  return { ...original, featureIdsByName: vi.fn(original.featureIdsByName) };
});
vi.mock('../src/platform/db/references.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../src/platform/db/references.ts')>();
  return { ...original, rowExists: vi.fn(original.rowExists) };
});
vi.mock('../src/modules/products/repo.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../src/modules/products/repo.ts')>();
  return { ...original, productUsage: vi.fn(original.productUsage) };
});

const CHANGED_MEANWHILE = 'A feature or license policy used here was changed or deleted at the same time. Check your entries and save again.';

describeBothDatabases('catalogue races', (t) => {
  const { cookies, admin } = callersOfEachRole(t);

  afterEach(() => vi.clearAllMocks());

  /** The next look-up of feature names finds them, and they are deleted right after (another request's delete). */
  function deleteFeaturesAfterTheCheck() {
    const original = vi.mocked(featuresRepo.featureIdsByName).getMockImplementation()!;
    vi.mocked(featuresRepo.featureIdsByName).mockImplementationOnce(async (db: Executor, names: readonly string[]) => {
      const ids = await original(db, names);
      if (ids.size) await db.deleteFrom('features').where('id', 'in', [...ids.values()]).execute();
      return ids;
    });
  }

  describe('a feature', () => {
    it('whose expand-to target is deleted at the same time: 409 ERR_CONCURRENT_CHANGE', async () => {
      const target = await createFeature(t.app, cookies.ADMIN);
      deleteFeaturesAfterTheCheck();
      const body = expectError(await admin.post('/api/features', { body: { name: uniqueName('feature'), expandToFeatures: [target.name] } }), 409, 'ERR_CONCURRENT_CHANGE');
      expect(body.message).toBe(CHANGED_MEANWHILE);
      // The delete was part of the refused transaction: the target is still there.
      expect((await admin.get(`/api/features/${target.id}`)).statusCode).toBe(200);
    });
  });

  describe('a product', () => {
    it('whose feature is deleted at the same time: 409 ERR_CONCURRENT_CHANGE', async () => {
      const feature = await createFeature(t.app, cookies.ADMIN);
      deleteFeaturesAfterTheCheck();
      const body = expectError(await admin.post('/api/products', { body: await productInput(t.app, { features: [feature.name] }) }), 409, 'ERR_CONCURRENT_CHANGE');
      expect(body.message).toBe(CHANGED_MEANWHILE);
    });

    it('whose license policy is deleted at the same time: 409 ERR_CONCURRENT_CHANGE', async () => {
      const policy = await createPolicy(t.app, cookies.ADMIN);
      const original = vi.mocked(references.rowExists).getMockImplementation()!;
      vi.mocked(references.rowExists).mockImplementationOnce(async (db: Executor, table: references.ReferencedTable, id: number) => {
        const exists = await original(db, table, id);
        await db.deleteFrom(table).where('id', '=', id).execute();
        return exists;
      });
      const body = expectError(await admin.post('/api/products', { body: await productInput(t.app, { defaultLicensePolicyId: policy.id }) }), 409, 'ERR_CONCURRENT_CHANGE');
      expect(body.message).toBe(CHANGED_MEANWHILE);
    });

    it('deleted while a TAN for it is created: 409 ERR_IN_USE naming the product', async () => {
      const product = await createProduct(t.app, cookies.ADMIN);
      const now = new Date().toISOString();
      await t.app.ctx.db
        .insertInto('tans')
        .values({ code: uniqueName('tan').slice(0, 12), product_id: product.id, license_count: 1, activated_count: 0, revoked: false, created_at: now, updated_at: now })
        .execute();
      // The usage check ran before the TAN arrived.
      vi.mocked(productsRepo.productUsage).mockResolvedValueOnce({ tans: 0, licenses: 0 });
      const body = expectError(await admin.delete(`/api/products/${product.id}`), 409, 'ERR_IN_USE');
      expect(body.params).toEqual({ name: product.formattedName });
      expect(body.message).toBe(`${product.formattedName} is still in use: a TAN or license for it was created at the same time`);
      expect((await admin.get(`/api/products/${product.id}`)).statusCode).toBe(200);
    });
  });
});
