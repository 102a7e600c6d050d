/**
 * Behind a proxy the client's address is the nearest hop the proxies do not stand for (TRUST_PROXY:
 * a number of hops, or their addresses and ranges), never what the client wrote further left in
 * X-Forwarded-For: rotating that part gets around no limit.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { createUser, describeBothDatabases, loggedIn } from './harness.ts';

const PROXY = '127.0.0.1';
const spoofed = () => `${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

/** A failed login that came through the proxy: the client wrote a random address, the proxy appended the real one. */
const failedLogin = (app: App, email: string, real: string) =>
  app.inject({ method: 'POST', url: '/api/session', remoteAddress: PROXY, headers: { 'x-forwarded-for': `${spoofed()}, ${real}` }, payload: { username: email, password: 'wrong password' } });

describeBothDatabases('client addresses behind a proxy', (t) => {
  for (const setting of ['1', '127.0.0.1', '127.0.0.0/8, 10.0.0.0/8']) {
    describe(`TRUST_PROXY=${setting}`, () => {
      it('limits the real address, whatever the client writes in front of it', async () => {
        const app = await t.newApp({ env: { TRUST_PROXY: setting }, config: { rateLimits: true } });
        const real = `203.0.113.${randomBytes(1)[0]}`;
        const users = await Promise.all(Array.from({ length: 4 }, () => createUser(app)));
        const statuses: number[] = [];
        for (let i = 0; i < 40; i++) statuses.push((await failedLogin(app, users[i % 4].email, real)).statusCode);
        expect(statuses.slice(0, 30)).toEqual(Array(30).fill(401));
        expect(statuses.slice(30)).toEqual(Array(10).fill(429));
        // Another real client behind the same proxy is not affected.
        expect((await failedLogin(app, users[0].email, '198.51.100.1')).statusCode).toBe(401);
      });

      it('limits failed TAN activations of the real address', async () => {
        const app = await t.newApp({ env: { TRUST_PROXY: setting }, config: { rateLimits: true } });
        const real = `203.0.113.${randomBytes(1)[0]}`;
        const accounts = await Promise.all(Array.from({ length: 4 }, () => loggedIn(app, 'USER')));
        const statuses: number[] = [];
        for (let i = 0; i < 40; i++) {
          const response = await app.inject({
            method: 'POST',
            url: '/api/licenses/activate',
            remoteAddress: PROXY,
            headers: { cookie: accounts[Math.floor(i / 10)].cookie, 'x-forwarded-for': `${spoofed()}, ${real}` },
            payload: { tan: 'abcd-efgh-jkmn', machineId: 'M-1' },
          });
          statuses.push(response.statusCode);
        }
        expect(statuses.filter((status) => status === 422)).toHaveLength(30);
        expect(statuses.slice(30)).toEqual(Array(10).fill(429));
      });

      it('takes the protocol the proxy reports for secure cookies', async () => {
        const app = await t.newApp({ env: { TRUST_PROXY: setting } });
        const user = await createUser(app);
        const response = await app.inject({
          method: 'POST',
          url: '/api/session',
          remoteAddress: PROXY,
          headers: { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https' },
          payload: { username: user.email, password: user.password },
        });
        expect(response.cookies.find((cookie) => cookie.name === 'lm_session')?.secure).toBe(true);
      });
    });
  }

  describe('TRUST_PROXY=false', () => {
    it('ignores forwarded headers: the socket is the client', async () => {
      const app = await t.newApp({ env: { TRUST_PROXY: 'false' }, config: { rateLimits: true } });
      const users = await Promise.all(Array.from({ length: 4 }, () => createUser(app)));
      const statuses: number[] = [];
      for (let i = 0; i < 31; i++) statuses.push((await failedLogin(app, users[i % 4].email, `198.51.100.${i}`)).statusCode);
      expect(statuses.at(-1)).toBe(429);
      const user = await createUser(app);
      const response = await app.inject({
        method: 'POST',
        url: '/api/session',
        remoteAddress: '198.51.100.200',
        headers: { 'x-forwarded-proto': 'https' },
        payload: { username: user.email, password: user.password },
      });
      expect(response.statusCode).toBe(200);
      expect(response.cookies.find((cookie) => cookie.name === 'lm_session')?.secure).toBeFalsy();
    });
  });
});
