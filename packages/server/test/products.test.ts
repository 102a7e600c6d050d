import { describe, expect, it } from 'vitest';
import { builtInPolicyId, changesOf, createFeature, createPolicy, createProduct, productInput, uniqueName } from './catalogue-fixtures.ts';
import { callersOfEachRole, describeBothDatabases, expectError } from './harness.ts';

type Item = { id: number; name: string; version: string; features: string[] };
const ids = (body: { items: Item[] }) => body.items.map((item) => item.id);

describeBothDatabases('products', (t) => {
  const { cookies, admin, user, distributor, anonymous } = callersOfEachRole(t);

  describe('POST /api/products', () => {
    it('creates a product with every field, answers formattedName, features, links and createdAt, and logs the insert', async () => {
      const [a, b] = [await createFeature(t.app, cookies.ADMIN), await createFeature(t.app, cookies.ADMIN)];
      const policy = await createPolicy(t.app, cookies.ADMIN);
      const body = {
        name: uniqueName('Studio'),
        version: '2.1',
        active: false,
        trialDays: 14,
        repeatTrialAfterMonths: 6,
        ignoreTrialsBefore: '2025-01-01',
        releaseDate: '2025-06-30',
        features: [b.name, a.name],
        defaultLicensePolicyId: policy.id,
        downloadLinks: [
          { type: 'win', url: 'https://example.com/studio.exe' },
          { type: 'mac', url: 'https://example.com/studio.dmg' },
          { type: 'offline', url: 'http://example.com/offline.zip' },
        ],
        notes: 'flagship',
      };
      const response = await admin.post('/api/products', { body });
      expect(response.statusCode, response.body).toBe(201);
      const created = response.json();
      expect(created).toMatchObject({ ...body, formattedName: `${body.name} 2.1`, features: [a.name, b.name].sort() });
      expect(Date.parse(created.createdAt)).not.toBeNaN();
      const changes = await changesOf(t.app, 'Product', created.id);
      expect(changes.map((row) => row.operation)).toEqual(['insert']);
      expect(JSON.parse(changes[0].new_values!)).toMatchObject({ name: body.name, downloadLinks: body.downloadLinks });
    });

    it('defaults to active, no trials, no dates, no features and no links', async () => {
      const created = await createProduct(t.app, cookies.ADMIN);
      expect(created).toMatchObject({ active: true, trialDays: null, repeatTrialAfterMonths: null, ignoreTrialsBefore: null, releaseDate: null, features: [], downloadLinks: [] });
    });

    const invalid: [string, Record<string, unknown>, string][] = [
      ['a name with a leading space', { name: ' Studio' }, 'name'],
      ['a name with a trailing space', { name: 'Studio ' }, 'name'],
      ['an empty name', { name: '' }, 'name'],
      ['a version with a trailing tab', { version: '1.0\t' }, 'version'],
      ['no version', { version: undefined }, 'version'],
      ['trial days 0', { trialDays: 0 }, 'trialDays'],
      ['fractional repeat months', { repeatTrialAfterMonths: 1.5 }, 'repeatTrialAfterMonths'],
      ['a malformed release date', { releaseDate: '2025-13-01' }, 'releaseDate'],
      ['a timestamp as ignoreTrialsBefore', { ignoreTrialsBefore: '2025-01-01T00:00:00Z' }, 'ignoreTrialsBefore'],
      ['an invalid feature name', { features: ['no spaces'] }, 'features.0'],
      ['a repeated feature', { features: ['a', 'a'] }, 'features'],
      ['no default license policy', { defaultLicensePolicyId: undefined }, 'defaultLicensePolicyId'],
      ['an unknown link type', { downloadLinks: [{ type: 'linux', url: 'https://example.com/x' }] }, 'downloadLinks.0.type'],
      ['a link that is not a URL', { downloadLinks: [{ type: 'win', url: 'not a url' }] }, 'downloadLinks.0.url'],
      ['a javascript: link', { downloadLinks: [{ type: 'win', url: 'javascript:alert(1)' }] }, 'downloadLinks.0.url'],
      ['active as text', { active: 'yes' }, 'active'],
    ];
    it.each(invalid)('refuses %s with 400 ERR_VALIDATION on the field', async (_label, change, path) => {
      const error = expectError(await admin.post('/api/products', { body: { ...(await productInput(t.app)), ...change } }), 400, 'ERR_VALIDATION');
      expect(error.details?.map((detail) => detail.path)).toContain(path);
    });

    it('refuses an unknown license policy and unknown features', async () => {
      const policy = expectError(await admin.post('/api/products', { body: await productInput(t.app, { defaultLicensePolicyId: 999999 }) }), 400, 'ERR_VALIDATION');
      expect(policy.details?.[0].path).toBe('defaultLicensePolicyId');
      const known = await createFeature(t.app, cookies.ADMIN);
      const features = expectError(await admin.post('/api/products', { body: await productInput(t.app, { features: [known.name, 'missing-one'] }) }), 400, 'ERR_UNKNOWN_FEATURE');
      expect(features.details).toEqual([expect.objectContaining({ path: 'features.1' })]);
    });

    it('refuses a second product of the same name and version with 409 ERR_CONFLICT', async () => {
      const existing = await createProduct(t.app, cookies.ADMIN);
      const taken = expectError(await admin.post('/api/products', { body: await productInput(t.app, { name: existing.name, version: existing.version }) }), 409, 'ERR_CONFLICT');
      expect(taken.details).toMatchObject([{ path: 'version', code: 'duplicateVersion' }]);
      expect((await admin.post('/api/products', { body: await productInput(t.app, { name: existing.name, version: '1.1' }) })).statusCode).toBe(201);
    });

    it('refuses customers and distributors with 403, anonymous callers with 401', async () => {
      const body = await productInput(t.app);
      for (const caller of [user, distributor]) expectError(await caller.post('/api/products', { body }), 403, 'ERR_FORBIDDEN');
      expectError(await anonymous.post('/api/products', { body }), 401, 'ERR_UNAUTHENTICATED');
    });
  });

  describe('GET /api/products', () => {
    it('filters by text and active, sorts, pages, and answers items and totalCount', async () => {
      const name = uniqueName('Suite');
      const v1 = await createProduct(t.app, cookies.ADMIN, { name, version: '1.0', active: false });
      const v2 = await createProduct(t.app, cookies.ADMIN, { name, version: '2.0' });
      const v3 = await createProduct(t.app, cookies.ADMIN, { name, version: '3.0' });
      const all = (await admin.get('/api/products', { query: { filter: name.toUpperCase(), sort: '-version' } })).json();
      expect(all.totalCount).toBe(3);
      expect(ids(all)).toEqual([v3.id, v2.id, v1.id]);
      expect(ids((await admin.get('/api/products', { query: { filter: name, active: 'true' } })).json())).toEqual([v2.id, v3.id]);
      expect(ids((await admin.get('/api/products', { query: { filter: name, active: 'false' } })).json())).toEqual([v1.id]);
      const page = (await admin.get('/api/products', { query: { filter: name, limit: '1', offset: '1' } })).json();
      expect(page).toMatchObject({ totalCount: 3 });
      expect(ids(page)).toEqual([v2.id]);
      expect(ids((await admin.get('/api/products', { query: { ids: `${v1.id},${v3.id}` } })).json())).toEqual([v1.id, v3.id]);
    });

    it('finds letters of every alphabet whatever their case: "über" and "ÜBER" find Übersetzer, on SQLite too', async () => {
      const name = uniqueName('Übersetzer');
      const mark = uniqueName('ÉLAN');
      const product = await createProduct(t.app, cookies.ADMIN, { name, notes: `${mark} Édition` });
      for (const filter of [name.toLowerCase(), name.toUpperCase(), `${mark.toLowerCase()} édition`]) {
        expect(ids((await admin.get('/api/products', { query: { filter } })).json()), filter).toEqual([product.id]);
      }
    });

    it('refuses malformed query parameters with 400', async () => {
      for (const query of [{ active: 'maybe' }, { resolveFeatures: 'x' }, { featureNames: 'bad name' }, { sort: 'password' }, { limit: '0' }, { ids: '1,x' }] as Record<string, string>[]) {
        expectError(await admin.get('/api/products', { query }), 400, 'ERR_VALIDATION');
      }
    });

    it('resolves features by expand-to-features and finds products by feature names, directly or resolved', async () => {
      const leafA = await createFeature(t.app, cookies.ADMIN);
      const leafB = await createFeature(t.app, cookies.ADMIN);
      const middle = await createFeature(t.app, cookies.ADMIN, { expandToFeatures: [leafB.name] });
      const bundle = await createFeature(t.app, cookies.ADMIN, { expandToFeatures: [leafA.name, middle.name] });
      const direct = await createProduct(t.app, cookies.ADMIN, { features: [leafA.name] });
      const bundled = await createProduct(t.app, cookies.ADMIN, { features: [bundle.name] });

      const both = `${direct.id},${bundled.id}`;
      const plain = (await admin.get('/api/products', { query: { ids: both, sort: 'id' } })).json();
      expect(plain.items.map((item: Item) => item.features)).toEqual([[leafA.name], [bundle.name]]);
      const resolved = (await admin.get('/api/products', { query: { ids: both, sort: 'id', resolveFeatures: 'true' } })).json();
      expect(resolved.items.map((item: Item) => item.features)).toEqual([[leafA.name], [leafA.name, leafB.name].sort()]);

      // featureNames: products having every named feature.
      expect(ids((await admin.get('/api/products', { query: { featureNames: leafA.name } })).json())).toEqual([direct.id]);
      expect(ids((await admin.get('/api/products', { query: { featureNames: bundle.name } })).json())).toEqual([bundled.id]);
      const resolvedA = (await admin.get('/api/products', { query: { featureNames: leafA.name, resolveFeatures: 'true' } })).json();
      expect(ids(resolvedA).sort()).toEqual([direct.id, bundled.id].sort());
      expect(ids((await admin.get('/api/products', { query: { featureNames: `${leafA.name},${leafB.name}`, resolveFeatures: 'true' } })).json())).toEqual([bundled.id]);
      expect(ids((await admin.get('/api/products', { query: { featureNames: `${leafA.name},${leafB.name}` } })).json())).toEqual([]);
      // A feature that expands is replaced: once resolved, no product has it.
      expect((await admin.get('/api/products', { query: { featureNames: bundle.name, resolveFeatures: 'true' } })).json().totalCount).toBe(0);
      expect((await admin.get('/api/products', { query: { featureNames: 'unknown-feature' } })).json().totalCount).toBe(0);
    });

    it('lets distributors list; refuses customers with 403 and anonymous callers with 401', async () => {
      expect((await distributor.get('/api/products')).statusCode).toBe(200);
      expectError(await user.get('/api/products'), 403, 'ERR_FORBIDDEN');
      expectError(await anonymous.get('/api/products'), 401, 'ERR_UNAUTHENTICATED');
    });
  });

  describe('GET /api/products/{id} and /versions', () => {
    it('answers one product; 404 for an unknown id; 403 for customers; 401 for anonymous callers', async () => {
      const product = await createProduct(t.app, cookies.ADMIN);
      const { notes: _notes, ...shownToDistributors } = product;
      expect((await distributor.get(`/api/products/${product.id}`)).json()).toEqual(shownToDistributors);
      expectError(await admin.get('/api/products/999999'), 404, 'ERR_NOT_FOUND');
      expectError(await admin.get('/api/products/3000000000'), 400, 'ERR_VALIDATION');
      expectError(await admin.post('/api/products', { body: await productInput(t.app, { defaultLicensePolicyId: 3000000000 }) }), 400, 'ERR_VALIDATION');
      expectError(await admin.get('/api/products', { query: { ids: '3000000000' } }), 400, 'ERR_VALIDATION');
      expectError(await admin.put('/api/settings/order.temporaryLicenseProductId', { body: { value: 3000000000 } }), 400, 'ERR_VALIDATION');
      expectError(await user.get(`/api/products/${product.id}`), 403, 'ERR_FORBIDDEN');
      expectError(await anonymous.get(`/api/products/${product.id}`), 401, 'ERR_UNAUTHENTICATED');
    });

    it('lists the products of the same name ordered by version, numbers by value', async () => {
      const name = uniqueName('Versioned');
      const made: Record<string, number> = {};
      for (const version of ['1.10', '1.9', '2.0', '1.2.3']) made[version] = (await createProduct(t.app, cookies.ADMIN, { name, version })).id;
      await createProduct(t.app, cookies.ADMIN, { name: `${name}-other`, version: '1.0' });
      const body = (await admin.get(`/api/products/${made['2.0']}/versions`)).json();
      expect(body.totalCount).toBe(4);
      expect(body.items.map((item: Item) => item.version)).toEqual(['1.2.3', '1.9', '1.10', '2.0']);
      expect((await distributor.get(`/api/products/${made['1.9']}/versions`)).statusCode).toBe(200);
      expectError(await admin.get('/api/products/999999/versions'), 404, 'ERR_NOT_FOUND');
      expectError(await user.get(`/api/products/${made['1.9']}/versions`), 403, 'ERR_FORBIDDEN');
      expectError(await anonymous.get(`/api/products/${made['1.9']}/versions`), 401, 'ERR_UNAUTHENTICATED');
    });
  });

  describe('PUT /api/products/{id}', () => {
    it('changes every field, replaces features and links, and logs old and new values', async () => {
      const [a, b] = [await createFeature(t.app, cookies.ADMIN), await createFeature(t.app, cookies.ADMIN)];
      const product = await createProduct(t.app, cookies.ADMIN, { features: [a.name], downloadLinks: [{ type: 'win', url: 'https://example.com/a.exe' }] });
      const policyId = await builtInPolicyId(t.app, 'FLOATING_DEFAULT');
      const body = await productInput(t.app, {
        name: uniqueName('Renamed'),
        version: '9',
        active: false,
        trialDays: 30,
        repeatTrialAfterMonths: 12,
        releaseDate: '2026-01-31',
        features: [b.name],
        defaultLicensePolicyId: policyId,
        downloadLinks: [{ type: 'offline', url: 'https://example.com/b.zip' }],
      });
      const response = await admin.put(`/api/products/${product.id}`, { body });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ ...body, id: product.id, formattedName: `${body.name} 9` });
      const [, update] = await changesOf(t.app, 'Product', product.id);
      expect(JSON.parse(update.old_values!)).toMatchObject({ features: [a.name], downloadLinks: [{ type: 'win' }] });
      expect(JSON.parse(update.new_values!)).toMatchObject({ features: [b.name], active: false });
    });

    it('refuses invalid values, a taken name and version, and unknown ids', async () => {
      const first = await createProduct(t.app, cookies.ADMIN);
      const second = await createProduct(t.app, cookies.ADMIN);
      expectError(await admin.put(`/api/products/${second.id}`, { body: await productInput(t.app, { name: first.name, version: first.version }) }), 409, 'ERR_CONFLICT');
      expectError(await admin.put(`/api/products/${second.id}`, { body: await productInput(t.app, { version: ' 2' }) }), 400, 'ERR_VALIDATION');
      expectError(await admin.put('/api/products/999999', { body: await productInput(t.app) }), 404, 'ERR_NOT_FOUND');
      // Saving a product unchanged is fine.
      expect((await admin.put(`/api/products/${second.id}`, { body: await productInput(t.app, { name: second.name, version: second.version }) })).statusCode).toBe(200);
    });

    it('refuses customers and distributors with 403, anonymous callers with 401', async () => {
      const product = await createProduct(t.app, cookies.ADMIN);
      const body = await productInput(t.app, { name: product.name });
      for (const caller of [user, distributor]) expectError(await caller.put(`/api/products/${product.id}`, { body }), 403, 'ERR_FORBIDDEN');
      expectError(await anonymous.put(`/api/products/${product.id}`, { body }), 401, 'ERR_UNAUTHENTICATED');
    });
  });

  describe('DELETE /api/products/{id}', () => {
    it('deletes an unused product with its features and links, and logs it', async () => {
      const feature = await createFeature(t.app, cookies.ADMIN);
      const product = await createProduct(t.app, cookies.ADMIN, { features: [feature.name], downloadLinks: [{ type: 'mac', url: 'https://example.com/x.dmg' }] });
      expect((await admin.delete(`/api/products/${product.id}`)).statusCode).toBe(204);
      expectError(await admin.get(`/api/products/${product.id}`), 404, 'ERR_NOT_FOUND');
      expectError(await admin.delete(`/api/products/${product.id}`), 404, 'ERR_NOT_FOUND');
      const links = await t.app.ctx.db.selectFrom('product_download_links').select('id').where('product_id', '=', product.id).execute();
      expect(links).toEqual([]);
      // The feature is free again.
      expect((await admin.delete(`/api/features/${feature.id}`)).statusCode).toBe(204);
      expect((await changesOf(t.app, 'Product', product.id)).map((row) => row.operation)).toEqual(['insert', 'delete']);
    });

    it('refuses a product that TANs refer to, or the order automation, with 409 ERR_IN_USE', async () => {
      const product = await createProduct(t.app, cookies.ADMIN);
      const now = new Date().toISOString();
      await t.app.ctx.db
        .insertInto('tans')
        .values({ code: uniqueName('tan').slice(0, 12), product_id: product.id, license_count: 1, activated_count: 0, revoked: false, created_at: now, updated_at: now })
        .execute();
      expectError(await admin.delete(`/api/products/${product.id}`), 409, 'ERR_IN_USE');

      const automated = await createProduct(t.app, cookies.ADMIN);
      expect((await admin.put('/api/settings/order.temporaryLicenseProductId', { body: { value: automated.id } })).statusCode).toBe(204);
      expect(expectError(await admin.delete(`/api/products/${automated.id}`), 409, 'ERR_IN_USE').message).toContain('order automation');
      expect((await admin.delete('/api/settings/order.temporaryLicenseProductId')).statusCode).toBe(204);
      expect((await admin.delete(`/api/products/${automated.id}`)).statusCode).toBe(204);
    });

    it('refuses customers and distributors with 403, anonymous callers with 401', async () => {
      const product = await createProduct(t.app, cookies.ADMIN);
      for (const caller of [user, distributor]) expectError(await caller.delete(`/api/products/${product.id}`), 403, 'ERR_FORBIDDEN');
      expectError(await anonymous.delete(`/api/products/${product.id}`), 401, 'ERR_UNAUTHENTICATED');
      expect((await admin.get(`/api/products/${product.id}`)).statusCode).toBe(200);
    });
  });
});
