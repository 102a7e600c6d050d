import { STATUS_CODES } from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { client, createUser, describeBothDatabases, expectAnonymousSession, expectError, loggedIn, login } from './harness.ts';

describeBothDatabases('HTTP conventions', (t) => {
  describe('unknown paths', () => {
    it('answers an unknown /api path with a JSON 404 ERR_NOT_FOUND', async () => {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
        const response = await t.app.inject({ method, url: '/api/no-such-thing/42?x=1' });
        const body = expectError(response, 404, 'ERR_NOT_FOUND');
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expect(body.message).toContain('/api/no-such-thing/42');
        expect(body.message).not.toContain('x=1');
      }
    });

    it('answers addresses the router refuses in the same form, without repeating what was sent', async () => {
      const long = '1'.repeat(1000);
      const tooLong = expectError(await t.app.inject({ url: `/api/licenses/${long}` }), 414, 'ERR_BAD_REQUEST');
      expect(tooLong.message).not.toContain(long.slice(0, 300));
      const bad = expectError(await t.app.inject({ url: '/api/products/%zz' }), 400, 'ERR_BAD_REQUEST');
      expect(bad.message).not.toContain('%zz');
      const unknown = expectError(await t.app.inject({ url: `/api/${'x'.repeat(5000)}` }), 404, 'ERR_NOT_FOUND');
      expect(unknown.message.length).toBeLessThan(300);
    });

    it('answers requests that Node refuses before routing (headers too large, broken HTTP) in the same form', async () => {
      const port = await listeningPort(t.app);
      for (const [raw, status] of [
        [`GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
        [`GET /api/health?${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
        ['NOT HTTP AT ALL\r\n\r\n', 400],
      ] as const) {
        const answer = await rawRequest(port, raw);
        expect(answer.split('\r\n')[0]).toBe(`HTTP/1.1 ${status} ${STATUS_CODES[status]}`);
        expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: 'ERR_BAD_REQUEST', message: expect.any(String) });
      }
    });

    it('answers a page path with 404 JSON when no web app is built', async () => {
      const response = await t.app.inject({ url: '/licenses' });
      expectError(response, 404, 'ERR_NOT_FOUND');
    });
  });

  describe('malformed requests never give a 500', () => {
    it('answers malformed JSON with 400', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/session',
        headers: { 'content-type': 'application/json' },
        payload: '{"username": "a@example.com", "password":',
      });
      expectError(response, 400, 'ERR_BAD_REQUEST');
    });

    it('answers an empty JSON body with 400', async () => {
      const response = await t.app.inject({ method: 'POST', url: '/api/session', headers: { 'content-type': 'application/json' }, payload: '' });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatch(/^ERR_(BAD_REQUEST|VALIDATION)$/);
    });

    it('answers a JSON body that is not an object with 400 ERR_VALIDATION', async () => {
      for (const payload of ['null', '[]', '"text"', '42']) {
        const response = await t.app.inject({ method: 'POST', url: '/api/session', headers: { 'content-type': 'application/json' }, payload });
        expectError(response, 400, 'ERR_VALIDATION');
      }
    });

    it('answers malformed JSON to an authenticated settings call with 400', async () => {
      const admin = await createUser(t.app, { role: 'ADMIN' });
      const cookie = await login(t.app, admin.email, admin.password);
      const response = await t.app.inject({
        method: 'PUT',
        url: '/api/settings/SERVER_CUSTOMER_ID',
        headers: { cookie, 'content-type': 'application/json' },
        payload: '{value: nope}',
      });
      expectError(response, 400, 'ERR_BAD_REQUEST');
    });

    it('answers a body over the limit with 413', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/session',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ username: 'a@example.com', password: 'x'.repeat(1100 * 1024) }),
      });
      expectError(response, 413, 'ERR_PAYLOAD_TOO_LARGE');
    });

    it('answers an overlong path parameter without a 500', async () => {
      const response = await t.app.inject({ method: 'DELETE', url: `/api/settings/${'k'.repeat(400)}` });
      expect(response.statusCode).toBeLessThan(500);
    });

    it('answers a malformed session cookie as anonymous', async () => {
      expectAnonymousSession(await t.app.inject({ url: '/api/session', headers: { cookie: 'lm_session=%%%; other=1' } }));
    });
  });

  describe('security headers', () => {
    it('sends helmet headers and a content security policy', async () => {
      const response = await t.app.inject({ url: '/api/health' });
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    });

    it('sends them on error answers too', async () => {
      const response = await t.app.inject({ url: '/api/no-such-route' });
      expect(response.statusCode).toBe(404);
      expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    });

    it("sends a JSON API's headers on the desktop protocol, answers and refusals alike, and reads no cookie or token there", async () => {
      for (const response of [
        await t.app.inject({ method: 'POST', url: '/api/client/v1/license', payload: { machineId: 'unknown-machine', product: 'Unknown' } }),
        await t.app.inject({ method: 'POST', url: '/api/client/v1/license', payload: { machineId: '' } }),
        await t.app.inject({ url: '/api/client/v1/keys', headers: { authorization: 'Bearer lmat_wrong', cookie: 'lm_session=unknown' } }),
      ]) {
        expect(response.headers['x-content-type-options']).toBe('nosniff');
        expect(response.headers['x-frame-options']).toBe('DENY');
        expect(response.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.headers['access-control-allow-origin']).toBe('*');
      }
      // A wrong API token is refused anywhere else in the API; the protocol takes none.
      expect((await t.app.inject({ url: '/api/client/v1/keys', headers: { authorization: 'Bearer lmat_wrong' } })).statusCode).toBe(200);
      expect((await t.app.inject({ url: '/api/health', headers: { authorization: 'Bearer lmat_wrong' } })).statusCode).toBe(401);
    });

    it('asks for HTTPS only when the server is reached over HTTPS: on plain HTTP, upgrading requests would break the page', async () => {
      const overHttp = await t.app.inject({ url: '/api/health' });
      expect(overHttp.headers['strict-transport-security']).toBeUndefined();
      expect(overHttp.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
      const httpsSite = await t.newApp({ env: { PUBLIC_URL: 'https://licenses.example.com', TRUST_PROXY: 'true' } });
      const overHttps = await httpsSite.inject({ url: '/api/no-such-route', headers: { host: 'licenses.example.com' } });
      expect(overHttps.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
      expect(overHttps.headers['content-security-policy']).toContain('upgrade-insecure-requests');
      // Through a trusted proxy that terminated TLS, by whatever name.
      const proxied = await httpsSite.inject({ url: '/api/health', headers: { host: 'other.example.com', 'x-forwarded-proto': 'https' } });
      expect(proxied.headers['content-security-policy']).toContain('upgrade-insecure-requests');
      // The same server reached directly on its machine over plain http keeps working pages.
      const direct = await httpsSite.inject({ url: '/api/health', headers: { host: 'localhost:3000' } });
      expect(direct.headers['strict-transport-security']).toBeUndefined();
      expect(direct.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
    });

    it('keeps API answers out of every cache: they hold accounts, licenses and secrets', async () => {
      const { cookie } = await loggedIn(t.app, 'ADMIN');
      for (const url of ['/api/session', '/api/users', '/api/account/sessions', '/api/api-tokens', '/api/no-such-route']) {
        const response = await t.app.inject({ url, headers: { cookie } });
        expect(response.headers['cache-control'], url).toBe('no-store');
      }
      const created = await client(t.app, cookie).post('/api/api-tokens', { body: { name: 'cache check' } });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.headers['cache-control']).toBe('no-store');
    });
  });

  describe('OpenAPI', () => {
    it('serves an OpenAPI 3.1 document listing the foundation routes', async () => {
      const response = await t.app.inject({ url: '/api/openapi.json' });
      expect(response.statusCode).toBe(200);
      const document = response.json();
      expect(document.openapi).toBe('3.1.0');
      expect(document.servers).toEqual([{ url: '/api', description: 'This server' }]);
      expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/health', '/session', '/settings', '/settings/{key}']));
    });
  });
});

/** The port of the app listening on loopback (once per app). */
async function listeningPort(app: App): Promise<number> {
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as net.AddressInfo).port;
}

/** Sends bytes as they are (no HTTP client would send them) and reads the answer until the server closes. */
function rawRequest(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(raw));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('close', () => resolve(answer));
    socket.on('error', (error) => (answer ? resolve(answer) : reject(error)));
  });
}
