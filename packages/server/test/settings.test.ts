import { describe, expect, it } from 'vitest';
import { SECRET_MASK, SETTING_KEYS } from '@lm/contract';
import { createProduct } from './catalogue-fixtures.ts';
import { callersOfEachRole, describeBothDatabases, expectError, loggedIn } from './harness.ts';

const THEME_KEYS = SETTING_KEYS.filter((key) => key.startsWith('theme.'));

describeBothDatabases('settings', (t) => {
  const { admin, user, distributor, anonymous } = callersOfEachRole(t);

  describe('GET /api/settings', () => {
    it('gives anonymous callers only the theme keys, null where unset', async () => {
      const response = await anonymous.get('/api/settings');
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual([...THEME_KEYS].sort());
      expect(body['theme.logo']).toBeNull();
    });

    it('gives customers and distributors only the theme keys', async () => {
      for (const caller of [user, distributor]) {
        const body = (await caller.get('/api/settings')).json();
        expect(Object.keys(body).sort()).toEqual([...THEME_KEYS].sort());
      }
    });

    it('gives administrators every known key, null where unset', async () => {
      const response = await admin.get('/api/settings');
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual([...SETTING_KEYS].sort());
      expect(body['SERVER_CUSTOMER_ID']).toBeNull();
      expect(body['webhook.secret']).toBeNull();
    });

    it('masks secrets once they are set, even for administrators', async () => {
      const secret = 'a-very-secret-webhook-key-0123456789';
      expect((await admin.put('/api/settings/webhook.secret', { body: { value: secret } })).statusCode).toBe(204);
      const response = await admin.get('/api/settings');
      expect(response.json()['webhook.secret']).toBe(SECRET_MASK);
      expect(response.body).not.toContain(secret);
      expect((await admin.delete('/api/settings/webhook.secret')).statusCode).toBe(204);
      expect((await admin.get('/api/settings')).json()['webhook.secret']).toBeNull();
    });

    it('shows a set theme key to everyone, and a non-theme key to administrators only', async () => {
      expect((await admin.put('/api/settings/theme.link.imprint', { body: { value: 'https://example.com/imprint' } })).statusCode).toBe(204);
      expect((await admin.put('/api/settings/tan.maxLicenseCount', { body: { value: 250 } })).statusCode).toBe(204);

      const forAnyone = (await anonymous.get('/api/settings')).json();
      expect(forAnyone['theme.link.imprint']).toBe('https://example.com/imprint');
      expect(forAnyone).not.toHaveProperty('tan.maxLicenseCount');

      const forAdmin = (await admin.get('/api/settings')).json();
      expect(forAdmin['theme.link.imprint']).toBe('https://example.com/imprint');
      expect(forAdmin['tan.maxLicenseCount']).toBe(250);
    });
  });

  describe('GET /theme/index.json', () => {
    it('serves the public theme settings outside /api', async () => {
      expect((await admin.put('/api/settings/theme.link.dataPrivacy.de', { body: { value: '/datenschutz' } })).statusCode).toBe(204);
      const response = await t.app.inject({ url: '/theme/index.json' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual([...THEME_KEYS].sort());
      expect(body['theme.link.dataPrivacy.de']).toBe('/datenschutz');
      expect(body).toEqual((await anonymous.get('/api/settings')).json());
    });
  });

  describe('PUT /api/settings/{key}', () => {
    it('stores valid values of each type and they read back unchanged', async () => {
      const adminCookie = (await loggedIn(t.app, 'ADMIN')).cookie;
      const product = await createProduct(t.app, adminCookie);
      const values: Record<string, unknown> = {
        SERVER_CUSTOMER_ID: 'customer-4711',
        'tan.maxLicenseCount': 1000,
        'license.temporaryMaxDays': 14,
        'anylic.maxDays': 3650,
        'order.autoCreateAccount': true,
        'order.autoTemporaryLicense': false,
        'order.temporaryLicenseProductId': product.id,
        'theme.link.dataPrivacy': 'https://example.com/privacy',
        'theme.link.imprint.fr': '/mentions-legales',
      };
      for (const [key, value] of Object.entries(values)) {
        const response = await admin.put(`/api/settings/${key}`, { body: { value } });
        expect(response.statusCode, `${key}: ${response.body}`).toBe(204);
      }
      const body = (await admin.get('/api/settings')).json();
      for (const [key, value] of Object.entries(values)) expect(body[key], key).toEqual(value);
    });

    it('trims the customer id', async () => {
      expect((await admin.put('/api/settings/SERVER_CUSTOMER_ID', { body: { value: '  padded  ' } })).statusCode).toBe(204);
      expect((await admin.get('/api/settings')).json().SERVER_CUSTOMER_ID).toBe('padded');
    });

    const invalid: [string, unknown][] = [
      ['SERVER_CUSTOMER_ID', ''],
      ['SERVER_CUSTOMER_ID', 42],
      ['SERVER_CUSTOMER_ID', 'x'.repeat(256)],
      ['tan.maxLicenseCount', 0],
      ['tan.maxLicenseCount', 1.5],
      ['tan.maxLicenseCount', '10'],
      ['license.temporaryMaxDays', 3651],
      ['anylic.maxDays', -1],
      ['order.temporaryLicenseDays', null],
      ['order.temporaryLicenseProductId', 0],
      ['order.autoCreateAccount', 'yes'],
      ['webhook.secret', 'too-short'],
      ['theme.link.imprint', 'javascript:alert(1)'],
      ['theme.link.imprint', '//evil.example/path'],
      ['theme.link.dataPrivacy.it', 'not a url'],
      ['theme.logo', 'https://example.com/logo.png'],
      ['theme.favicon', '/favicon.ico'],
    ];
    it.each(invalid)('refuses %s = %j with 400 ERR_VALIDATION and details', async (key, value) => {
      const body = expectError(await admin.put(`/api/settings/${key}`, { body: { value } }), 400, 'ERR_VALIDATION');
      expect(body.details?.length).toBeGreaterThan(0);
      expect(body.details![0].path).toMatch(/^value/);
    });

    it('refuses a body without value', async () => {
      expectError(await admin.put('/api/settings/tan.maxLicenseCount', { body: {} }), 400, 'ERR_VALIDATION');
    });

    it('answers an unknown key with 404 ERR_NOT_FOUND', async () => {
      expectError(await admin.put('/api/settings/no.such.key', { body: { value: 'x' } }), 404, 'ERR_NOT_FOUND');
      expectError(await admin.put('/api/settings/theme.link.imprint.xx', { body: { value: '/x' } }), 404, 'ERR_NOT_FOUND');
    });

    it('refuses customers and distributors with 403 ERR_FORBIDDEN', async () => {
      for (const caller of [user, distributor]) {
        expectError(await caller.put('/api/settings/SERVER_CUSTOMER_ID', { body: { value: 'hijack' } }), 403, 'ERR_FORBIDDEN');
        expectError(await caller.put('/api/settings/no.such.key', { body: { value: 'x' } }), 403, 'ERR_FORBIDDEN');
      }
      expect((await admin.get('/api/settings')).json().SERVER_CUSTOMER_ID).not.toBe('hijack');
    });

    it('refuses anonymous callers with 401 ERR_UNAUTHENTICATED', async () => {
      expectError(await anonymous.put('/api/settings/SERVER_CUSTOMER_ID', { body: { value: 'x' } }), 401, 'ERR_UNAUTHENTICATED');
    });
  });

  describe('DELETE /api/settings/{key}', () => {
    it('unsets a key: it reads null again', async () => {
      expect((await admin.put('/api/settings/anylic.maxDays', { body: { value: 90 } })).statusCode).toBe(204);
      expect((await admin.delete('/api/settings/anylic.maxDays')).statusCode).toBe(204);
      expect((await admin.get('/api/settings')).json()['anylic.maxDays']).toBeNull();
      // Unsetting an unset key is fine too.
      expect((await admin.delete('/api/settings/anylic.maxDays')).statusCode).toBe(204);
    });

    it('answers an unknown key with 404', async () => {
      expectError(await admin.delete('/api/settings/no.such.key'), 404, 'ERR_NOT_FOUND');
    });

    it('refuses customers and distributors with 403 and anonymous callers with 401', async () => {
      expect((await admin.put('/api/settings/theme.link.imprint.es', { body: { value: '/aviso-legal' } })).statusCode).toBe(204);
      for (const caller of [user, distributor]) {
        expectError(await caller.delete('/api/settings/theme.link.imprint.es'), 403, 'ERR_FORBIDDEN');
      }
      expectError(await anonymous.delete('/api/settings/theme.link.imprint.es'), 401, 'ERR_UNAUTHENTICATED');
      expect((await anonymous.get('/api/settings')).json()['theme.link.imprint.es']).toBe('/aviso-legal');
    });
  });
});
