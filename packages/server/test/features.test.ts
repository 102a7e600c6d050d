import { describe, expect, it } from 'vitest';
import { changesOf, createFeature, createProduct, uniqueName } from './catalogue-fixtures.ts';
import { callersOfEachRole, describeBothDatabases, expectError } from './harness.ts';

describeBothDatabases('features', (t) => {
  const { cookies, admin, user, distributor, anonymous } = callersOfEachRole(t);

  describe('POST /api/features', () => {
    it('creates a feature with localized descriptions, hidden, expansions and notes, and logs the insert', async () => {
      const target = await createFeature(t.app, cookies.ADMIN);
      const name = uniqueName('export:pdf/v2_x');
      const response = await admin.post('/api/features', {
        body: { name, localizedDescription: { en: 'PDF export', de: 'PDF-Export', fr: '' }, hidden: true, expandToFeatures: [target.name], notes: 'internal' },
      });
      expect(response.statusCode, response.body).toBe(201);
      const created = response.json();
      expect(created).toMatchObject({
        name,
        localizedDescription: { en: 'PDF export', de: 'PDF-Export' },
        hidden: true,
        expandToFeatures: [target.name],
        notes: 'internal',
      });
      expect(created.localizedDescription).not.toHaveProperty('fr');
      expect(Date.parse(created.createdAt)).not.toBeNaN();
      const changes = await changesOf(t.app, 'Feature', created.id);
      expect(changes).toHaveLength(1);
      expect(changes[0]).toMatchObject({ operation: 'insert', old_values: null });
      expect(JSON.parse(changes[0].new_values!)).toMatchObject({ name, expandToFeatures: [target.name] });
    });

    it('defaults hidden, descriptions, expansions and notes', async () => {
      const name = uniqueName('plain');
      const created = (await admin.post('/api/features', { body: { name } })).json();
      expect(created).toMatchObject({ name, localizedDescription: {}, hidden: false, expandToFeatures: [], notes: null });
    });

    const invalidBodies: [string, unknown][] = [
      ['no name', {}],
      ['an empty name', { name: '' }],
      ['a name with a space', { name: 'two words' }],
      ['a name with a dot', { name: 'a.b' }],
      ['a name with an accented letter', { name: 'größe' }],
      ['a name of 101 characters', { name: 'x'.repeat(101) }],
      ['an unknown locale', { name: 'ok-name', localizedDescription: { xx: 'text' } }],
      ['a description that is not text', { name: 'ok-name', localizedDescription: { en: 5 } }],
      ['hidden that is not a boolean', { name: 'ok-name', hidden: 'yes' }],
      ['an invalid expansion name', { name: 'ok-name', expandToFeatures: ['bad name'] }],
      ['a repeated expansion', { name: 'ok-name', expandToFeatures: ['a', 'a'] }],
    ];
    it.each(invalidBodies)('refuses %s with 400 ERR_VALIDATION', async (_label, body) => {
      const error = expectError(await admin.post('/api/features', { body }), 400, 'ERR_VALIDATION');
      expect(error.details?.length).toBeGreaterThan(0);
    });

    it('refuses a duplicate name with 409 ERR_CONFLICT', async () => {
      const existing = await createFeature(t.app, cookies.ADMIN);
      const error = expectError(await admin.post('/api/features', { body: { name: existing.name } }), 409, 'ERR_CONFLICT');
      expect(error.details?.[0].path).toBe('name');
    });

    it('refuses unknown expansion names with 400 ERR_UNKNOWN_FEATURE, naming each position', async () => {
      const known = await createFeature(t.app, cookies.ADMIN);
      const error = expectError(
        await admin.post('/api/features', { body: { name: uniqueName('x'), expandToFeatures: [known.name, 'no-such-feature'] } }),
        400,
        'ERR_UNKNOWN_FEATURE',
      );
      expect(error.details).toEqual([expect.objectContaining({ path: 'expandToFeatures.1' })]);
    });

    it('refuses a feature that expands to itself with 422 ERR_FEATURE_CYCLE', async () => {
      const name = uniqueName('self');
      await createFeature(t.app, cookies.ADMIN, { name: `${name}-other` });
      // A new feature cannot name itself (it does not exist yet): that is an unknown feature.
      expectError(await admin.post('/api/features', { body: { name, expandToFeatures: [name] } }), 400, 'ERR_UNKNOWN_FEATURE');
    });

    it('refuses customers and distributors with 403, anonymous callers with 401', async () => {
      for (const caller of [user, distributor]) expectError(await caller.post('/api/features', { body: { name: uniqueName('x') } }), 403, 'ERR_FORBIDDEN');
      expectError(await anonymous.post('/api/features', { body: { name: uniqueName('x') } }), 401, 'ERR_UNAUTHENTICATED');
    });
  });

  describe('GET /api/features', () => {
    it('lists with filter, sort, offset and limit, and answers items and totalCount', async () => {
      const prefix = uniqueName('list');
      for (const suffix of ['b', 'a', 'c']) await createFeature(t.app, cookies.ADMIN, { name: `${prefix}-${suffix}`, localizedDescription: { en: `Desc ${suffix}` } });
      const response = await admin.get('/api/features', { query: { filter: prefix, sort: '-name', limit: '2' } });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.totalCount).toBe(3);
      expect(body.items.map((item: { name: string }) => item.name)).toEqual([`${prefix}-c`, `${prefix}-b`]);
      const next = (await admin.get('/api/features', { query: { filter: prefix, sort: '-name', limit: '2', offset: '2' } })).json();
      expect(next.items.map((item: { name: string }) => item.name)).toEqual([`${prefix}-a`]);
    });

    it('searches the descriptions case-insensitively and takes % and _ literally', async () => {
      const word = uniqueName('Zebra');
      const feature = await createFeature(t.app, cookies.ADMIN, { localizedDescription: { de: `Ein ${word}` } });
      const found = (await admin.get('/api/features', { query: { filter: word.toUpperCase() } })).json();
      expect(found.items.map((item: { id: number }) => item.id)).toEqual([feature.id]);
      expect((await admin.get('/api/features', { query: { filter: '%' } })).json().totalCount).toBe(0);
    });

    it('allows the cache\'s limit of 10000 and refuses more', async () => {
      expect((await admin.get('/api/features', { query: { limit: '10000' } })).statusCode).toBe(200);
      expectError(await admin.get('/api/features', { query: { limit: '10001' } }), 400, 'ERR_VALIDATION');
      expectError(await admin.get('/api/features', { query: { sort: 'notes' } }), 400, 'ERR_VALIDATION');
    });

    it('lets distributors list; refuses customers with 403 and anonymous callers with 401', async () => {
      expect((await distributor.get('/api/features')).statusCode).toBe(200);
      expectError(await user.get('/api/features'), 403, 'ERR_FORBIDDEN');
      expectError(await anonymous.get('/api/features'), 401, 'ERR_UNAUTHENTICATED');
    });
  });

  describe('GET /api/features/{id}', () => {
    it('answers one feature, 404 for an unknown id and 400 for a malformed one', async () => {
      const feature = await createFeature(t.app, cookies.ADMIN);
      expect((await distributor.get(`/api/features/${feature.id}`)).json()).toMatchObject({ id: feature.id, name: feature.name });
      expectError(await admin.get('/api/features/999999'), 404, 'ERR_NOT_FOUND');
      expectError(await admin.get('/api/features/abc'), 400, 'ERR_VALIDATION');
      // Beyond a 32-bit integer column: still an ordinary answer, on both databases.
      expectError(await admin.get('/api/features/3000000000'), 400, 'ERR_VALIDATION');
      expectError(await admin.put('/api/features/3000000000', { body: { name: 'big-id' } }), 400, 'ERR_VALIDATION');
      expectError(await admin.delete('/api/features/3000000000'), 400, 'ERR_VALIDATION');
      expectError(await user.get(`/api/features/${feature.id}`), 403, 'ERR_FORBIDDEN');
      expectError(await anonymous.get(`/api/features/${feature.id}`), 401, 'ERR_UNAUTHENTICATED');
    });
  });

  describe('PUT /api/features/{id}', () => {
    it('changes every field and logs old and new values', async () => {
      const feature = await createFeature(t.app, cookies.ADMIN, { localizedDescription: { en: 'Old' } });
      const target = await createFeature(t.app, cookies.ADMIN);
      const name = uniqueName('renamed');
      const response = await admin.put(`/api/features/${feature.id}`, {
        body: { name, localizedDescription: { it: 'Nuovo' }, hidden: true, expandToFeatures: [target.name], notes: 'n' },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ id: feature.id, name, localizedDescription: { it: 'Nuovo' }, hidden: true, expandToFeatures: [target.name], notes: 'n' });
      const [, update] = await changesOf(t.app, 'Feature', feature.id);
      expect(update.operation).toBe('update');
      expect(JSON.parse(update.old_values!)).toMatchObject({ name: feature.name, localizedDescription: { en: 'Old' } });
      expect(JSON.parse(update.new_values!)).toMatchObject({ name, hidden: true });
    });

    it('refuses cycles with 422 ERR_FEATURE_CYCLE and a readable path', async () => {
      const c = await createFeature(t.app, cookies.ADMIN);
      const b = await createFeature(t.app, cookies.ADMIN, { expandToFeatures: [c.name] });
      const a = await createFeature(t.app, cookies.ADMIN, { expandToFeatures: [b.name] });
      const self = expectError(await admin.put(`/api/features/${a.id}`, { body: { name: a.name, expandToFeatures: [a.name] } }), 422, 'ERR_FEATURE_CYCLE');
      expect(self.message).toContain(`${a.name} → ${a.name}`);
      const long = expectError(await admin.put(`/api/features/${c.id}`, { body: { name: c.name, expandToFeatures: [a.name] } }), 422, 'ERR_FEATURE_CYCLE');
      expect(long.message).toContain(`${c.name} → ${a.name} → ${b.name} → ${c.name}`);
      // Nothing changed.
      expect((await admin.get(`/api/features/${c.id}`)).json().expandToFeatures).toEqual([]);
    });

    it('finds a cycle through a renamed feature', async () => {
      const b = await createFeature(t.app, cookies.ADMIN);
      const a = await createFeature(t.app, cookies.ADMIN, { expandToFeatures: [b.name] });
      const renamed = uniqueName('renamed');
      expectError(await admin.put(`/api/features/${b.id}`, { body: { name: renamed, expandToFeatures: [a.name] } }), 422, 'ERR_FEATURE_CYCLE');
    });

    it('refuses taking another feature\'s name, and answers 404 for an unknown id', async () => {
      const first = await createFeature(t.app, cookies.ADMIN);
      const second = await createFeature(t.app, cookies.ADMIN);
      expectError(await admin.put(`/api/features/${second.id}`, { body: { name: first.name } }), 409, 'ERR_CONFLICT');
      expect((await admin.put(`/api/features/${second.id}`, { body: { name: second.name } })).statusCode).toBe(200);
      expectError(await admin.put('/api/features/999999', { body: { name: uniqueName('x') } }), 404, 'ERR_NOT_FOUND');
      expectError(await admin.put(`/api/features/${second.id}`, { body: { name: 'bad name' } }), 400, 'ERR_VALIDATION');
    });

    it('refuses customers and distributors with 403, anonymous callers with 401', async () => {
      const feature = await createFeature(t.app, cookies.ADMIN);
      for (const caller of [user, distributor]) expectError(await caller.put(`/api/features/${feature.id}`, { body: { name: feature.name } }), 403, 'ERR_FORBIDDEN');
      expectError(await anonymous.put(`/api/features/${feature.id}`, { body: { name: feature.name } }), 401, 'ERR_UNAUTHENTICATED');
    });
  });

  describe('DELETE /api/features/{id}', () => {
    it('deletes an unused feature and logs it', async () => {
      const feature = await createFeature(t.app, cookies.ADMIN);
      expect((await admin.delete(`/api/features/${feature.id}`)).statusCode).toBe(204);
      expectError(await admin.get(`/api/features/${feature.id}`), 404, 'ERR_NOT_FOUND');
      expectError(await admin.delete(`/api/features/${feature.id}`), 404, 'ERR_NOT_FOUND');
      const changes = await changesOf(t.app, 'Feature', feature.id);
      expect(changes.map((row) => row.operation)).toEqual(['insert', 'delete']);
      expect(JSON.parse(changes[1].old_values!)).toMatchObject({ name: feature.name });
    });

    it('refuses a feature that a product has or another feature expands to with 409 ERR_IN_USE', async () => {
      const used = await createFeature(t.app, cookies.ADMIN);
      const product = await createProduct(t.app, cookies.ADMIN, { features: [used.name] });
      const error = expectError(await admin.delete(`/api/features/${used.id}`), 409, 'ERR_IN_USE');
      expect(error.message).toContain(product.formattedName);
      const target = await createFeature(t.app, cookies.ADMIN);
      const parent = await createFeature(t.app, cookies.ADMIN, { expandToFeatures: [target.name] });
      expect(expectError(await admin.delete(`/api/features/${target.id}`), 409, 'ERR_IN_USE').message).toContain(parent.name);
      // The parent itself may go; its expansions go with it.
      expect((await admin.delete(`/api/features/${parent.id}`)).statusCode).toBe(204);
      expect((await admin.delete(`/api/features/${target.id}`)).statusCode).toBe(204);
    });

    it('refuses customers and distributors with 403, anonymous callers with 401', async () => {
      const feature = await createFeature(t.app, cookies.ADMIN);
      for (const caller of [user, distributor]) expectError(await caller.delete(`/api/features/${feature.id}`), 403, 'ERR_FORBIDDEN');
      expectError(await anonymous.delete(`/api/features/${feature.id}`), 401, 'ERR_UNAUTHENTICATED');
      expect((await admin.get(`/api/features/${feature.id}`)).statusCode).toBe(200);
    });
  });
});
