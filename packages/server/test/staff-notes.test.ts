import { expect, it } from 'vitest';
import { createFeature, createPolicy, createProduct } from './catalogue-fixtures.ts';
import { callersOfEachRole, describeBothDatabases } from './harness.ts';

/**
 * What administrators note on the catalogue is for internal use: distributors, who may list and
 * read products, features and policies, get them without notes, in every answer.
 */
describeBothDatabases('administrators’ notes on the catalogue', (t) => {
  const { cookies, admin, distributor } = callersOfEachRole(t);

  it('reach administrators and never distributors, in lists, single records and version lists', async () => {
    const secret = 'Reseller margin is thin: no extra discount';
    const feature = await createFeature(t.app, cookies.ADMIN, { notes: secret });
    const policy = await createPolicy(t.app, cookies.ADMIN, { notes: secret });
    const product = await createProduct(t.app, cookies.ADMIN, { notes: secret, features: [feature.name], defaultLicensePolicyId: policy.id });
    const answers = {
      feature: `/api/features/${feature.id}`,
      features: `/api/features?filter=${encodeURIComponent(feature.name)}`,
      policy: `/api/license-policies/${policy.id}`,
      policies: '/api/license-policies?limit=100',
      product: `/api/products/${product.id}`,
      products: `/api/products?filter=${encodeURIComponent(product.name)}`,
      versions: `/api/products/${product.id}/versions`,
    };
    for (const [what, url] of Object.entries(answers)) {
      const seenByAdmin = await admin.get(url);
      expect(seenByAdmin.statusCode, `${what}: ${seenByAdmin.body}`).toBe(200);
      expect(seenByAdmin.body, what).toContain(secret);
      const seenByDistributor = await distributor.get(url);
      expect(seenByDistributor.statusCode, `${what}: ${seenByDistributor.body}`).toBe(200);
      expect(seenByDistributor.body, what).not.toContain(secret);
      const records = 'items' in seenByDistributor.json() ? seenByDistributor.json().items : [seenByDistributor.json()];
      expect(records.length, what).toBeGreaterThan(0);
      for (const record of records) expect(record, what).not.toHaveProperty('notes');
    }
  });

  it('are searched by administrators only: a distributor\'s filter does not find a record by its notes', async () => {
    const secret = `margin-${Date.now()}`;
    const feature = await createFeature(t.app, cookies.ADMIN, { notes: secret });
    const policy = await createPolicy(t.app, cookies.ADMIN, { notes: secret });
    const product = await createProduct(t.app, cookies.ADMIN, { notes: secret, features: [feature.name], defaultLicensePolicyId: policy.id });
    const searches = { features: feature.id, 'license-policies': policy.id, products: product.id };
    for (const [list, id] of Object.entries(searches)) {
      for (const filter of [secret, secret.slice(0, 9)]) {
        const url = `/api/${list}?filter=${encodeURIComponent(filter)}`;
        const byAdmin = await admin.get(url);
        expect(byAdmin.json().items.map((item: { id: number }) => item.id), url).toContain(id);
        const byDistributor = await distributor.get(url);
        expect(byDistributor.statusCode, url).toBe(200);
        expect(byDistributor.json(), url).toMatchObject({ items: [], totalCount: 0 });
      }
    }
  });
});
