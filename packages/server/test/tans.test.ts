import { beforeAll, describe, expect, it } from 'vitest';
import { formatTanCode, isTanCode } from '@lm/contract/tan';
import { client, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { activate, createTans, insertPolicy, insertProduct, type Client } from './licensing-test-data.ts';

describeBothDatabases('TANs', (t) => {
  let admin: Client;
  let customer: Client;
  let distributorId: number;
  let distributor: Client;
  let otherDistributorId: number;
  let otherDistributor: Client;
  let productId: number;
  let policyId: number;

  beforeAll(async () => {
    admin = client(t.app, (await loggedIn(t.app, 'ADMIN')).cookie);
    customer = client(t.app, (await loggedIn(t.app, 'USER')).cookie);
    const first = await loggedIn(t.app, 'DISTRIBUTOR');
    distributorId = first.id;
    distributor = client(t.app, first.cookie);
    const second = await loggedIn(t.app, 'DISTRIBUTOR');
    otherDistributorId = second.id;
    otherDistributor = client(t.app, second.cookie);
    productId = (await insertProduct(t.app)).id;
    policyId = await insertPolicy(t.app);
  });

  describe('POST /api/tans', () => {
    it('creates one TAN with a 12-character lowercase code and every field', async () => {
      const response = await admin.post('/api/tans', {
        body: { productId, licensePolicyId: policyId, licenseCount: 3, distributorId, freeUpdatesUntil: '2027-01-31', tags: ['fair:2026', 'Müller'], notes: 'booth' },
      });
      expect(response.statusCode, response.body).toBe(201);
      const { items, totalCount } = response.json();
      expect(totalCount).toBe(1);
      const [tan] = items;
      expect(isTanCode(tan.code)).toBe(true);
      expect(tan).toMatchObject({
        productId,
        licensePolicyId: policyId,
        licenseCount: 3,
        activatedCount: 0,
        distributorId,
        revoked: false,
        freeUpdatesUntil: '2027-01-31',
        tags: ['fair:2026', 'Müller'],
        notes: 'booth',
      });
      expect(tan.productName).toMatch(/^Product-\w+ 1\.0$/);
      expect(tan.distributorName).toBeTruthy();
      const log = await t.app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', 'Tan').where('record_id', '=', tan.id).execute();
      expect(log).toHaveLength(1);
      expect(log[0].operation).toBe('insert');
    });

    it('creates many TANs in one call, all different', async () => {
      const tans = await createTans(admin, { productId, tags: ['batch'] }, 25);
      expect(tans).toHaveLength(25);
      expect(new Set(tans.map((tan) => tan.code)).size).toBe(25);
      const stored = await t.app.ctx.db.selectFrom('tan_tags').select('tan_id').where('tag', '=', 'batch').execute();
      expect(stored.length).toBeGreaterThanOrEqual(25);
    });

    it('refuses invalid bodies, counts and tags with 400', async () => {
      for (const body of [{}, { productId, licenseCount: 0 }, { productId: 'x', licenseCount: 1 }, { productId, licenseCount: 1, tags: ['two words'] }, { productId, licenseCount: 1, freeUpdatesUntil: '31.01.2027' }]) {
        expectError(await admin.post('/api/tans', { body }), 400, 'ERR_VALIDATION');
      }
      // Ids past a 32-bit column are refused by the schema on both databases, not by PostgreSQL.
      for (const body of [{ productId: 2 ** 31, licenseCount: 1 }, { productId, licensePolicyId: 2 ** 31, licenseCount: 1 }, { productId, distributorId: 2 ** 31, licenseCount: 1 }]) {
        expectError(await admin.post('/api/tans', { body }), 400, 'ERR_VALIDATION');
      }
      for (const count of ['0', '10001', 'many']) {
        expectError(await admin.post('/api/tans', { query: { count }, body: { productId, licenseCount: 1 } }), 400, 'ERR_VALIDATION');
      }
    });

    it('refuses unknown products, policies and distributors', async () => {
      const unknownProduct = expectError(await admin.post('/api/tans', { body: { productId: 999999, licenseCount: 1 } }), 400, 'ERR_VALIDATION');
      expect(unknownProduct.details?.[0].path).toBe('productId');
      expectError(await admin.post('/api/tans', { body: { productId, licensePolicyId: 999999, licenseCount: 1 } }), 400, 'ERR_VALIDATION');
      const customerId = (await loggedIn(t.app, 'USER')).id;
      const notDistributor = expectError(await admin.post('/api/tans', { body: { productId, distributorId: customerId, licenseCount: 1 } }), 400, 'ERR_VALIDATION');
      expect(notDistributor.details?.[0].path).toBe('distributorId');
    });

    it('refuses a license count above the configured maximum', async () => {
      expect((await admin.put('/api/settings/tan.maxLicenseCount', { body: { value: 10 } })).statusCode).toBe(204);
      const body = expectError(await admin.post('/api/tans', { body: { productId, licenseCount: 11 } }), 400, 'ERR_VALIDATION');
      expect(body.details?.[0].path).toBe('licenseCount');
      expect((await admin.post('/api/tans', { body: { productId, licenseCount: 10 } })).statusCode).toBe(201);
      expect((await admin.get('/api/tans/limits')).json()).toEqual({ maxLicenseCount: 10 });
      expect((await admin.delete('/api/settings/tan.maxLicenseCount')).statusCode).toBe(204);
      expect((await distributor.get('/api/tans/limits')).json()).toEqual({ maxLicenseCount: 1000 });
    });

    it('gives a distributor its own TANs, even with the field left empty, and refuses another distributor', async () => {
      const [own] = await createTans(distributor, { productId });
      expect(own.distributorId).toBe(distributorId);
      expectError(await distributor.post('/api/tans', { body: { productId, licenseCount: 1, distributorId: otherDistributorId } }), 403, 'ERR_FORBIDDEN');
    });

    it('refuses customers and anonymous callers', async () => {
      expectError(await customer.post('/api/tans', { body: { productId, licenseCount: 1 } }), 403, 'ERR_FORBIDDEN');
      expectError(await client(t.app).post('/api/tans', { body: { productId, licenseCount: 1 } }), 401, 'ERR_UNAUTHENTICATED');
      expectError(await customer.get('/api/tans/limits'), 403, 'ERR_FORBIDDEN');
    });
  });

  describe('GET /api/tans', () => {
    it('filters by code prefix, normalizing dashes, case and spaces', async () => {
      const [tan] = await createTans(admin, { productId });
      const dashed = formatTanCode(tan.code).toUpperCase();
      for (const filter of [dashed, ` ${dashed} `, tan.code.slice(0, 5), formatTanCode(tan.code).slice(0, 7)]) {
        const body = (await admin.get('/api/tans', { query: { filter } })).json();
        expect(body.items.map((item: { id: number }) => item.id), filter).toContain(tan.id);
        expect(body.totalCount).toBe(body.items.length);
      }
      expect((await admin.get('/api/tans', { query: { filter: tan.code } })).json().totalCount).toBe(1);
      for (const filter of ['no such code', 'oooo', tan.code.slice(2)]) {
        const body = (await admin.get('/api/tans', { query: { filter } })).json();
        expect(body.items.map((item: { id: number }) => item.id), filter).not.toContain(tan.id);
      }
    });

    it('filters by tag, revoked state and product; sorts and pages', async () => {
      const otherProduct = (await insertProduct(t.app)).id;
      const tans = await createTans(admin, { productId: otherProduct, tags: ['sorted'], licenseCount: 2 }, 3);
      await admin.put(`/api/tans/${tans[0].id}`, { body: { productId: otherProduct, licenseCount: 5, tags: ['sorted'], revoked: true } });

      const tagged = (await admin.get('/api/tans', { query: { tag: 'sorted', sort: '-licenseCount' } })).json();
      expect(tagged.totalCount).toBe(3);
      expect(tagged.items[0].id).toBe(tans[0].id);
      expect(tagged.items[0].tags).toEqual(['sorted']);

      const revoked = (await admin.get('/api/tans', { query: { productId: String(otherProduct), revoked: 'true' } })).json();
      expect(revoked.items.map((item: { id: number }) => item.id)).toEqual([tans[0].id]);
      const live = (await admin.get('/api/tans', { query: { productId: String(otherProduct), revoked: 'false', sort: 'id' } })).json();
      expect(live.items.map((item: { id: number }) => item.id)).toEqual([tans[1].id, tans[2].id]);

      const paged = (await admin.get('/api/tans', { query: { productId: String(otherProduct), sort: 'id', offset: '1', limit: '1' } })).json();
      expect(paged).toMatchObject({ totalCount: 3, items: [{ id: tans[1].id }] });
      const newest = (await admin.get('/api/tans', { query: { productId: String(otherProduct) } })).json();
      expect(newest.items[0].id).toBe(tans[2].id);
      expectError(await admin.get('/api/tans', { query: { sort: 'notes' } }), 400, 'ERR_VALIDATION');
      expectError(await admin.get('/api/tans', { query: { tag: 'bad tag' } }), 400, 'ERR_VALIDATION');
    });

    it('shows the activations count', async () => {
      const [tan] = await createTans(admin, { productId, licenseCount: 3 });
      const owner = client(t.app, (await loggedIn(t.app, 'USER')).cookie);
      expect((await activate(owner, tan.code)).statusCode).toBe(201);
      const listed = (await admin.get('/api/tans', { query: { filter: tan.code } })).json().items[0];
      expect(listed).toMatchObject({ licenseCount: 3, activatedCount: 1 });
    });

    it('shows a distributor only its own TANs', async () => {
      const [own] = await createTans(distributor, { productId });
      const [others] = await createTans(otherDistributor, { productId });
      const [unassigned] = await createTans(admin, { productId });
      const seen = (await distributor.get('/api/tans', { query: { limit: '1000' } })).json();
      const ids = seen.items.map((item: { id: number }) => item.id);
      expect(ids).toContain(own.id);
      expect(ids).not.toContain(others.id);
      expect(ids).not.toContain(unassigned.id);
      expect(seen.items.every((item: { distributorId: number }) => item.distributorId === distributorId)).toBe(true);
      expect((await distributor.get('/api/tans', { query: { filter: others.code } })).json().totalCount).toBe(0);
    });

    it('refuses customers and anonymous callers', async () => {
      expectError(await customer.get('/api/tans'), 403, 'ERR_FORBIDDEN');
      expectError(await client(t.app).get('/api/tans'), 401, 'ERR_UNAUTHENTICATED');
    });
  });

  describe('GET /api/tans/tags', () => {
    it('lists the distinct tags, a distributor only those of its TANs', async () => {
      await createTans(distributor, { productId, tags: ['dist-only', 'shared'] });
      await createTans(otherDistributor, { productId, tags: ['other-only', 'shared'] });
      const all = (await admin.get('/api/tans/tags')).json().items;
      expect(all).toEqual(expect.arrayContaining(['dist-only', 'other-only', 'shared']));
      expect(all).toEqual([...all].sort());
      const own = (await distributor.get('/api/tans/tags')).json().items;
      expect(own).toEqual(expect.arrayContaining(['dist-only', 'shared']));
      expect(own).not.toContain('other-only');
      expectError(await customer.get('/api/tans/tags'), 403, 'ERR_FORBIDDEN');
    });
  });

  describe('GET and PUT /api/tans/{id}', () => {
    it('reads one TAN; another distributor gets 404', async () => {
      const [tan] = await createTans(distributor, { productId, notes: 'mine' });
      expect((await distributor.get(`/api/tans/${tan.id}`)).json()).toMatchObject({ id: tan.id, notes: 'mine' });
      expect((await admin.get(`/api/tans/${tan.id}`)).statusCode).toBe(200);
      expectError(await otherDistributor.get(`/api/tans/${tan.id}`), 404, 'ERR_NOT_FOUND');
      expectError(await customer.get(`/api/tans/${tan.id}`), 404, 'ERR_NOT_FOUND');
      expectError(await admin.get('/api/tans/999999'), 404, 'ERR_NOT_FOUND');
      expectError(await admin.get('/api/tans/abc'), 400, 'ERR_VALIDATION');
    });

    it('edits product, count, tags, notes and free updates, with a change-log row', async () => {
      const [tan] = await createTans(admin, { productId, tags: ['old'] });
      const newProduct = (await insertProduct(t.app)).id;
      const response = await admin.put(`/api/tans/${tan.id}`, {
        body: { productId: newProduct, licenseCount: 4, tags: ['new', 'Émile'], notes: 'edited', freeUpdatesUntil: '2028-01-01', revoked: false },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ productId: newProduct, licenseCount: 4, tags: ['new', 'Émile'], notes: 'edited', freeUpdatesUntil: '2028-01-01' });
      const log = await t.app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', 'Tan').where('record_id', '=', tan.id).where('operation', '=', 'update').executeTakeFirstOrThrow();
      expect(JSON.parse(log.old_values!)).toMatchObject({ productId, tags: ['old'] });
      expect(JSON.parse(log.new_values!)).toMatchObject({ productId: newProduct, tags: ['new', 'Émile'] });
    });

    it('revokes a TAN, which then activates nothing', async () => {
      const [tan] = await createTans(admin, { productId, licenseCount: 2 });
      const revoked = await admin.put(`/api/tans/${tan.id}`, { body: { productId, licenseCount: 2, revoked: true } });
      expect(revoked.json().revoked).toBe(true);
      const owner = client(t.app, (await loggedIn(t.app, 'USER')).cookie);
      expectError(await activate(owner, tan.code), 422, 'ERR_INVALID_LICENSE');
    });

    it('passes a new free-updates date on to the licenses of the TAN', async () => {
      const [tan] = await createTans(admin, { productId, licenseCount: 2, freeUpdatesUntil: '2027-01-01' });
      const owner = client(t.app, (await loggedIn(t.app, 'USER')).cookie);
      const license = (await activate(owner, tan.code)).json();
      expect(license.freeUpdatesUntil).toBe('2027-01-01');
      await admin.put(`/api/tans/${tan.id}`, { body: { productId, licenseCount: 2, freeUpdatesUntil: '2029-06-30', revoked: false } });
      expect((await owner.get(`/api/licenses/${license.id}`)).json().freeUpdatesUntil).toBe('2029-06-30');
    });

    it('refuses a license count below the activations made', async () => {
      const [tan] = await createTans(admin, { productId, licenseCount: 2 });
      const owner = client(t.app, (await loggedIn(t.app, 'USER')).cookie);
      await activate(owner, tan.code);
      await activate(owner, tan.code);
      const body = expectError(await admin.put(`/api/tans/${tan.id}`, { body: { productId, licenseCount: 1, revoked: false }, headers: { 'accept-language': 'de' } }), 400, 'ERR_VALIDATION');
      expect(body.details).toMatchObject([{ path: 'licenseCount', code: 'belowActivations', message: 'Bereits 2-mal aktiviert: Geben Sie 2 oder mehr ein', params: { minimum: 2 } }]);
    });

    it('lets a distributor edit its own TAN but not hand it over or touch another one', async () => {
      const [own] = await createTans(distributor, { productId });
      const [others] = await createTans(otherDistributor, { productId });
      expect((await distributor.put(`/api/tans/${own.id}`, { body: { productId, licenseCount: 2, revoked: false } })).json().distributorId).toBe(distributorId);
      expectError(await distributor.put(`/api/tans/${own.id}`, { body: { productId, licenseCount: 2, revoked: false, distributorId: otherDistributorId } }), 403, 'ERR_FORBIDDEN');
      expectError(await distributor.put(`/api/tans/${others.id}`, { body: { productId, licenseCount: 2, revoked: true } }), 404, 'ERR_NOT_FOUND');
      expect((await admin.get(`/api/tans/${others.id}`)).json().revoked).toBe(false);
    });

    it('refuses customers and validates the body', async () => {
      const [tan] = await createTans(admin, { productId });
      expectError(await customer.put(`/api/tans/${tan.id}`, { body: { productId, licenseCount: 1, revoked: true } }), 404, 'ERR_NOT_FOUND');
      expectError(await admin.put(`/api/tans/${tan.id}`, { body: { productId, licenseCount: 0 } }), 400, 'ERR_VALIDATION');
      expectError(await admin.put(`/api/tans/${tan.id}`, { body: { revoked: 'yes' } }), 400, 'ERR_VALIDATION');
      expectError(await admin.put('/api/tans/999999', { body: { productId, licenseCount: 1, revoked: false } }), 404, 'ERR_NOT_FOUND');
    });
  });
});
