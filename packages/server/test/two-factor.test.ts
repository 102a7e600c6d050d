/**
 * Two-factor sign-in (DESIGN.md section 6b): enrolment, login with a code or a recovery code, no
 * replay, limits, turning it off, an administrator's reset, the requirement for administrators and
 * distributors, and the account's sessions and password.
 */
import * as OTPAuth from 'otpauth';
import { describe, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { callersOfEachRole, client, createUser, describeBothDatabases, DEFAULT_PASSWORD, expectError, login, sessionCookieOf, type CreatedUser } from './harness.ts';
import { mailsTo } from './mail-helpers.ts';

const codeOf = (secret: string, offsetSteps = 0) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });

const CHROME_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

/** A user with two-factor sign-in on: its secret, recovery codes and the session that set it up. */
async function enrolled(app: App, role: CreatedUser['role'] = 'USER') {
  const user = await createUser(app, { role });
  const cookie = await login(app, user.email);
  const api = client(app, cookie);
  const setup = (await api.post('/api/account/two-factor')).json();
  const confirmed = await api.post('/api/account/two-factor/confirm', { body: { code: codeOf(setup.secret) } });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  return { ...user, cookie, api, secret: setup.secret as string, recoveryCodes: confirmed.json().recoveryCodes as string[] };
}

/** A session cookie that no longer signs in: the session check answers as for an anonymous visitor. */
async function expectSignedOut(app: App, cookie: string) {
  const response = await client(app, cookie).get('/api/session');
  expect(response.statusCode).toBe(200);
  expect(response.json().id).toBeNull();
}

