import { beforeAll, describe, expect, it } from 'vitest';
import { verifyLicenseFile, type PublicKeyInfo } from '@lm/contract/license-file';
import { hashToken } from '../src/platform/auth/secrets.ts';
import { client, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { dateFromToday, insertFeature, insertProduct, unique } from './licensing-fixtures.ts';

describeBothDatabases('ANY-Lic links', (t) => {
  let admin: Awaited<ReturnType<typeof loggedIn>>;
  let product: { id: number; name: string; version: string };
  let feature: string;
  let keys: PublicKeyInfo[];

  const create = (cookie: string | null, body: unknown) => client(t.app, cookie).post('/api/anylic', { body });
  const pathOf = (url: string) => new URL(url).pathname;

  beforeAll(async () => {
    admin = await loggedIn(t.app, 'ADMIN');
    feature = unique('render:4k');
    await insertFeature(t.app, feature);
    product = await insertProduct(t.app, { name: unique('Studio'), version: '3.0', features: [feature] });
    keys = (await client(t.app).get('/api/client/v1/keys')).json().keys;
  });

  describe('POST /api/anylic', () => {
    it('gives administrators a link with its expiry; the link downloads a file for any machine without a session', async () => {
      const validUntil = dateFromToday(30);
      const response = await create(admin.cookie, { productId: product.id, validUntil, format: 'lic' });
      expect(response.statusCode, response.body).toBe(201);
      const link = response.json();
      expect(link.url).toMatch(/^http:\/\/localhost:3000\/api\/anylic\/[A-Za-z0-9_-]{43}$/);
      expect(link.expiresAt).toBe(new Date(Date.parse(`${validUntil}T00:00:00Z`) + 86_400_000).toISOString());

      const download = await client(t.app).get(pathOf(link.url));
      expect(download.statusCode).toBe(200);
      expect(download.headers['content-disposition']).toBe(`attachment; filename="${product.name}-3.0-ANY.lic"`);
      const payload = await verifyLicenseFile(download.body, keys);
      expect(payload).toMatchObject({
        kind: 'ANYLIC',
        licenseId: null,
        policyType: null,
        machineId: '*',
        product: { id: product.id, name: product.name, version: '3.0' },
        features: [feature],
        expiresAt: link.expiresAt,
        licenseValidUntil: validUntil,
        permanent: false,
        refetchIntervalSeconds: 0,
        refetchBeforeExpirySeconds: 0,
        owner: { name: `${admin.email.split('@')[0]} Administrator`, company: null },
      });
      // The link keeps working: every download is signed afresh.
      expect((await client(t.app).get(pathOf(link.url))).statusCode).toBe(200);
    });

    it('makes .json links too', async () => {
      const link = (await create(admin.cookie, { productId: product.id, validUntil: dateFromToday(0), format: 'json' })).json();
      const download = await client(t.app).get(pathOf(link.url));
      expect(download.headers['content-type']).toMatch(/^application\/json/);
      expect((await verifyLicenseFile(download.json(), keys)).machineId).toBe('*');
    });

    it('stores only a hash of the token', async () => {
      const link = (await create(admin.cookie, { productId: product.id, validUntil: dateFromToday(1), format: 'lic' })).json();
      const token = pathOf(link.url).split('/').pop()!;
      const rows = await t.app.ctx.db.selectFrom('anylic_links').select('token_hash').execute();
      expect(rows.map((row) => row.token_hash)).toContain(hashToken(token));
      expect(JSON.stringify(rows)).not.toContain(token);
    });

    it('refuses a valid-until past the ANY-Lic max days setting, or in the past', async () => {
      await t.app.ctx.db.insertInto('settings').values({ key: 'anylic.maxDays', value: '10', updated_at: new Date().toISOString() }).execute();
      try {
        expect((await create(admin.cookie, { productId: product.id, validUntil: dateFromToday(10), format: 'lic' })).statusCode).toBe(201);
        const tooFar = expectError(await create(admin.cookie, { productId: product.id, validUntil: dateFromToday(11), format: 'lic' }), 400, 'ERR_VALIDATION');
        expect(tooFar.details).toEqual([{ path: 'validUntil', message: 'Choose a date from today to at most 10 days ahead', code: 'maxDaysAhead', params: { count: 10 } }]);
        const past = expectError(await create(admin.cookie, { productId: product.id, validUntil: dateFromToday(-1), format: 'lic' }), 400, 'ERR_VALIDATION');
        expect(past.details?.[0].path).toBe('validUntil');
      } finally {
        await t.app.ctx.db.deleteFrom('settings').where('key', '=', 'anylic.maxDays').execute();
      }
    });

    it.each([
      [{ validUntil: '2030-01-01', format: 'lic' }],
      [{ productId: 1, format: 'lic' }],
      [{ productId: 1, validUntil: '2030-01-01' }],
      [{ productId: 1, validUntil: '2030-01-01', format: 'xml' }],
      [{ productId: 1, validUntil: '01.01.2030', format: 'lic' }],
      [{ productId: 'one', validUntil: '2030-01-01', format: 'lic' }],
      [{ productId: 2 ** 31, validUntil: '2030-01-01', format: 'lic' }],
    ])('refuses %j with 400', async (body) => {
      expectError(await create(admin.cookie, body), 400, 'ERR_VALIDATION');
    });

    it('refuses an unknown product', async () => {
      const body = expectError(await create(admin.cookie, { productId: 999_999, validUntil: dateFromToday(1), format: 'lic' }), 400, 'ERR_VALIDATION');
      expect(body.details?.[0].path).toBe('productId');
    });

    it('refuses customers and distributors with 403 and anonymous callers with 401', async () => {
      const body = { productId: product.id, validUntil: dateFromToday(1), format: 'lic' };
      for (const role of ['USER', 'DISTRIBUTOR'] as const) expectError(await create((await loggedIn(t.app, role)).cookie, body), 403, 'ERR_FORBIDDEN');
      expectError(await create(null, body), 401, 'ERR_UNAUTHENTICATED');
    });
  });

  describe('GET /api/anylic/{token}', () => {
    it('stops working after its validity', async () => {
      const link = (await create(admin.cookie, { productId: product.id, validUntil: dateFromToday(2), format: 'lic' })).json();
      const token = pathOf(link.url).split('/').pop()!;
      await t.app.ctx.db.updateTable('anylic_links').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('token_hash', '=', hashToken(token)).execute();
      expectError(await client(t.app).get(pathOf(link.url)), 404, 'ERR_NOT_FOUND');
    });

    it('answers unknown and malformed tokens with 404', async () => {
      expectError(await client(t.app).get(`/api/anylic/${'A'.repeat(43)}`), 404, 'ERR_NOT_FOUND');
      expectError(await client(t.app).get('/api/anylic/%20'), 404, 'ERR_NOT_FOUND');
    });
  });
});
