import { describe, expect, it } from 'vitest';
import { client, createUser, describeBothDatabases, expectAnonymousSession, expectError, loggedIn, login, uniqueEmail } from './harness.ts';
import { linkTo, mailsTo, onlyMailTo } from './mail-helpers.ts';
import { expireTokensOf, privateDataDir, registerAccount, registeredAndConfirmed } from './accounts-helpers.ts';

describeBothDatabases(
  'password reset',
  (t) => {
    describe('POST /api/users/forgot-password', () => {
      it('mails a reset link valid for 2 hours, in the language of the request', async () => {
        const user = await createUser(t.app);
        const response = await client(t.app).post('/api/users/forgot-password', { body: { email: user.email }, headers: { 'accept-language': 'fr' } });
        expect(response.statusCode).toBe(204);
        const mail = await onlyMailTo(t.app, user.email);
        expect(mail.subject).toBe('Réinitialisez votre mot de passe sur License Manager');
        expect(mail.text).toContain('2 heures');
        const link = linkTo(mail, '/reset-password');
        expect(link.searchParams.get('email')).toBe(user.email);
        const token = await t.app.ctx.db.selectFrom('user_tokens').selectAll().where('user_id', '=', user.id).executeTakeFirstOrThrow();
        expect(Date.parse(token.expires_at) - Date.parse(token.created_at)).toBe(2 * 3600_000);
      });

      it('answers an unknown address exactly like a known one, and mails nothing', async () => {
        const user = await createUser(t.app);
        const unknown = uniqueEmail('nobody');
        const known = await client(t.app).post('/api/users/forgot-password', { body: { email: user.email } });
        const other = await client(t.app).post('/api/users/forgot-password', { body: { email: unknown } });
        expect([known.statusCode, other.statusCode]).toEqual([204, 204]);
        expect(other.body).toBe(known.body);
        expect(other.headers['content-type']).toBe(known.headers['content-type']);
        expect(await mailsTo(t.app, unknown)).toHaveLength(0);
      });

      it('refuses bad input with 400', async () => {
        expectError(await client(t.app).post('/api/users/forgot-password', { body: { email: 'nope' } }), 400, 'ERR_VALIDATION');
        expectError(await client(t.app).post('/api/users/forgot-password', { body: { mail: 'a@b.cd' } }), 400, 'ERR_VALIDATION');
      });
    });

    describe('POST /api/users/reset-password', () => {
      async function resetLink(email: string) {
        expect((await client(t.app).post('/api/users/forgot-password', { body: { email } })).statusCode).toBe(204);
        const mails = await mailsTo(t.app, email);
        return linkTo(mails[mails.length - 1], '/reset-password').searchParams.get('token')!;
      }

      it('sets the new password and ends every session of the account', async () => {
        const user = await loggedIn(t.app);
        const token = await resetLink(user.email);
        const response = await client(t.app).post('/api/users/reset-password', { body: { email: user.email, password: 'brand new', token } });
        expect(response.statusCode, response.body).toBe(204);
        expectAnonymousSession(await client(t.app, user.cookie).get('/api/session'));
        expectError(await client(t.app).post('/api/session', { body: { username: user.email, password: user.password } }), 401, 'ERR_LOGIN_FAILED');
        await login(t.app, user.email, 'brand new');
        const entry = await t.app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', 'User').where('record_id', '=', user.id).where('operation', '=', 'update').executeTakeFirstOrThrow();
        expect(entry.new_values).not.toContain('brand new');
      });

      it('confirms a pending registration: the link proves the address', async () => {
        const { email } = await registerAccount(t.app);
        const token = await resetLink(email);
        expect((await client(t.app).post('/api/users/reset-password', { body: { email, password: 'chosen again', token } })).statusCode).toBe(204);
        await login(t.app, email, 'chosen again');
      });

      it('refuses a reused, expired, wrong or foreign token with 422 ERR_INVALID_TOKEN', async () => {
        const user = await createUser(t.app);
        const other = await createUser(t.app);
        const used = await resetLink(user.email);
        expect((await client(t.app).post('/api/users/reset-password', { body: { email: user.email, password: 'first new', token: used } })).statusCode).toBe(204);
        expectError(await client(t.app).post('/api/users/reset-password', { body: { email: user.email, password: 'second new', token: used } }), 422, 'ERR_INVALID_TOKEN');

        const expired = await resetLink(user.email);
        await expireTokensOf(t.app, user.id);
        expectError(await client(t.app).post('/api/users/reset-password', { body: { email: user.email, password: 'second new', token: expired } }), 422, 'ERR_INVALID_TOKEN');

        expectError(await client(t.app).post('/api/users/reset-password', { body: { email: user.email, password: 'second new', token: 'wrong' } }), 422, 'ERR_INVALID_TOKEN');

        const foreign = await resetLink(other.email);
        expectError(await client(t.app).post('/api/users/reset-password', { body: { email: user.email, password: 'second new', token: foreign } }), 422, 'ERR_INVALID_TOKEN');
        expectError(await client(t.app).post('/api/users/reset-password', { body: { email: uniqueEmail(), password: 'second new', token: foreign } }), 422, 'ERR_INVALID_TOKEN');
        await login(t.app, user.email, 'first new');
        await login(t.app, other.email, other.password);
      });

      it('refuses a link mailed before the password was changed in the account', async () => {
        const user = await loggedIn(t.app);
        const token = await resetLink(user.email);
        const changed = await client(t.app, user.cookie).put('/api/account/password', { body: { currentPassword: user.password, newPassword: 'changed in the account' } });
        expect(changed.statusCode, changed.body).toBe(204);
        expectError(await client(t.app).post('/api/users/reset-password', { body: { email: user.email, password: 'set from the mail', token } }), 422, 'ERR_INVALID_TOKEN');
        await login(t.app, user.email, 'changed in the account');
      });

      it('refuses bad input with 400', async () => {
        const user = await createUser(t.app);
        const token = await resetLink(user.email);
        const short = expectError(await client(t.app).post('/api/users/reset-password', { body: { email: user.email, password: '1234', token } }), 400, 'ERR_VALIDATION');
        expect(short.details?.map((detail) => detail.path)).toEqual(['password']);
        expectError(await client(t.app).post('/api/users/reset-password', { body: { email: user.email, password: 'long enough' } }), 400, 'ERR_VALIDATION');
        expectError(await client(t.app).post('/api/users/reset-password', { body: { password: 'long enough', token } }), 400, 'ERR_VALIDATION');
        // The refusals did not use the token up.
        expect((await client(t.app).post('/api/users/reset-password', { body: { email: user.email, password: 'long enough', token } })).statusCode).toBe(204);
      });
    });
  },
  { env: { DATA_DIR: privateDataDir() } },
);