const loginWith = (app: App, user: { email: string }, code?: string, password = DEFAULT_PASSWORD, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/api/session', headers, payload: { username: user.email, password, ...(code ? { code } : {}) } });

describeBothDatabases(
  'two-factor sign-in',
  (t) => {
    const { admin, distributor, user: customer, anonymous } = callersOfEachRole(t);

    describe('enrolment', () => {
      it('gives a secret as text, otpauth link and QR code; a current code turns it on and shows ten recovery codes once', async () => {
        const user = await createUser(t.app);
        const cookie = await login(t.app, user.email);
        const other = await login(t.app, user.email);
        const api = client(t.app, cookie);
        expect((await api.get('/api/account/two-factor')).json()).toEqual({ enabled: false, enabledAt: null, recoveryCodesLeft: 0, required: false });
        const setup = (await api.post('/api/account/two-factor')).json();
        expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
        expect(setup.otpauthUrl).toMatch(new RegExp(`^otpauth://totp/License%20Manager:${encodeURIComponent(user.email)}\\?.*secret=${setup.secret}`));
        expect(setup.qrCodeSvg).toMatch(/^<svg /);
        expectError(await api.post('/api/account/two-factor/confirm', { body: { code: '000000' } }), 422, 'ERR_TWO_FACTOR_INVALID');
        const confirmed = await api.post('/api/account/two-factor/confirm', { body: { code: codeOf(setup.secret) } });
        expect(confirmed.statusCode, confirmed.body).toBe(200);
        const { recoveryCodes } = confirmed.json();
        expect(recoveryCodes).toHaveLength(10);
        for (const code of recoveryCodes) expect(code).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
        expect((await api.get('/api/account/two-factor')).json()).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
        // The other sessions end; this one goes on.
        await expectSignedOut(t.app, other);
        expect((await api.get('/api/session')).statusCode).toBe(200);
        // Stored as hashes; the secret only with SECRET_KEY encrypted (see below).
        const stored = JSON.stringify(await t.app.ctx.db.selectFrom('user_recovery_codes').selectAll().where('user_id', '=', user.id).execute());
        for (const code of recoveryCodes) expect(stored).not.toContain(code.replace(/-/g, ''));
        expectError(await api.post('/api/account/two-factor'), 409, 'ERR_TWO_FACTOR_ENABLED');
        const log = await t.app.ctx.db.selectFrom('change_log').select('new_values').where('model', '=', 'User').where('record_id', '=', user.id).execute();
        expect(log.map((entry) => entry.new_values)).toContain(JSON.stringify({ twoFactor: true }));
      });

      it('keeps the secret encrypted at rest when SECRET_KEY is set', async () => {
        const app = await t.newApp({ env: { SECRET_KEY: 'a-long-secret-key-for-tests' } });
        const user = await enrolled(app);
        const row = await app.ctx.db.selectFrom('user_two_factor').select('secret').where('user_id', '=', user.id).executeTakeFirstOrThrow();
        expect(row.secret).toMatch(/^aes-256-gcm:/);
        expect(row.secret).not.toContain(user.secret);
        expect((await loginWith(app, user, codeOf(user.secret, 1))).statusCode).toBe(200);
      });

      it('says that there is nothing to confirm before the set-up started, or after it was cancelled', async () => {
        const user = await createUser(t.app);
        const api = client(t.app, await login(t.app, user.email));
        const notStarted = expectError(await api.post('/api/account/two-factor/confirm', { body: { code: '123456' } }), 409, 'ERR_TWO_FACTOR_NOT_STARTED');
        expect(notStarted.message).toBe('There is no set-up of two-factor sign-in to confirm: it was not started or has been cancelled. Start the set-up again.');
        // An administrator's reset cancels a set-up under way.
        const setup = (await api.post('/api/account/two-factor')).json();
        expect((await admin.delete(`/api/users/${user.id}/two-factor`)).statusCode).toBe(204);
        expectError(await api.post('/api/account/two-factor/confirm', { body: { code: codeOf(setup.secret) } }), 409, 'ERR_TWO_FACTOR_NOT_STARTED');
      });

      it('refuses anonymous callers', async () => {
        expectError(await anonymous.get('/api/account/two-factor'), 401, 'ERR_UNAUTHENTICATED');
        expectError(await anonymous.post('/api/account/two-factor'), 401, 'ERR_UNAUTHENTICATED');
        expectError(await anonymous.post('/api/account/two-factor/confirm', { body: { code: '123456' } }), 401, 'ERR_UNAUTHENTICATED');
      });
    });

    describe('login', () => {
      it('asks for the code after the right password, takes a current code once, and a recovery code once', async () => {
        const user = await enrolled(t.app);
        const asked = expectError(await loginWith(t.app, user), 401, 'ERR_TWO_FACTOR_REQUIRED');
        expect(asked.message).toMatch(/code/);
        expectError(await loginWith(t.app, user, undefined, 'wrong password'), 401, 'ERR_LOGIN_FAILED');
        expectError(await loginWith(t.app, user, '000000'), 401, 'ERR_TWO_FACTOR_INVALID');
        // The code of the next step: accepted (clocks a little off), and then neither it nor an earlier one again.
        const next = codeOf(user.secret, 1);
        const accepted = await loginWith(t.app, user, next);
        expect(accepted.statusCode, accepted.body).toBe(200);
        expect(sessionCookieOf(accepted)).toBeTruthy();
        expectError(await loginWith(t.app, user, next), 401, 'ERR_TWO_FACTOR_INVALID');
        expectError(await loginWith(t.app, user, codeOf(user.secret)), 401, 'ERR_TWO_FACTOR_INVALID');
        // A recovery code: as printed, in capitals, with spaces; once.
        const recovery = user.recoveryCodes[3];
        expect((await loginWith(t.app, user, ` ${recovery.toUpperCase().replace(/-/g, ' ')} `)).statusCode).toBe(200);
        expectError(await loginWith(t.app, user, recovery), 401, 'ERR_TWO_FACTOR_INVALID');
        expect((await user.api.get('/api/account/two-factor')).json().recoveryCodesLeft).toBe(9);
      });

      it('lets one of ten logins racing with the same code or recovery code in', async () => {
        const user = await enrolled(t.app);
        for (const code of [codeOf(user.secret, 1), user.recoveryCodes[0]]) {
          const responses = await Promise.all(Array.from({ length: 10 }, () => loginWith(t.app, user, code)));
          expect(responses.map((response) => response.statusCode).sort()).toEqual([200, ...Array(9).fill(401)]);
        }
      });

      it('counts wrong codes toward the login limits', async () => {
        const app = await t.newApp({ config: { rateLimits: true } });
        const user = await enrolled(app);
        for (let i = 0; i < 10; i++) expectError(await loginWith(app, user, '000000', DEFAULT_PASSWORD, { 'x-forwarded-for': '1.2.3.4' }), 401, 'ERR_TWO_FACTOR_INVALID');
        expectError(await loginWith(app, user, codeOf(user.secret, 1)), 429, 'ERR_RATE_LIMITED');
      });
    });

    describe('turning it off and new recovery codes', () => {
      it('needs the password; afterwards the password alone signs in', async () => {
        const user = await enrolled(t.app);
        expectError(await user.api.delete('/api/account/two-factor', { body: { password: 'not it' } }), 422, 'ERR_WRONG_PASSWORD');
        const fresh = await user.api.post('/api/account/two-factor/recovery-codes', { body: { password: DEFAULT_PASSWORD } });
        expect(fresh.statusCode).toBe(200);
        expectError(await loginWith(t.app, user, user.recoveryCodes[0]), 401, 'ERR_TWO_FACTOR_INVALID');
        expect((await loginWith(t.app, user, fresh.json().recoveryCodes[0])).statusCode).toBe(200);
        expect((await user.api.delete('/api/account/two-factor', { body: { password: DEFAULT_PASSWORD } })).statusCode).toBe(204);
        expect((await loginWith(t.app, user)).statusCode).toBe(200);
        expect(await t.app.ctx.db.selectFrom('user_recovery_codes').select('id').where('user_id', '=', user.id).execute()).toEqual([]);
      });

      it('says that there are no recovery codes to renew while two-factor sign-in is off', async () => {
        const user = await createUser(t.app);
        const api = client(t.app, await login(t.app, user.email));
        const off = expectError(await api.post('/api/account/two-factor/recovery-codes', { body: { password: DEFAULT_PASSWORD } }), 409, 'ERR_TWO_FACTOR_DISABLED');
        expect(off.message).toBe('Two-factor sign-in is off, so there are no recovery codes to renew. Set up two-factor sign-in first.');
        // A set-up begun but not confirmed is still off.
        expect((await api.post('/api/account/two-factor')).statusCode).toBe(200);
        expectError(await api.post('/api/account/two-factor/recovery-codes', { body: { password: DEFAULT_PASSWORD } }), 409, 'ERR_TWO_FACTOR_DISABLED');
      });
    });

    describe("an administrator's reset", () => {
      it("turns another account's factor off, logs it and mails the account; nobody else may", async () => {
        const user = await enrolled(t.app);
        // Whether there is a factor to reset: for administrators only.
        expect((await admin.get(`/api/users/${user.id}/two-factor`)).json()).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
        for (const caller of [customer, distributor, user.api]) expectError(await caller.get(`/api/users/${user.id}/two-factor`), 403, 'ERR_FORBIDDEN');
        expectError(await anonymous.get(`/api/users/${user.id}/two-factor`), 401, 'ERR_UNAUTHENTICATED');
        expectError(await admin.get('/api/users/999999/two-factor'), 404, 'ERR_NOT_FOUND');
        expectError(await customer.delete(`/api/users/${user.id}/two-factor`), 403, 'ERR_FORBIDDEN');
        expectError(await distributor.delete(`/api/users/${user.id}/two-factor`), 403, 'ERR_FORBIDDEN');
        expectError(await anonymous.delete(`/api/users/${user.id}/two-factor`), 401, 'ERR_UNAUTHENTICATED');
        expectError(await user.api.delete(`/api/users/${user.id}/two-factor`), 403, 'ERR_FORBIDDEN');
        expect((await admin.delete(`/api/users/${user.id}/two-factor`)).statusCode).toBe(204);
        expect((await loginWith(t.app, user)).statusCode).toBe(200);
        expect((await admin.get(`/api/users/${user.id}/two-factor`)).json()).toMatchObject({ enabled: false });
        const mails = await mailsTo(t.app, user.email);
        expect(mails.at(-1)!.subject).toMatch(/second factor .* was reset/);
        const log = await t.app.ctx.db.selectFrom('change_log').select(['new_values', 'user_id']).where('model', '=', 'User').where('record_id', '=', user.id).orderBy('id', 'desc').executeTakeFirstOrThrow();
        expect(log.new_values).toBe(JSON.stringify({ twoFactor: false }));
        expectError(await admin.delete('/api/users/999999/two-factor'), 404, 'ERR_NOT_FOUND');
      });
    });

    describe('required for administrators and distributors', () => {
      it('leads such an account to enrolment, refuses everything else until done, and leaves customers alone', async () => {
        const app = await t.newApp();
        const boss = await createUser(app, { role: 'ADMIN' });
        const bossApi = client(app, await login(app, boss.email));
        expect((await bossApi.put('/api/settings/security.requireTwoFactor', { body: { value: true } })).statusCode).toBe(204);
        const seller = await createUser(app, { role: 'DISTRIBUTOR' });
        const sellerApi = client(app, await login(app, seller.email));
        expect((await sellerApi.get('/api/session')).json().twoFactorEnrollmentRequired).toBe(true);
        expectError(await sellerApi.get('/api/tans'), 403, 'ERR_TWO_FACTOR_ENROLLMENT_REQUIRED');
        expectError(await bossApi.get('/api/users'), 403, 'ERR_TWO_FACTOR_ENROLLMENT_REQUIRED');
        expect((await sellerApi.get('/api/account/two-factor')).json().required).toBe(true);
        const setup = (await sellerApi.post('/api/account/two-factor')).json();
        expect((await sellerApi.post('/api/account/two-factor/confirm', { body: { code: codeOf(setup.secret) } })).statusCode).toBe(200);
        expect((await sellerApi.get('/api/session')).json().twoFactorEnrollmentRequired).toBe(false);
        expect((await sellerApi.get('/api/tans')).statusCode).toBe(200);
        const buyer = await createUser(app);
        const buyerApi = client(app, await login(app, buyer.email));
        expect((await buyerApi.get('/api/session')).json().twoFactorEnrollmentRequired).toBe(false);
        expect((await buyerApi.get('/api/licenses')).statusCode).toBe(200);
      });
    });

    describe('sessions and password', () => {
      it('lists the sessions with browser, address and last use, and ends one or all others', async () => {
        const user = await createUser(t.app);
        const current = sessionCookieOf(await loginWith(t.app, user, undefined, DEFAULT_PASSWORD, { 'user-agent': CHROME_ON_WINDOWS }))!;
        const second = await login(t.app, user.email);
        const third = await login(t.app, user.email);
        const api = client(t.app, current);
        const { items } = (await api.get('/api/account/sessions')).json();
        expect(items).toHaveLength(3);
        expect(items.find((item: { current: boolean }) => item.current)).toMatchObject({ browser: 'Chrome', system: 'Windows', address: '127.0.0.1' });
        expect(JSON.stringify(items)).not.toMatch(/token/i);
        const secondId = (await client(t.app, second).get('/api/account/sessions')).json().items.find((item: { current: boolean }) => item.current).id;
        expect((await api.delete(`/api/account/sessions/${secondId}`)).statusCode).toBe(204);
        await expectSignedOut(t.app, second);
        expect((await api.delete('/api/account/sessions')).statusCode).toBe(204);
        await expectSignedOut(t.app, third);
        expect((await api.get('/api/account/sessions')).json().items).toHaveLength(1);
        // Another account's session is not found.
        const stranger = client(t.app, await login(t.app, (await createUser(t.app)).email));
        const own = (await api.get('/api/account/sessions')).json().items[0].id;
        expectError(await stranger.delete(`/api/account/sessions/${own}`), 404, 'ERR_NOT_FOUND');
        expectError(await anonymous.get('/api/account/sessions'), 401, 'ERR_UNAUTHENTICATED');
      });

      it('changes the password with the current one and ends the other sessions', async () => {
        const user = await createUser(t.app);
        const current = await login(t.app, user.email);
        const other = await login(t.app, user.email);
        const api = client(t.app, current);
        expectError(await api.put('/api/account/password', { body: { currentPassword: 'wrong', newPassword: 'brand new one' } }), 422, 'ERR_WRONG_PASSWORD');
        expectError(await api.put('/api/account/password', { body: { currentPassword: DEFAULT_PASSWORD, newPassword: 'abc' } }), 400, 'ERR_VALIDATION');
        expect((await api.put('/api/account/password', { body: { currentPassword: DEFAULT_PASSWORD, newPassword: 'brand new one' } })).statusCode).toBe(204);
        await expectSignedOut(t.app, other);
        expect((await api.get('/api/session')).statusCode).toBe(200);
        await login(t.app, user.email, 'brand new one');
        expectError(await anonymous.put('/api/account/password', { body: { currentPassword: 'x', newPassword: 'yyyyyy' } }), 401, 'ERR_UNAUTHENTICATED');
      });
    });
  },
);
