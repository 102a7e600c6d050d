import { describe, expect, it } from 'vitest';
import { client, describeBothDatabases, expectError, loggedIn, uniqueEmail } from './harness.ts';
import { confirmationLinkOf, registerAccount } from './accounts-helpers.ts';
import { mailsTo } from './mail-helpers.ts';

/** zod's developer wording and untranslated keys: never in an answer a person may read. */
const TECHNICAL = /expected|received|>=|<=|validation\.|Too small|Invalid input/;

describeBothDatabases('error messages in the language of the request', (t) => {
  describe('validation answers', () => {
    it('say what is wrong with each field, with its limits, in the request language (de-DE means German)', async () => {
      const body = { email: 'abc', password: 'abc', password_confirm: 'abc' };
      const german = expectError(await client(t.app).post('/api/users/register', { body, headers: { 'accept-language': 'de-DE,de;q=0.9' } }), 400, 'ERR_VALIDATION');
      expect(german.details).toEqual([
        { path: 'email', message: 'Mindestens 4 Zeichen', code: 'tooShort', params: { count: 4 } },
        { path: 'password', message: 'Mindestens 5 Zeichen', code: 'tooShort', params: { count: 5 } },
      ]);
      expect(german.message).toBe('Bitte prüfen Sie Ihre Eingaben. email: Mindestens 4 Zeichen; password: Mindestens 5 Zeichen');

      const french = expectError(await client(t.app).post('/api/users/register', { body, headers: { 'accept-language': 'fr-CA' } }), 400, 'ERR_VALIDATION');
      expect(french.details?.map((detail) => detail.message)).toEqual(['Au moins 4 caractères', 'Au moins 5 caractères']);
      const unknown = expectError(await client(t.app).post('/api/users/register', { body, headers: { 'accept-language': 'pt-BR' } }), 400, 'ERR_VALIDATION');
      expect(unknown.details?.[0].message).toBe('At least 4 characters');
    });

    it('walk the browser languages in order and prefer the language cookie', async () => {
      const body = { email: 'abc', password: 'abcdef', password_confirm: 'abcdef' };
      const italian = expectError(await client(t.app).post('/api/users/register', { body, headers: { 'accept-language': 'ja,it;q=0.9' } }), 400, 'ERR_VALIDATION');
      expect(italian.details?.[0].message).toBe('Almeno 4 caratteri');
      const german = expectError(await client(t.app).post('/api/users/register', { body, headers: { 'accept-language': 'nl,de;q=0.9,en;q=0.8' } }), 400, 'ERR_VALIDATION');
      expect(german.details?.[0].message).toBe('Mindestens 4 Zeichen');
      const chosen = expectError(await client(t.app).post('/api/users/register', { body, headers: { 'accept-language': 'de', cookie: 'i18next=es' } }), 400, 'ERR_VALIDATION');
      expect(chosen.details?.[0].message).toBe('Al menos 4 caracteres');
    });

    it('name a missing field as required and a schema key by its text, never as a key', async () => {
      for (const locale of ['de', 'en', 'es', 'fr', 'it']) {
        const missing = expectError(await client(t.app).post('/api/session', { body: { username: '' }, headers: { 'accept-language': locale } }), 400, 'ERR_VALIDATION');
        expect(missing.details?.map((detail) => detail.code)).toEqual(['required', 'required']);
        expect(JSON.stringify(missing)).not.toMatch(TECHNICAL);
      }
      const user = await loggedIn(t.app);
      const tan = expectError(await client(t.app, user.cookie).post('/api/licenses/activate', { body: { tan: 'abc', machineId: 'pc 1' }, headers: { 'accept-language': 'it' } }), 400, 'ERR_VALIDATION');
      expect(tan.details?.map((detail) => detail.code)).toEqual(['tanCode', 'machineId']);
      expect(tan.details?.[0].message).toContain('Un TAN ha 12 lettere e cifre');
      expect(JSON.stringify(tan)).not.toMatch(TECHNICAL);
    });

    it('translate the rules the server checks itself (ANY-Lic days) too', async () => {
      const admin = await loggedIn(t.app, 'ADMIN');
      const refused = expectError(await client(t.app, admin.cookie).post('/api/anylic', { body: { productId: 2_000_000, validUntil: '2000-01-01', format: 'lic' }, headers: { 'accept-language': 'es-ES' } }), 400, 'ERR_VALIDATION');
      expect(refused.details).toEqual([{ path: 'productId', message: 'Este producto no existe', code: 'unknownProduct', params: {} }]);
    });
  });

  describe('rules this vocabulary brought to light', () => {
    it('an account needs a real country code: XX is refused, de is taken as DE', async () => {
      const admin = await loggedIn(t.app, 'ADMIN');
      const body = { email: uniqueEmail('country'), firstName: 'Ada', lastName: 'Lovelace', country: 'XX' };
      const refused = expectError(await client(t.app, admin.cookie).post('/api/users', { body, headers: { 'accept-language': 'de' } }), 400, 'ERR_VALIDATION');
      expect(refused.details).toEqual([{ path: 'country', message: 'Wählen Sie ein Land aus der Liste', code: 'country', params: {} }]);
      const created = await client(t.app, admin.cookie).post('/api/users', { body: { ...body, country: 'de' } });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json().country).toBe('DE');
    });

    it('a built-in policy keeps its type', async () => {
      const admin = await loggedIn(t.app, 'ADMIN');
      const policies = (await client(t.app, admin.cookie).get('/api/license-policies?limit=100')).json() as { items: { id: number; name: string; type: string }[] };
      const floating = policies.items.find((policy) => policy.name === 'FLOATING_DEFAULT')!;
      const current = (await client(t.app, admin.cookie).get(`/api/license-policies/${floating.id}`)).json() as Record<string, unknown>;
      const { id: _id, builtIn: _builtIn, createdAt: _c, updatedAt: _u, ...fields } = current;
      const refused = expectError(await client(t.app, admin.cookie).put(`/api/license-policies/${floating.id}`, { body: { ...fields, type: 'PERPETUAL' } }), 400, 'ERR_VALIDATION');
      expect(refused.details).toEqual([{ path: 'type', message: 'The type of a built-in policy cannot be changed', code: 'builtInPolicyType', params: {} }]);
      const kept = await client(t.app, admin.cookie).put(`/api/license-policies/${floating.id}`, { body: { ...fields, notes: 'still floating' } });
      expect(kept.statusCode, kept.body).toBe(200);
      expect(kept.json().type).toBe('FLOATING');
    });
  });

  describe('registration in a region-tagged language', () => {
    it('a browser sending de-AT gets the German mail and the account stores German', async () => {
      const { email } = await registerAccount(t.app, { locale: 'de-AT' });
      const [mail] = await mailsTo(t.app, email);
      expect(mail.subject).toBe('Bestätigen Sie Ihre Registrierung bei License Manager');
      const row = await t.app.ctx.db.selectFrom('users').select('locale').where('email', '=', email).executeTakeFirstOrThrow();
      expect(row.locale).toBe('de');
    });

    it('a browser listing [nl, de, en] gets the German mail, one listing [ja, it] the Italian one', async () => {
      const german = await registerAccount(t.app, { locale: 'nl,de;q=0.9,en;q=0.8' });
      expect((await mailsTo(t.app, german.email))[0].subject).toBe('Bestätigen Sie Ihre Registrierung bei License Manager');
      const italian = await registerAccount(t.app, { locale: 'ja,it;q=0.9' });
      expect((await mailsTo(t.app, italian.email))[0].subject).toBe('Conferma la tua registrazione a License Manager');
      const row = await t.app.ctx.db.selectFrom('users').select('locale').where('email', '=', italian.email).executeTakeFirstOrThrow();
      expect(row.locale).toBe('it');
    });

    it('after a resent confirmation, the older link confirms and the newer one then says confirmed (not failed)', async () => {
      const { email } = await registerAccount(t.app);
      const first = await confirmationLinkOf(t.app, email);
      expect((await client(t.app).post('/api/users/confirm/resend', { body: { email } })).statusCode).toBe(204);
      await expect.poll(async () => (await mailsTo(t.app, email)).length).toBe(2);
      const tokens = await t.app.ctx.db.selectFrom('user_tokens').select('id').where('user_id', '=', first.id).execute();
      expect(tokens).toHaveLength(2);
      const second = (await mailsTo(t.app, email))[1];
      const secondToken = new URL(second.text.match(/http:\/\/\S+\/register\/confirm\?\S+/)![0]).searchParams.get('token');

      expect((await client(t.app).post('/api/users/confirm', { body: first })).statusCode).toBe(204);
      const row = await t.app.ctx.db.selectFrom('users').select('confirmed').where('id', '=', first.id).executeTakeFirstOrThrow();
      expect(Boolean(row.confirmed)).toBe(true);
      // Either link opened later says the account is confirmed (the page then offers to log in).
      expectError(await client(t.app).post('/api/users/confirm', { body: { id: first.id, token: secondToken } }), 409, 'ERR_ALREADY_CONFIRMED');
      expectError(await client(t.app).post('/api/users/confirm', { body: first }), 409, 'ERR_ALREADY_CONFIRMED');
    });
  });
});
