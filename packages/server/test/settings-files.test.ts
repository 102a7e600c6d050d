import { beforeAll, describe, expect, it } from 'vitest';
import { SECRET_MASK } from '@lm/contract';
import { createProduct } from './catalogue-fixtures.ts';
import { buildTestApp, client, describeBothDatabases, expectError, loggedIn } from './harness.ts';

/** The smallest valid PNG: one transparent pixel. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const SVG = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
const ICO = Buffer.from([0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0]);

function multipart(file: { data: Buffer; filename?: string; type?: string; field?: string } | null) {
  const boundary = '----lm-test-boundary';
  const parts: Buffer[] = [];
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.filename ?? 'logo.png'}"\r\nContent-Type: ${file.type ?? 'image/png'}\r\n\r\n`,
      ),
      file.data,
      Buffer.from('\r\n'),
    );
  } else {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nno file\r\n`));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describeBothDatabases('settings: uploads and order automation', (t) => {
  let adminCookie: string;
  let userCookie: string;
  let distributorCookie: string;
  let admin: ReturnType<typeof client>;

  beforeAll(async () => {
    adminCookie = (await loggedIn(t.app, 'ADMIN')).cookie;
    userCookie = (await loggedIn(t.app, 'USER')).cookie;
    distributorCookie = (await loggedIn(t.app, 'DISTRIBUTOR')).cookie;
    admin = client(t.app, adminCookie);
  });

  const upload = (key: string, file: Parameters<typeof multipart>[0], cookie: string | null = adminCookie) => {
    const { payload, headers } = multipart(file);
    return t.app.inject({ method: 'PUT', url: `/api/settings/${key}`, payload, headers: { ...headers, ...(cookie ? { cookie } : {}) } });
  };

  describe('PUT /api/settings/{key} as a multipart upload', () => {
    it('stores a logo, sets the key to a versioned public URL, and serves the bytes there', async () => {
      const response = await upload('theme.logo', { data: PNG });
      expect(response.statusCode, response.body).toBe(200);
      const { value } = response.json();
      expect(value).toMatch(/^\/theme\/files\/logo\?v=[0-9a-f]{16}$/);
      // Everyone sees the URL, logged in or not.
      expect((await client(t.app).get('/api/settings')).json()['theme.logo']).toBe(value);
      expect((await t.app.inject({ url: '/theme/index.json' })).json()['theme.logo']).toBe(value);

      const file = await t.app.inject({ url: value });
      expect(file.statusCode).toBe(200);
      expect(file.headers['content-type']).toBe('image/png');
      expect(file.headers['cache-control']).toContain('immutable');
      expect(file.headers['content-security-policy']).toContain('sandbox');
      expect(file.rawPayload.equals(PNG)).toBe(true);
      const revalidated = await t.app.inject({ url: '/theme/files/logo', headers: { 'if-none-match': file.headers.etag as string } });
      expect(revalidated.statusCode).toBe(304);
      expect((await t.app.inject({ url: '/theme/files/logo?v=old' })).headers['cache-control']).toBe('no-cache');
    });

    it('gives a new version when the bytes change, judges the type by content, and takes SVG and ICO', async () => {
      const png = (await upload('theme.favicon', { data: PNG, type: 'application/octet-stream' })).json().value;
      const svgResponse = await upload('theme.favicon', { data: SVG, filename: 'icon.svg', type: 'image/svg+xml' });
      expect(svgResponse.statusCode, svgResponse.body).toBe(200);
      const svg = svgResponse.json().value;
      expect(svg).not.toBe(png);
      expect((await t.app.inject({ url: svg })).headers['content-type']).toBe('image/svg+xml');
      const ico = (await upload('theme.favicon', { data: ICO, filename: 'favicon.ico', type: 'image/x-icon' })).json().value;
      expect((await t.app.inject({ url: ico })).headers['content-type']).toBe('image/x-icon');
    });

    it('is shared by a second app instance on the same database', async () => {
      const { value } = (await upload('theme.logo', { data: SVG, type: 'image/svg+xml' })).json();
      const second = await buildTestApp(t.config, t.app.ctx);
      try {
        const file = await second.inject({ url: value });
        expect(file.statusCode).toBe(200);
        expect(file.rawPayload.equals(SVG)).toBe(true);
      } finally {
        await second.close();
      }
    });

    it('refuses a file that is not an image of an allowed type, even when it claims to be one', async () => {
      for (const data of [Buffer.from('<html><script>alert(1)</script></html>'), Buffer.from('GIF-like but not'), Buffer.from('%PDF-1.7')]) {
        const error = expectError(await upload('theme.logo', { data, type: 'image/png' }), 400, 'ERR_VALIDATION');
        expect(error.details?.[0].path).toBe('file');
      }
    });

    it('refuses an empty upload, a request without a file, and a file over 2 MB (413)', async () => {
      expectError(await upload('theme.logo', { data: Buffer.alloc(0) }), 400, 'ERR_VALIDATION');
      expectError(await upload('theme.logo', null), 400, 'ERR_VALIDATION');
      const big = Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]);
      expectError(await upload('theme.logo', { data: big }), 413, 'ERR_PAYLOAD_TOO_LARGE');
      const almost = Buffer.concat([PNG, Buffer.alloc(1.5 * 1024 * 1024)]);
      expect((await upload('theme.favicon', { data: almost })).statusCode).toBe(200);
    });

    it('refuses uploads to keys that are not files, and unknown keys', async () => {
      expectError(await upload('SERVER_CUSTOMER_ID', { data: PNG }), 400, 'ERR_VALIDATION');
      expectError(await upload('theme.banner', { data: PNG }), 404, 'ERR_NOT_FOUND');
    });

    it('refuses customers and distributors with 403 and anonymous callers with 401, storing nothing', async () => {
      const before = (await admin.get('/api/settings')).json()['theme.logo'];
      expectError(await upload('theme.logo', { data: ICO }, userCookie), 403, 'ERR_FORBIDDEN');
      expectError(await upload('theme.logo', { data: ICO }, distributorCookie), 403, 'ERR_FORBIDDEN');
      expectError(await upload('theme.logo', { data: ICO }, null), 401, 'ERR_UNAUTHENTICATED');
      expect((await admin.get('/api/settings')).json()['theme.logo']).toBe(before);
    });

    it('removes the file with DELETE: the key reads null and the URL answers 404', async () => {
      const { value } = (await upload('theme.logo', { data: PNG })).json();
      expect((await admin.delete('/api/settings/theme.logo')).statusCode).toBe(204);
      expect((await admin.get('/api/settings')).json()['theme.logo']).toBeNull();
      expectError(await t.app.inject({ url: value }), 404, 'ERR_NOT_FOUND');
      expectError(await t.app.inject({ url: '/theme/files/nothing' }), 404, 'ERR_NOT_FOUND');
    });
  });

  describe('other settings', () => {
    it('sets the order automation product only to an existing product', async () => {
      const product = await createProduct(t.app, adminCookie);
      expect((await admin.put('/api/settings/order.temporaryLicenseProductId', { body: { value: product.id } })).statusCode).toBe(204);
      const error = expectError(await admin.put('/api/settings/order.temporaryLicenseProductId', { body: { value: 999999 } }), 400, 'ERR_VALIDATION');
      expect(error.details?.[0]).toMatchObject({ path: 'value' });
      expect((await admin.get('/api/settings')).json()['order.temporaryLicenseProductId']).toBe(product.id);
      expect((await admin.delete('/api/settings/order.temporaryLicenseProductId')).statusCode).toBe(204);
    });

    it('sets the localized links with the locale suffix', async () => {
      for (const [key, value] of [
        ['theme.link.imprint.de', 'https://example.com/impressum'],
        ['theme.link.imprint.en', 'https://example.com/imprint'],
      ]) {
        expect((await admin.put(`/api/settings/${key}`, { body: { value } })).statusCode).toBe(204);
      }
      const body = (await client(t.app).get('/api/settings')).json();
      expect(body['theme.link.imprint.de']).toBe('https://example.com/impressum');
      expect(body['theme.link.imprint.en']).toBe('https://example.com/imprint');
    });

    it('never sends the webhook secret: not to anonymous callers, customers or administrators', async () => {
      const secret = 'whsec-0123456789abcdef0123456789abcdef';
      expect((await admin.put('/api/settings/webhook.secret', { body: { value: secret } })).statusCode).toBe(204);
      for (const cookie of [null, userCookie, distributorCookie, adminCookie]) {
        const response = await client(t.app, cookie).get('/api/settings');
        expect(response.body).not.toContain(secret);
      }
      expect((await admin.get('/api/settings')).json()['webhook.secret']).toBe(SECRET_MASK);
      expect((await client(t.app).get('/api/settings')).json()).not.toHaveProperty('webhook.secret');
      expect((await t.app.inject({ url: '/theme/index.json' })).body).not.toContain(secret);
    });

    it('still refuses a JSON body without value and a JSON value for a file key', async () => {
      expectError(await admin.put('/api/settings/SERVER_CUSTOMER_ID', { body: {} }), 400, 'ERR_VALIDATION');
      expectError(await admin.put('/api/settings/theme.logo', { body: { value: '/evil.png' } }), 400, 'ERR_VALIDATION');
    });
  });
});
