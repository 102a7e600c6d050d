import { describe, expect, it } from 'vitest';
import { createUser, describeBothDatabases, expectError, login, request } from './harness.ts';

const HOST = 'licenses.example.com:3000';

describeBothDatabases('CSRF protection', (t) => {
  const postLogin = (headers: Record<string, string>, body: unknown = { username: 'nobody@example.com', password: 'x' }) =>
    request(t.app, 'POST', '/api/session', { headers: { host: HOST, ...headers }, body });

  describe('Origin of state-changing calls', () => {
    it('refuses a POST from a foreign Origin with 403 ERR_CSRF', async () => {
      const user = await createUser(t.app);
      const response = await postLogin({ origin: 'https://evil.example' }, { username: user.email, password: user.password });
      expectError(response, 403, 'ERR_CSRF');
      expect(response.cookies).toHaveLength(0);
    });

    it('refuses an Origin on another port and the opaque Origin null', async () => {
      expectError(await postLogin({ origin: 'http://licenses.example.com:4000' }), 403, 'ERR_CSRF');
      expectError(await postLogin({ origin: 'null' }), 403, 'ERR_CSRF');
    });

    it('refuses PUT and DELETE from a foreign Origin even with a valid session', async () => {
      const admin = await createUser(t.app, { role: 'ADMIN' });
      const cookie = await login(t.app, admin.email, admin.password);
      const headers = { host: HOST, origin: 'https://evil.example' };
      expectError(await request(t.app, 'PUT', '/api/settings/SERVER_CUSTOMER_ID', { cookie, headers, body: { value: 'x' } }), 403, 'ERR_CSRF');
      expectError(await request(t.app, 'DELETE', '/api/settings/SERVER_CUSTOMER_ID', { cookie, headers }), 403, 'ERR_CSRF');
      expectError(await request(t.app, 'DELETE', '/api/session', { cookie, headers }), 403, 'ERR_CSRF');
      // The session survived the refused logout.
      expect((await request(t.app, 'GET', '/api/session', { cookie })).statusCode).toBe(200);
    });

    it('accepts a same-origin Origin', async () => {
      const user = await createUser(t.app);
      const response = await postLogin({ origin: `http://${HOST}` }, { username: user.email, password: user.password });
      expect(response.statusCode, response.body).toBe(200);
    });

    it('refuses a plain-http page of the same host name when the site is https, and accepts the https one', async () => {
      const user = await createUser(t.app);
      const credentials = { username: user.email, password: user.password };
      // The site's address is https: its own pages are https.
      const overHttps = await t.newApp({ env: { PUBLIC_URL: `https://${HOST}` } });
      const post = (app: typeof overHttps, headers: Record<string, string>) => request(app, 'POST', '/api/session', { headers: { host: HOST, ...headers }, body: { username: 'nobody@example.com', password: 'x' } });
      expectError(await post(overHttps, { origin: `http://${HOST}` }), 403, 'ERR_CSRF');
      expectError(await post(overHttps, { origin: `https://${HOST}` }), 401, 'ERR_LOGIN_FAILED');
      // The same server reached directly on the machine, by another name over plain http, still works.
      const direct = await request(overHttps, 'POST', '/api/session', { headers: { host: 'localhost:3000', origin: 'http://localhost:3000' }, body: { username: 'nobody@example.com', password: 'x' } });
      expectError(direct, 401, 'ERR_LOGIN_FAILED');
      // Or the request came over https, through a proxy the server trusts.
      const behindProxy = await t.newApp({ env: { TRUST_PROXY: 'true' } });
      expectError(await post(behindProxy, { origin: `http://${HOST}`, 'x-forwarded-proto': 'https' }), 403, 'ERR_CSRF');
      expectError(await post(behindProxy, { origin: `https://${HOST}`, 'x-forwarded-proto': 'https' }), 401, 'ERR_LOGIN_FAILED');
      // Plain http throughout (a LAN install) keeps working.
      expect((await postLogin({ origin: `http://${HOST}` }, credentials)).statusCode).toBe(200);
    });

    it('accepts a call without Origin (same-origin GETs, non-browser clients)', async () => {
      const user = await createUser(t.app);
      const response = await postLogin({}, { username: user.email, password: user.password });
      expect(response.statusCode, response.body).toBe(200);
    });

    it('lets reads through whatever their Origin', async () => {
      const response = await request(t.app, 'GET', '/api/health', { headers: { host: HOST, origin: 'https://evil.example' } });
      expect(response.statusCode).toBe(200);
    });
  });

  describe('body types', () => {
    it('answers a text/plain body (what a cross-site form can send) with 415', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/session',
        headers: { 'content-type': 'text/plain' },
        payload: '{"username":"a@example.com","password":"x"}',
      });
      expectError(response, 415, 'ERR_UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers a form-encoded body with 415', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/session',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'username=a%40example.com&password=x',
      });
      expectError(response, 415, 'ERR_UNSUPPORTED_MEDIA_TYPE');
    });
  });
});