describeBothDatabases(
  'e-mail change',
  (t) => {
    async function requestChange(cookie: string, email: string, locale = 'en') {
      const response = await client(t.app, cookie).post('/api/users/change-email', { body: { email }, headers: { 'accept-language': locale } });
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as { status: string; email: string };
    }
    async function tokenMailedTo(email: string) {
      const mails = await mailsTo(t.app, email);
      const link = linkTo(mails[mails.length - 1], '/account/change-email');
      expect(link.searchParams.get('email')).toBe(email);
      return link.searchParams.get('token')!;
    }

    it('keeps the address until the token mailed to the new address is confirmed', async () => {
      const user = await loggedIn(t.app);
      const newEmail = uniqueEmail('new');
      expect(await requestChange(user.cookie, newEmail, 'es')).toEqual({ status: 'pending', email: user.email });
      const mail = await onlyMailTo(t.app, newEmail);
      expect(mail.subject).toBe('Confirme su nueva dirección de correo en License Manager');
      expect((await client(t.app, user.cookie).get(`/api/users/${user.id}`)).json().email).toBe(user.email);
      await login(t.app, user.email, user.password);

      const token = await tokenMailedTo(newEmail);
      const confirm = await client(t.app, user.cookie).post('/api/users/change-email', { body: { email: newEmail, token } });
      expect(confirm.statusCode, confirm.body).toBe(200);
      expect(confirm.json()).toEqual({ status: 'complete', email: newEmail });
      expect((await client(t.app, user.cookie).get(`/api/users/${user.id}`)).json().email).toBe(newEmail);
      await login(t.app, newEmail, user.password);
      expectError(await client(t.app).post('/api/session', { body: { username: user.email, password: user.password } }), 401, 'ERR_LOGIN_FAILED');
      const entry = await t.app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', 'User').where('record_id', '=', user.id).orderBy('id', 'desc').executeTakeFirstOrThrow();
      expect(JSON.parse(entry.old_values!)).toEqual({ email: user.email });
      expect(JSON.parse(entry.new_values!)).toEqual({ email: newEmail });
      // The old address learns of it, so that a change nobody there made does not go unnoticed.
      await expect.poll(async () => (await mailsTo(t.app, user.email)).length).toBeGreaterThan(0);
      const notice = (await mailsTo(t.app, user.email)).at(-1)!;
      expect(notice.subject).toBe('The e-mail address of your account at License Manager was changed');
      expect(notice.text).toContain(`was changed to ${newEmail}`);
      expect(notice.text).not.toMatch(/token=/);
    });

    it("tells the old address in the account's own language", async () => {
      const user = await loggedIn(t.app);
      await t.app.ctx.db.updateTable('users').set({ locale: 'de' }).where('id', '=', user.id).execute();
      const newEmail = uniqueEmail('neu');
      await requestChange(user.cookie, newEmail, 'fr');
      const token = await tokenMailedTo(newEmail);
      expect((await client(t.app, user.cookie).post('/api/users/change-email', { body: { email: newEmail, token }, headers: { 'accept-language': 'fr' } })).statusCode).toBe(200);
      await expect.poll(async () => (await mailsTo(t.app, user.email)).length).toBeGreaterThan(0);
      expect((await mailsTo(t.app, user.email)).at(-1)!.subject).toBe('Die E-Mail-Adresse Ihres Kontos bei License Manager wurde geändert');
    });

    it('refuses a registered address with 409 ERR_DUPLICATE_EMAIL, at the request and at the confirmation', async () => {
      const user = await loggedIn(t.app);
      const taken = await createUser(t.app);
      expectError(await client(t.app, user.cookie).post('/api/users/change-email', { body: { email: taken.email } }), 409, 'ERR_DUPLICATE_EMAIL');

      const wanted = uniqueEmail('wanted');
      await requestChange(user.cookie, wanted);
      const token = await tokenMailedTo(wanted);
      await createUser(t.app, { email: wanted });
      expectError(await client(t.app, user.cookie).post('/api/users/change-email', { body: { email: wanted, token } }), 409, 'ERR_DUPLICATE_EMAIL');
      expect((await client(t.app, user.cookie).get(`/api/users/${user.id}`)).json().email).toBe(user.email);
    });

    it('refuses the own address with 400', async () => {
      const user = await loggedIn(t.app);
      expectError(await client(t.app, user.cookie).post('/api/users/change-email', { body: { email: user.email } }), 400, 'ERR_VALIDATION');
    });

    it('refuses the token in another account, a reused, expired, wrong or replaced token, and another address', async () => {
      const user = await loggedIn(t.app);
      const intruder = await loggedIn(t.app);
      const newEmail = uniqueEmail('new');
      await requestChange(user.cookie, newEmail);
      const token = await tokenMailedTo(newEmail);
      expectError(await client(t.app, intruder.cookie).post('/api/users/change-email', { body: { email: newEmail, token } }), 422, 'ERR_INVALID_TOKEN');
      expectError(await client(t.app, user.cookie).post('/api/users/change-email', { body: { email: uniqueEmail(), token } }), 422, 'ERR_INVALID_TOKEN');
      expectError(await client(t.app, user.cookie).post('/api/users/change-email', { body: { email: newEmail, token: 'wrong' } }), 422, 'ERR_INVALID_TOKEN');

      // A newer request replaces the older one.
      const newer = uniqueEmail('newer');
      await requestChange(user.cookie, newer);
      expectError(await client(t.app, user.cookie).post('/api/users/change-email', { body: { email: newEmail, token } }), 422, 'ERR_INVALID_TOKEN');

      const newerToken = await tokenMailedTo(newer);
      await expireTokensOf(t.app, user.id);
      expectError(await client(t.app, user.cookie).post('/api/users/change-email', { body: { email: newer, token: newerToken } }), 422, 'ERR_INVALID_TOKEN');

      const last = uniqueEmail('last');
      await requestChange(user.cookie, last);
      const lastToken = await tokenMailedTo(last);
      expect((await client(t.app, user.cookie).post('/api/users/change-email', { body: { email: last, token: lastToken } })).statusCode).toBe(200);
      expectError(await client(t.app, user.cookie).post('/api/users/change-email', { body: { email: last, token: lastToken } }), 422, 'ERR_INVALID_TOKEN');
    });

    it('refuses an anonymous caller with 401 and bad input with 400', async () => {
      expectError(await client(t.app).post('/api/users/change-email', { body: { email: uniqueEmail() } }), 401, 'ERR_UNAUTHENTICATED');
      const user = await loggedIn(t.app);
      expectError(await client(t.app, user.cookie).post('/api/users/change-email', { body: { email: 'bad' } }), 400, 'ERR_VALIDATION');
      expectError(await client(t.app, user.cookie).post('/api/users/change-email', { body: {} }), 400, 'ERR_VALIDATION');
    });

    it('registers and confirms end to end through the helpers', async () => {
      const account = await registeredAndConfirmed(t.app);
      await login(t.app, account.email, account.password);
    });
  },
  { env: { DATA_DIR: privateDataDir() } },
);
