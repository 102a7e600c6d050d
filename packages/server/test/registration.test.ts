import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { client, createUser, describeBothDatabases, expectError, loggedIn, login, uniqueEmail } from './harness.ts';
import { linkTo, mailsTo, onlyMailTo } from './mail-helpers.ts';
import { confirmationLinkOf, expireTokensOf, privateDataDir, registerAccount } from './accounts-helpers.ts';

describeBothDatabases(
  'registration',
  (t) => {
    describe('POST /api/users/register', () => {
      it('creates an unconfirmed account and mails a confirmation link in the language of the request', async () => {
        const { email, password } = await registerAccount(t.app, { locale: 'de-DE,de;q=0.9,en;q=0.8', optInEmail: true });
        const row = await t.app.ctx.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
        expect(Boolean(row.confirmed)).toBe(false);
        expect(Boolean(row.opt_in_email)).toBe(true);
        expect(row.access_role).toBe('USER');
        expect(row.locale).toBe('de');
        expect(row.password_hash).not.toContain(password);

        const mail = await onlyMailTo(t.app, email);
        expect(mail.subject).toBe('Bestätigen Sie Ihre Registrierung bei License Manager');
        expect(mail.text).toContain('48 Stunden');
        expect(mail.html).toContain('License Manager');
        expect(mail.html).toContain('Registrierung bestätigen');
        const link = linkTo(mail, '/register/confirm');
        expect(link.origin).toBe('http://localhost:3000');
        expect(link.searchParams.get('email')).toBe(email);
        expect(Number(link.searchParams.get('id'))).toBe(row.id);

        const login = await client(t.app).post('/api/session', { body: { username: email, password } });
        expectError(login, 409, 'ERR_CONFIRMATION_PENDING');

        const change = await t.app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', 'User').where('record_id', '=', row.id).execute();
        expect(change.map((entry) => entry.operation)).toEqual(['insert']);
        expect(change[0].new_values).not.toContain('password');
      });

      it('stores the token of the link hashed, never the token itself', async () => {
        const { email } = await registerAccount(t.app);
        const { id, token } = await confirmationLinkOf(t.app, email);
        const stored = await t.app.ctx.db.selectFrom('user_tokens').select(['token_hash', 'expires_at', 'created_at']).where('user_id', '=', id).execute();
        expect(stored).toHaveLength(1);
        expect(stored[0].token_hash).toBe(createHash('sha256').update(token).digest('hex'));
        expect(stored[0].token_hash).not.toContain(token);
        expect(Date.parse(stored[0].expires_at) - Date.parse(stored[0].created_at)).toBe(48 * 3600_000);
      });

      it('brands the mail with the product name and logo of the settings, in English by default', async () => {
        const admin = await loggedIn(t.app, 'ADMIN');
        expect((await client(t.app, admin.cookie).put('/api/settings/theme.productName', { body: { value: 'Acme Licenses' } })).statusCode).toBe(204);
        await t.app.ctx.db.insertInto('settings').values({ key: 'theme.logo', value: JSON.stringify('/theme/logo.png'), updated_at: new Date().toISOString() }).execute();
        try {
          const { email } = await registerAccount(t.app);
          const mail = await onlyMailTo(t.app, email);
          expect(mail.subject).toBe('Confirm your registration at Acme Licenses');
          expect(mail.text.split('\n')[0]).toBe('Acme Licenses');
          expect(mail.html).toContain('src="http://localhost:3000/theme/logo.png"');
          expect(mail.html).toContain('alt="Acme Licenses"');
        } finally {
          await t.app.ctx.db.deleteFrom('settings').where('key', 'in', ['theme.productName', 'theme.logo']).execute();
        }
      });

      it('refuses a registered address with 409 ERR_DUPLICATE_EMAIL, in any case', async () => {
        const existing = await createUser(t.app);
        const response = await client(t.app).post('/api/users/register', {
          body: { email: existing.email.toUpperCase(), password: 'secret', password_confirm: 'secret', optInEmail: false },
        });
        const body = expectError(response, 409, 'ERR_DUPLICATE_EMAIL');
        expect(body.message).toBe('Email address already registered');
        expect(await mailsTo(t.app, existing.email)).toHaveLength(0);
      });

      it('answers a pending registration with 409 ERR_CONFIRMATION_PENDING and sends no second mail', async () => {
        const { email } = await registerAccount(t.app);
        const again = await client(t.app).post('/api/users/register', { body: { email, password: 'other1', password_confirm: 'other1' } });
        expectError(again, 409, 'ERR_CONFIRMATION_PENDING');
        expect(await mailsTo(t.app, email)).toHaveLength(1);
      });

      it('refuses bad input with 400 and the field paths', async () => {
        const anonymous = client(t.app);
        const short = expectError(await anonymous.post('/api/users/register', { body: { email: uniqueEmail(), password: '1234', password_confirm: '1234' } }), 400, 'ERR_VALIDATION');
        expect(short.details?.map((detail) => detail.path)).toEqual(['password']);
        const mismatch = expectError(
          await anonymous.post('/api/users/register', { body: { email: uniqueEmail(), password: 'secret', password_confirm: 'secreT' } }),
          400,
          'ERR_VALIDATION',
        );
        expect(mismatch.details?.map((detail) => detail.path)).toEqual(['password_confirm']);
        const badEmail = expectError(await anonymous.post('/api/users/register', { body: { email: 'not-an-address', password: 'secret', password_confirm: 'secret' } }), 400, 'ERR_VALIDATION');
        expect(badEmail.details?.map((detail) => detail.path)).toEqual(['email']);
        expectError(await anonymous.post('/api/users/register', { body: {} }), 400, 'ERR_VALIDATION');
        expectError(await anonymous.post('/api/users/register', { body: { email: uniqueEmail(), password: 'secret', password_confirm: 'secret', optInEmail: 'yes' } }), 400, 'ERR_VALIDATION');
      });
    });

    describe('POST /api/users/confirm', () => {
      it('confirms with the id and token of the mail; the account can log in then', async () => {
        const { email, password } = await registerAccount(t.app);
        const { id, token } = await confirmationLinkOf(t.app, email);
        expect((await client(t.app).post('/api/users/confirm', { body: { id, token } })).statusCode).toBe(204);
        await login(t.app, email, password);
        const change = await t.app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', 'User').where('record_id', '=', id).orderBy('id').execute();
        expect(change.map((entry) => [entry.operation, entry.new_values])).toEqual([
          ['insert', expect.any(String)],
          ['update', JSON.stringify({ confirmed: true })],
        ]);
      });

      it('answers a link opened again, once the account is confirmed, with 409 ERR_ALREADY_CONFIRMED', async () => {
        const { email } = await registerAccount(t.app);
        const { id, token } = await confirmationLinkOf(t.app, email);
        expect((await client(t.app).post('/api/users/confirm', { body: { id, token } })).statusCode).toBe(204);
        expectError(await client(t.app).post('/api/users/confirm', { body: { id, token } }), 409, 'ERR_ALREADY_CONFIRMED');
        // A made-up token hears nothing about the account: ids counted up would tell which accounts exist.
        expectError(await client(t.app).post('/api/users/confirm', { body: { id, token: 'x'.repeat(43) } }), 422, 'ERR_INVALID_TOKEN');
        expectError(await client(t.app).post('/api/users/confirm', { body: { id: id + 1_000_000, token: 'x'.repeat(43) } }), 422, 'ERR_INVALID_TOKEN');
      });

      it('refuses a used token of a closed account with 422 ERR_INVALID_TOKEN', async () => {
        const { email } = await registerAccount(t.app);
        const { id, token } = await confirmationLinkOf(t.app, email);
        expect((await client(t.app).post('/api/users/confirm', { body: { id, token } })).statusCode).toBe(204);
        const admin = await loggedIn(t.app, 'ADMIN');
        expect((await client(t.app, admin.cookie).delete(`/api/users/${id}`)).statusCode).toBe(204);
        expectError(await client(t.app).post('/api/users/confirm', { body: { id, token } }), 422, 'ERR_INVALID_TOKEN');
      });

      it('refuses an expired token with 422 ERR_INVALID_TOKEN and leaves the account pending', async () => {
        const { email, password } = await registerAccount(t.app);
        const { id, token } = await confirmationLinkOf(t.app, email);
        await expireTokensOf(t.app, id);
        expectError(await client(t.app).post('/api/users/confirm', { body: { id, token } }), 422, 'ERR_INVALID_TOKEN');
        expectError(await client(t.app).post('/api/session', { body: { username: email, password } }), 409, 'ERR_CONFIRMATION_PENDING');
      });

      it('refuses a wrong token, and a token of another account', async () => {
        const first = await registerAccount(t.app);
        const second = await registerAccount(t.app);
        const a = await confirmationLinkOf(t.app, first.email);
        const b = await confirmationLinkOf(t.app, second.email);
        expectError(await client(t.app).post('/api/users/confirm', { body: { id: a.id, token: 'x'.repeat(43) } }), 422, 'ERR_INVALID_TOKEN');
        expectError(await client(t.app).post('/api/users/confirm', { body: { id: a.id, token: b.token } }), 422, 'ERR_INVALID_TOKEN');
        // The refused attempt did not use b's token up.
        expect((await client(t.app).post('/api/users/confirm', { body: { id: b.id, token: b.token } })).statusCode).toBe(204);
      });

      it('refuses bad input with 400', async () => {
        const anonymous = client(t.app);
        expectError(await anonymous.post('/api/users/confirm', { body: { token: 'abc' } }), 400, 'ERR_VALIDATION');
        expectError(await anonymous.post('/api/users/confirm', { body: { id: -1, token: 'abc' } }), 400, 'ERR_VALIDATION');
        expectError(await anonymous.post('/api/users/confirm', { body: { id: 99999999999, token: 'abc' } }), 400, 'ERR_VALIDATION');
        expectError(await anonymous.post('/api/users/confirm', { body: { id: 1, token: 'x'.repeat(500) } }), 400, 'ERR_VALIDATION');
      });

      it('lets an administrator confirm by id alone (twice changes nothing)', async () => {
        const admin = await loggedIn(t.app, 'ADMIN');
        const { email, password } = await registerAccount(t.app);
        const { id } = await confirmationLinkOf(t.app, email);
        expect((await client(t.app, admin.cookie).post('/api/users/confirm', { body: { id } })).statusCode).toBe(204);
        expect((await client(t.app, admin.cookie).post('/api/users/confirm', { body: { id } })).statusCode).toBe(204);
        await login(t.app, email, password);
        const entry = await t.app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', 'User').where('record_id', '=', id).where('operation', '=', 'update').execute();
        expect(entry.map((e) => e.user_id)).toEqual([admin.id]);
        expectError(await client(t.app, admin.cookie).post('/api/users/confirm', { body: { id: 2_000_000_000 } }), 404, 'ERR_NOT_FOUND');
      });

      it('refuses a confirmation without token from anyone but an administrator', async () => {
        const { email } = await registerAccount(t.app);
        const { id } = await confirmationLinkOf(t.app, email);
        expectError(await client(t.app).post('/api/users/confirm', { body: { id } }), 401, 'ERR_UNAUTHENTICATED');
        for (const role of ['USER', 'DISTRIBUTOR'] as const) {
          const caller = await loggedIn(t.app, role);
          expectError(await client(t.app, caller.cookie).post('/api/users/confirm', { body: { id } }), 403, 'ERR_FORBIDDEN');
        }
      });
    });

    describe('POST /api/users/confirm/resend', () => {
      it('mails a new link to a pending registration, in the language of the request', async () => {
        const { email, password } = await registerAccount(t.app);
        await confirmationLinkOf(t.app, email);
        const response = await client(t.app).post('/api/users/confirm/resend', { body: { email }, headers: { 'accept-language': 'it' } });
        expect(response.statusCode).toBe(204);
        const mails = await mailsTo(t.app, email);
        expect(mails).toHaveLength(2);
        expect(mails[1].subject).toBe('Conferma la tua registrazione a License Manager');
        const link = linkTo(mails[1], '/register/confirm');
        const confirm = await client(t.app).post('/api/users/confirm', { body: { id: Number(link.searchParams.get('id')), token: link.searchParams.get('token') } });
        expect(confirm.statusCode).toBe(204);
        await login(t.app, email, password);
      });

      it('answers the same for an unknown or confirmed address and mails nothing', async () => {
        const confirmed = await createUser(t.app);
        const unknown = uniqueEmail('nobody');
        const a = await client(t.app).post('/api/users/confirm/resend', { body: { email: unknown } });
        const b = await client(t.app).post('/api/users/confirm/resend', { body: { email: confirmed.email } });
        expect([a.statusCode, b.statusCode]).toEqual([204, 204]);
        expect(a.body).toBe(b.body);
        expect(await mailsTo(t.app, unknown)).toHaveLength(0);
        expect(await mailsTo(t.app, confirmed.email)).toHaveLength(0);
      });

      it('refuses bad input with 400', async () => {
        expectError(await client(t.app).post('/api/users/confirm/resend', { body: { email: 'x' } }), 400, 'ERR_VALIDATION');
        expectError(await client(t.app).post('/api/users/confirm/resend', { body: {} }), 400, 'ERR_VALIDATION');
      });
    });
  },
  { env: { DATA_DIR: privateDataDir() } },
);

