/**
 * Failed logins are limited without letting a stranger lock the owner out (OWASP's device cookies),
 * and the limits live in the database: two instances allow no more than one, a restart forgets
 * nothing.
 */
import { expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { DEVICE_COOKIE } from '../src/platform/http/auth.ts';
import { buildTestApp, client, createUser, describeBothDatabases, expectError, sessionCookieOf, testConfig, type CreatedUser } from './harness.ts';
import { linkTo, mailsTo } from './mail-helpers.ts';

describeBothDatabases(
  'login limits',
  (t) => {
    let address = 0;
    /** A client of its own address (the test app trusts no proxy: the socket's address counts). */
    const newAddress = () => `198.51.100.${(address = (address % 250) + 1)}`;

    const attempt = (app: App, user: Pick<CreatedUser, 'email'>, password: string, options: { ip?: string; device?: string } = {}) =>
      app.inject({
        method: 'POST',
        url: '/api/session',
        payload: { username: user.email, password },
        remoteAddress: options.ip ?? newAddress(),
        ...(options.device ? { cookies: { [DEVICE_COOKIE]: options.device } } : {}),
      });

    const deviceOf = (response: Awaited<ReturnType<typeof attempt>>) => {
      expect(response.statusCode, response.body).toBe(200);
      const cookie = response.cookies.find((c) => c.name === DEVICE_COOKIE);
      expect(cookie).toMatchObject({ httpOnly: true, path: '/api/session' });
      return cookie!.value;
    };

    async function failTenTimes(app: App, user: CreatedUser, options: { device?: string } = {}) {
      for (let i = 1; i <= 10; i++) expectError(await attempt(app, user, `wrong ${i}`, options), 401, 'ERR_LOGIN_FAILED');
    }

    it('locks out new browsers after ten failures from anywhere, even with the right password, for that account only', async () => {
      const [user, other] = [await createUser(t.app), await createUser(t.app)];
      await failTenTimes(t.app, user);
      const blocked = expectError(await attempt(t.app, user, user.password), 429, 'ERR_RATE_LIMITED');
      expect(blocked).toMatchObject({ params: { retryAfter: expect.any(Number) } });
      expect((await attempt(t.app, { email: user.email.toUpperCase() }, user.password)).statusCode).toBe(429);
      expect((await attempt(t.app, other, other.password)).statusCode).toBe(200);
    });

    it("keeps the owner's own browser in: its device cookie has tries of its own", async () => {
      const owner = await createUser(t.app, { role: 'ADMIN' });
      const device = deviceOf(await attempt(t.app, owner, owner.password));
      await failTenTimes(t.app, owner);
      expectError(await attempt(t.app, owner, owner.password), 429, 'ERR_RATE_LIMITED');
      const again = await attempt(t.app, owner, owner.password, { device });
      expect(again.statusCode, again.body).toBe(200);
      expect(sessionCookieOf(again)).toBeTruthy();
      // The device's own failures are limited too, and a success forgets them.
      await failTenTimes(t.app, owner, { device });
      expectError(await attempt(t.app, owner, owner.password, { device }), 429, 'ERR_RATE_LIMITED');
      // Another account's device cookie is no key to this one.
      const stranger = await createUser(t.app);
      const strangerDevice = deviceOf(await attempt(t.app, stranger, stranger.password));
      expectError(await attempt(t.app, owner, owner.password, { device: strangerDevice }), 429, 'ERR_RATE_LIMITED');
      expectError(await attempt(t.app, owner, owner.password, { device: 'made-up' }), 429, 'ERR_RATE_LIMITED');
    });

    it('locks out one address guessing across accounts after thirty failures; right passwords do not count', async () => {
      const ip = newAddress();
      const users = await Promise.all(Array.from({ length: 4 }, () => createUser(t.app)));
      for (let i = 0; i < 5; i++) expect((await attempt(t.app, users[3], users[3].password, { ip })).statusCode).toBe(200);
      for (let i = 0; i < 30; i++) expectError(await attempt(t.app, users[i % 3], `wrong ${i}`, { ip }), 401, 'ERR_LOGIN_FAILED');
      expectError(await attempt(t.app, users[3], users[3].password, { ip }), 429, 'ERR_RATE_LIMITED');
      expect((await attempt(t.app, users[3], users[3].password)).statusCode).toBe(200);
    });

    it('counts an IPv6 client by its /64: thirty failures from thirty of its addresses lock out the whole network', async () => {
      const network = `2001:db8:${(address = (address % 250) + 1).toString(16)}:7`;
      const users = await Promise.all(Array.from({ length: 4 }, () => createUser(t.app)));
      for (let i = 0; i < 30; i++) {
        expectError(await attempt(t.app, users[i % 3], `wrong ${i}`, { ip: `${network}:${(i + 1).toString(16)}:0:0:1` }), 401, 'ERR_LOGIN_FAILED');
      }
      // Another address of the same /64, written out in full or as IPv4-free shorthand: the same client.
      expectError(await attempt(t.app, users[3], users[3].password, { ip: `${network}::abcd` }), 429, 'ERR_RATE_LIMITED');
      // The neighbouring /64 is another client.
      expect((await attempt(t.app, users[3], users[3].password, { ip: `${network.slice(0, -1)}8::1` })).statusCode).toBe(200);
    });

    it('counts across instances and restarts: the failures live in the database', async () => {
      const user = await createUser(t.app);
      const instance = () => buildTestApp(testConfig(t.config.database, { config: { rateLimits: true } }), t.app.ctx);
      const second = await instance();
      for (let i = 1; i <= 10; i++) expectError(await attempt(i % 2 ? t.app : second, user, `wrong ${i}`), 401, 'ERR_LOGIN_FAILED');
      expectError(await attempt(second, user, user.password), 429, 'ERR_RATE_LIMITED');
      await second.close();
      const restarted = await instance();
      expectError(await attempt(restarted, user, user.password), 429, 'ERR_RATE_LIMITED');
      await restarted.close();
    });

    it('refuses parallel guesses beyond the limit: attempts still running count', async () => {
      const user = await createUser(t.app);
      const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => attempt(t.app, user, `wrong ${i}`)));
      const statuses = responses.map((response) => response.statusCode);
      expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(10);
      expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
    });

    it('lets new browsers in again once the owner has reset the password by mail', async () => {
      const user = await createUser(t.app);
      await failTenTimes(t.app, user);
      expectError(await attempt(t.app, user, user.password), 429, 'ERR_RATE_LIMITED');
      expect((await client(t.app).post('/api/users/forgot-password', { body: { email: user.email } })).statusCode).toBe(204);
      const token = linkTo((await mailsTo(t.app, user.email)).at(-1)!, '/reset-password').searchParams.get('token');
      expect((await client(t.app).post('/api/users/reset-password', { body: { email: user.email, password: 'chosen anew', token } })).statusCode).toBe(204);
      expect((await attempt(t.app, user, 'chosen anew')).statusCode).toBe(200);
    });
  },
  { config: { rateLimits: true } },
);
