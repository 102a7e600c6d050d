import { describe, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { client, createUser, describeBothDatabases, expectAnonymousSession, expectError, loggedIn, uniqueEmail } from './harness.ts';
import { privateDataDir, registerAccount } from './accounts-helpers.ts';

async function insertLicense(app: App, ownerId: number): Promise<number> {
  const now = new Date().toISOString();
  const product = await app.ctx.db
    .insertInto('products')
    .values({ name: `Product ${uniqueEmail('p')}`, version: '1.0', active: true, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  const policy = await app.ctx.db.selectFrom('license_policies').select('id').where('name', '=', 'SINGLE_HOST_PERPETUAL').executeTakeFirstOrThrow();
  const license = await app.ctx.db
    .insertInto('licenses')
    .values({ kind: 'TEMPORARY', owner_id: ownerId, product_id: product.id, license_policy_id: policy.id, machine_id: 'machine-1', valid_until: '2099-01-01', permanent: false, revoked: false, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return license.id;
}

describeBothDatabases(
  'close account',
  (t) => {
    describe('DELETE /api/users/{id} (close account)', () => {
      it('removes the personal data, logs out for good, revokes the licenses and frees the address', async () => {
        const user = await loggedIn(t.app);
        await client(t.app, user.cookie).put(`/api/users/${user.id}`, { body: { firstName: 'Closing', lastName: 'Person', company: 'Gone Ltd', city: 'Nowhere' } });
        const licenseId = await insertLicense(t.app, user.id);
        await client(t.app).post('/api/users/forgot-password', { body: { email: user.email } });

        const response = await client(t.app, user.cookie).delete(`/api/users/${user.id}`);
        expect(response.statusCode, response.body).toBe(204);
        expect(response.cookies.find((c) => c.name === 'lm_session')?.value).toBe('');

        expectAnonymousSession(await client(t.app, user.cookie).get('/api/session'));
        expectError(await client(t.app).post('/api/session', { body: { username: user.email, password: user.password } }), 401, 'ERR_LOGIN_FAILED');

        const row = await t.app.ctx.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
        expect(row).toMatchObject({ email: expect.stringMatching(new RegExp(`^closed-${user.id}-[0-9a-f]{16}@closed\\.invalid$`)), password_hash: null, first_name: '', last_name: '', company: null, city: null, locale: null });
        expect(row.closed_at).toEqual(expect.any(String));
        for (const table of ['sessions', 'user_tokens'] as const) {
          expect(await t.app.ctx.db.selectFrom(table).select('user_id').where('user_id', '=', user.id).execute()).toEqual([]);
        }
        expect(await t.app.ctx.db.selectFrom('mail_outbox').select('id').where('recipient', '=', user.email).execute()).toEqual([]);

        const license = await t.app.ctx.db.selectFrom('licenses').select(['revoked', 'owner_id']).where('id', '=', licenseId).executeTakeFirstOrThrow();
        expect(Boolean(license.revoked)).toBe(true);
        expect(license.owner_id).toBe(user.id);
        const licenseChange = await t.app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', 'License').where('record_id', '=', licenseId).executeTakeFirstOrThrow();
        expect(JSON.parse(licenseChange.new_values!)).toEqual({ revoked: true });

        const history = await t.app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', 'User').where('record_id', '=', user.id).orderBy('id').execute();
        expect(history.map((e) => e.operation)).toEqual(['insert', 'update', 'delete']);
        const serialized = JSON.stringify(history);
        for (const personal of [user.email, 'Closing', 'Person', 'Gone Ltd', 'Nowhere']) expect(serialized).not.toContain(personal);

        // The address is free for a new registration.
        await registerAccount(t.app, { email: user.email });
      });

      it('lets an administrator close any account; customers and distributors get 404 for foreign ones', async () => {
        const admin = await loggedIn(t.app, 'ADMIN');
        const victim = await createUser(t.app);
        for (const role of ['USER', 'DISTRIBUTOR'] as const) {
          const caller = await loggedIn(t.app, role);
          expectError(await client(t.app, caller.cookie).delete(`/api/users/${victim.id}`), 404, 'ERR_NOT_FOUND');
        }
        const response = await client(t.app, admin.cookie).delete(`/api/users/${victim.id}`);
        expect(response.statusCode).toBe(204);
        expect(response.cookies.find((c) => c.name === 'lm_session')).toBeUndefined();
        expectError(await client(t.app, admin.cookie).delete(`/api/users/${victim.id}`), 404, 'ERR_NOT_FOUND');
        const entry = await t.app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', 'User').where('record_id', '=', victim.id).where('operation', '=', 'delete').executeTakeFirstOrThrow();
        expect(entry.user_id).toBe(admin.id);
      });

      it('closes an account whose placeholder address someone registered first (it has a random part)', async () => {
        const user = await loggedIn(t.app);
        const squatter = await registerAccount(t.app, { email: `closed-${user.id}@closed.invalid` });
        expect(squatter.email).toBe(`closed-${user.id}@closed.invalid`);
        expect((await client(t.app, user.cookie).delete(`/api/users/${user.id}`)).statusCode).toBe(204);
      });

      it('refuses anonymous callers with 401 and bad ids with 400', async () => {
        const user = await loggedIn(t.app);
        expectError(await client(t.app).delete(`/api/users/${user.id}`), 401, 'ERR_UNAUTHENTICATED');
        expectError(await client(t.app, user.cookie).delete('/api/users/none'), 400, 'ERR_VALIDATION');
      });
    });
  },
  { env: { DATA_DIR: privateDataDir() } },
);