describeBothDatabases(
  'mail rate limits',
  (t) => {
    for (const path of ['/api/users/confirm/resend', '/api/users/forgot-password']) {
      it(`${path}: three mails per address in 15 minutes, then 429 for known and unknown addresses alike`, async () => {
        const app = await t.newApp({ config: { rateLimits: true } });
        const known = await registerAccount(app);
        const unknown = uniqueEmail('nobody');
        for (const email of [known.email, unknown]) {
          for (let i = 0; i < 3; i++) expect((await client(app).post(path, { body: { email } })).statusCode).toBe(204);
          const limited = expectError(await client(app).post(path, { body: { email } }), 429, 'ERR_RATE_LIMITED');
          expect(Number((limited as { params?: { retryAfter: number } }).params?.retryAfter)).toBeGreaterThan(0);
        }
      });
    }

    it('limits one client address to 10 such requests in 15 minutes', async () => {
      const app = await t.newApp({ config: { rateLimits: true } });
      for (let i = 0; i < 10; i++) expect((await client(app).post('/api/users/forgot-password', { body: { email: uniqueEmail() } })).statusCode).toBe(204);
      expectError(await client(app).post('/api/users/forgot-password', { body: { email: uniqueEmail() } }), 429, 'ERR_RATE_LIMITED');
    });
  },
  { env: { DATA_DIR: privateDataDir() } },
);
