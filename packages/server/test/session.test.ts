import { describe, expect, it } from 'vitest';
import { createAbility, SESSION_COOKIE, unpackAbilityRules, asSubject, type PackedRules } from '@lm/contract';
import { hashPassword } from '../src/platform/auth/secrets.ts';
import { insertUser } from '../src/modules/users/repo.ts';
import { client, createUser, describeBothDatabases, expectAnonymousSession, expectError, login, sessionCookieOf, uniqueEmail } from './harness.ts';

describeBothDatabases('session', (t) => {
  describe('POST /api/session', () => {
    it('logs in and sets an HttpOnly, SameSite=Lax session cookie', async () => {
      const user = await createUser(t.app, { role: 'USER' });
      const response = await client(t.app).post('/api/session', { body: { username: user.email, password: user.password } });
      expect(response.statusCode, response.body).toBe(200);

      const cookie = response.cookies.find((c) => c.name === SESSION_COOKIE);
      expect(cookie).toBeDefined();
      expect(cookie!.value.length).toBeGreaterThanOrEqual(40);
      expect(cookie!.httpOnly).toBe(true);
      expect(String(cookie!.sameSite).toLowerCase()).toBe('lax');
      expect(cookie!.path).toBe('/');
      expect(cookie!.secure).toBeFalsy();

      const body = response.json();
      expect(body).toMatchObject({ id: user.id, username: user.email, accessRole: 'USER' });
      expect(Array.isArray(body.rules)).toBe(true);
    });

    it('accepts the username in any case and with surrounding spaces', async () => {
      const user = await createUser(t.app);
      const response = await client(t.app).post('/api/session', { body: { username: `  ${user.email.toUpperCase()} `, password: user.password } });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().id).toBe(user.id);
    });

    it('refuses a wrong password with 401 ERR_LOGIN_FAILED and no cookie', async () => {
      const user = await createUser(t.app);
      const response = await client(t.app).post('/api/session', { body: { username: user.email, password: 'wrong password' } });
      expectError(response, 401, 'ERR_LOGIN_FAILED');
      expect(sessionCookieOf(response)).toBeNull();
    });

    it('answers an unknown user exactly like a wrong password', async () => {
      const user = await createUser(t.app);
      const wrong = await client(t.app).post('/api/session', { body: { username: user.email, password: 'wrong password' } });
      const unknown = await client(t.app).post('/api/session', { body: { username: uniqueEmail('nobody'), password: 'whatever' } });
      expectError(unknown, 401, 'ERR_LOGIN_FAILED');
      expect(unknown.json()).toEqual(wrong.json());
    });

    it('answers a missing or empty field with 400 ERR_VALIDATION and the field paths', async () => {
      const empty = expectError(await client(t.app).post('/api/session', { body: { username: '', password: '' } }), 400, 'ERR_VALIDATION');
      expect(empty.details?.map((detail) => detail.path).sort()).toEqual(['password', 'username']);
      for (const detail of empty.details ?? []) expect(detail.message).toEqual(expect.any(String));

      const missing = expectError(await client(t.app).post('/api/session', { body: { username: 'someone@example.com' } }), 400, 'ERR_VALIDATION');
      expect(missing.details?.map((detail) => detail.path)).toEqual(['password']);

      const wrongType = expectError(await client(t.app).post('/api/session', { body: { username: 42, password: ['x'] } }), 400, 'ERR_VALIDATION');
      expect(wrongType.details?.length).toBeGreaterThanOrEqual(2);
    });

    it('answers an unconfirmed account with 409 ERR_CONFIRMATION_PENDING and no session', async () => {
      const email = uniqueEmail('pending');
      await insertUser(t.app.ctx.db, {
        email,
        passwordHash: await hashPassword('pending password'),
        firstName: 'Pending',
        lastName: 'Person',
        company: null,
        address: null,
        address2: null,
        zip: null,
        city: null,
        country: null,
        phone: null,
        fax: null,
        notes: null,
        accessRole: 'USER',
        optInEmail: false,
        confirmed: false,
      });
      const response = await client(t.app).post('/api/session', { body: { username: email, password: 'pending password' } });
      expectError(response, 409, 'ERR_CONFIRMATION_PENDING');
      expect(sessionCookieOf(response)).toBeNull();

      // The pending state is no oracle for the password: a wrong one is an ordinary login failure.
      const wrong = await client(t.app).post('/api/session', { body: { username: email, password: 'not it' } });
      expectError(wrong, 401, 'ERR_LOGIN_FAILED');
    });
  });

  describe('GET /api/session', () => {
    it('returns id, username and the packed CASL rules of the role', async () => {
      const user = await createUser(t.app, { role: 'USER' });
      const cookie = await login(t.app, user.email, user.password);
      const response = await client(t.app, cookie).get('/api/session');
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({ id: user.id, username: user.email, accessRole: 'USER', formattedName: expect.any(String) });

      const ability = createAbility(unpackAbilityRules(body.rules as PackedRules));
      const license = (ownerId: number): Record<string, unknown> => ({ ownerId });
      expect(ability.can('view', asSubject('License', license(user.id)))).toBe(true);
      expect(ability.can('view', asSubject('License', license(user.id + 1)))).toBe(false);
      expect(ability.can('view-list', 'User')).toBe(false);
    });

    it('gives an administrator the rule to manage everything', async () => {
      const admin = await createUser(t.app, { role: 'ADMIN' });
      const cookie = await login(t.app, admin.email, admin.password);
      const body = (await client(t.app, cookie).get('/api/session')).json();
      expect(body.accessRole).toBe('ADMIN');
      const ability = createAbility(unpackAbilityRules(body.rules as PackedRules));
      expect(ability.can('manage', 'all')).toBe(true);
    });

    it('answers 200 with the anonymous rules (no account) without a cookie or with an unknown one', async () => {
      expectAnonymousSession(await client(t.app).get('/api/session'));
      expectAnonymousSession(await client(t.app, `${SESSION_COOKIE}=not-a-session`).get('/api/session'));
    });
  });

  describe('DELETE /api/session', () => {
    it('logs out: clears the cookie and the old cookie no longer opens the session', async () => {
      const user = await createUser(t.app);
      const cookie = await login(t.app, user.email, user.password);
      expect((await client(t.app, cookie).get('/api/session')).statusCode).toBe(200);

      const response = await client(t.app, cookie).delete('/api/session');
      expect(response.statusCode, response.body).toBe(204);
      const cleared = response.cookies.find((c) => c.name === SESSION_COOKIE);
      expect(cleared).toBeDefined();
      expect(cleared!.value).toBe('');

      expectAnonymousSession(await client(t.app, cookie).get('/api/session'));
    });

    it('leaves the other sessions of the account alone', async () => {
      const user = await createUser(t.app);
      const first = await login(t.app, user.email, user.password);
      const second = await login(t.app, user.email, user.password);
      expect(first).not.toBe(second);
      await client(t.app, first).delete('/api/session');
      expect((await client(t.app, second).get('/api/session')).statusCode).toBe(200);
    });

    it('answers 204 without a session too', async () => {
      expect((await client(t.app).delete('/api/session')).statusCode).toBe(204);
    });
  });

  describe('per-address rate limit', () => {
    it('is off when the config says rateLimits: false', async () => {
      for (let attempt = 1; attempt <= 35; attempt++) {
        const response = await client(t.app).post('/api/session', { body: { username: '', password: '' } });
        expect(response.statusCode).toBe(400);
      }
    });

    it('allows 30 logins a minute from one address, then answers 429 ERR_RATE_LIMITED', async () => {
      const app = await t.newApp({ config: { rateLimits: true } });
      const user = await createUser(app);
      for (let attempt = 1; attempt <= 30; attempt++) {
        const response = await client(app).post('/api/session', { body: { username: uniqueEmail('guess'), password: 'guess' } });
        expectError(response, 401, 'ERR_LOGIN_FAILED');
      }
      const limited = await client(app).post('/api/session', { body: { username: user.email, password: user.password } });
      expectError(limited, 429, 'ERR_RATE_LIMITED');
      expect(sessionCookieOf(limited)).toBeNull();

      // Another address still gets in.
      const elsewhere = await app.inject({
        method: 'POST',
        url: '/api/session',
        remoteAddress: '198.51.100.7',
        payload: { username: user.email, password: user.password },
      });
      expect(elsewhere.statusCode, elsewhere.body).toBe(200);
    });
  });
});
