import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { TOKEN_LIMIT, WRONG_TOKEN_LIMIT } from '../src/modules/api-tokens/auth.ts';
import { callersOfEachRole, client, describeBothDatabases, expectError, loggedIn, request } from './harness.ts';
import { insertProduct } from './licensing-fixtures.ts';

async function createToken(app: App, cookie: string, body: Record<string, unknown> = { name: 'shop' }) {
  const response = await request(app, 'POST', '/api/api-tokens', { cookie, body });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: number; name: string; token: string; ownerId: number; expiresAt: string | null; lastUsedAt: string | null };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describeBothDatabases('API tokens', (t) => {
  const as = callersOfEachRole(t);

  it('shows a new token once and keeps only its SHA-256', async () => {
    const user = await loggedIn(t.app);
    const created = await createToken(t.app, user.cookie, { name: 'CRM sync' });
    expect(created.token).toMatch(/^lmat_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ name: 'CRM sync', ownerId: user.id, expiresAt: null, lastUsedAt: null });

    const list = await client(t.app, user.cookie).get('/api/api-tokens');
    expect(list.statusCode).toBe(200);
    expect(list.json().items.map((item: { id: number }) => item.id)).toEqual([created.id]);
    expect(list.body).not.toContain(created.token);

    const row = await t.app.ctx.db.selectFrom('api_tokens').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(createHash('sha256').update(created.token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(created.token.slice(5));
  });

  it('acts as its owner with the owner’s rules and no more, without cookie or CSRF check', async () => {
    const user = await loggedIn(t.app);
    const { token } = await createToken(t.app, user.cookie);
    const session = await request(t.app, 'GET', '/api/session', { headers: bearer(token) });
    expect(session.statusCode, session.body).toBe(200);
    expect(session.json()).toMatchObject({ id: user.id, username: user.email });
    // A customer's token cannot do what the customer cannot.
    expectError(await request(t.app, 'GET', '/api/users', { headers: bearer(token) }), 403, 'ERR_FORBIDDEN');
    expectError(await request(t.app, 'POST', '/api/tans', { headers: bearer(token), query: { count: '1' }, body: {} }), 400, 'ERR_VALIDATION');
    // A state-changing call from another origin passes with a token (no cookie is involved)…
    const changed = await request(t.app, 'PUT', `/api/users/${user.id}`, { headers: { ...bearer(token), origin: 'https://elsewhere.example' }, body: { firstName: 'Tokenized' } });
    expect(changed.statusCode, changed.body).toBe(200);
    // …and a session cookie from there is still refused.
    expectError(await request(t.app, 'PUT', `/api/users/${user.id}`, { cookie: user.cookie, headers: { origin: 'https://elsewhere.example' }, body: { firstName: 'x' } }), 403, 'ERR_CSRF');
    // The change log names the token.
    const admin = await client(t.app, as.cookies.ADMIN).get('/api/changes/User', { query: { recordId: String(user.id), sort: '-timestamp' } });
    expect(admin.json().items[0]).toMatchObject({ userId: user.id, tokenName: 'shop', newValues: { firstName: 'Tokenized' } });
  });

  it('records when a token was last used', async () => {
    const user = await loggedIn(t.app);
    const created = await createToken(t.app, user.cookie);
    await request(t.app, 'GET', '/api/session', { headers: bearer(created.token) });
    const list = await client(t.app, user.cookie).get('/api/api-tokens');
    expect(Date.parse(list.json().items[0].lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('refuses unknown, malformed, revoked and expired tokens with 401 ERR_INVALID_TOKEN, whatever cookie comes along', async () => {
    const user = await loggedIn(t.app);
    const created = await createToken(t.app, user.cookie, { name: 'short-lived', expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect(Date.parse(created.expiresAt!)).toBeGreaterThan(Date.now());
    expect((await request(t.app, 'GET', '/api/session', { headers: bearer(created.token) })).statusCode).toBe(200);

    for (const wrong of ['lmat_wrong', 'not-a-token', `${created.token}x`, '']) {
      expectError(await request(t.app, 'GET', '/api/session', { headers: { authorization: `Bearer ${wrong}` } }), 401, 'ERR_INVALID_TOKEN');
    }
    // A wrong token does not fall back to the session cookie sent with it.
    expectError(await request(t.app, 'GET', '/api/licenses', { cookie: user.cookie, headers: bearer('lmat_wrong') }), 401, 'ERR_INVALID_TOKEN');

    await t.app.ctx.db.updateTable('api_tokens').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', created.id).execute();
    expectError(await request(t.app, 'GET', '/api/session', { headers: bearer(created.token) }), 401, 'ERR_INVALID_TOKEN');

    const other = await createToken(t.app, user.cookie);
    const revoked = await client(t.app, user.cookie).delete(`/api/api-tokens/${other.id}`);
    expect(revoked.statusCode).toBe(204);
    expectError(await request(t.app, 'GET', '/api/session', { headers: bearer(other.token) }), 401, 'ERR_INVALID_TOKEN');
  });

  it('refuses an expiry in the past and a nameless token', async () => {
    const user = await loggedIn(t.app);
    expectError(await client(t.app, user.cookie).post('/api/api-tokens', { body: { name: 'x', expiresAt: new Date(Date.now() - 1000).toISOString() } }), 400, 'ERR_VALIDATION');
    expectError(await client(t.app, user.cookie).post('/api/api-tokens', { body: { name: '   ' } }), 400, 'ERR_VALIDATION');
    expectError(await client(t.app, null).post('/api/api-tokens', { body: { name: 'x' } }), 401, 'ERR_UNAUTHENTICATED');
    expectError(await client(t.app, null).get('/api/api-tokens'), 401, 'ERR_UNAUTHENTICATED');
  });

  it('lets an administrator list and revoke every account’s tokens, and nobody else see or revoke another’s', async () => {
    const owner = await loggedIn(t.app, 'DISTRIBUTOR');
    const stranger = await loggedIn(t.app, 'DISTRIBUTOR');
    const created = await createToken(t.app, owner.cookie, { name: 'reseller shop' });

    const strangerList = await client(t.app, stranger.cookie).get('/api/api-tokens');
    expect(strangerList.json().items).toEqual([]);
    expectError(await client(t.app, stranger.cookie).get('/api/api-tokens', { query: { ownerId: String(owner.id) } }), 403, 'ERR_FORBIDDEN');
    expectError(await client(t.app, stranger.cookie).delete(`/api/api-tokens/${created.id}`), 404, 'ERR_NOT_FOUND');

    const all = await as.admin.get('/api/api-tokens', { query: { ownerId: String(owner.id) } });
    expect(all.json().items).toEqual([expect.objectContaining({ id: created.id, ownerId: owner.id, ownerEmail: owner.email })]);
    const everyone = await as.admin.get('/api/api-tokens', { query: { limit: '1000' } });
    expect(everyone.json().items.map((item: { id: number }) => item.id)).toContain(created.id);
    expect((await as.admin.delete(`/api/api-tokens/${created.id}`)).statusCode).toBe(204);
    expectError(await request(t.app, 'GET', '/api/session', { headers: bearer(created.token) }), 401, 'ERR_INVALID_TOKEN');
    expectError(await as.admin.delete(`/api/api-tokens/${created.id}`), 404, 'ERR_NOT_FOUND');
  });

  it('cannot manage tokens with a token (a leaked token could otherwise outlive its revocation)', async () => {
    const admin = await loggedIn(t.app, 'ADMIN');
    const { token, id } = await createToken(t.app, admin.cookie);
    expectError(await request(t.app, 'POST', '/api/api-tokens', { headers: bearer(token), body: { name: 'child' } }), 403, 'ERR_FORBIDDEN');
    expectError(await request(t.app, 'GET', '/api/api-tokens', { headers: bearer(token) }), 403, 'ERR_FORBIDDEN');
    expectError(await request(t.app, 'DELETE', `/api/api-tokens/${id}`, { headers: bearer(token) }), 403, 'ERR_FORBIDDEN');
  });

  it('cannot change how its account signs in, or close it, with a token (a leaked token could otherwise take the account over for good)', async () => {
    const refusedWith = async (token: string, method: Parameters<typeof request>[1], url: string, body?: Record<string, unknown>) => {
      const answer = expectError(await request(t.app, method, url, { headers: bearer(token), body }), 403, 'ERR_FORBIDDEN');
      expect(answer.message).toContain('Sign in to do this');
    };
    for (const role of ['USER', 'ADMIN'] as const) {
      const owner = await loggedIn(t.app, role);
      const { token } = await createToken(t.app, owner.cookie);
      await refusedWith(token, 'POST', '/api/users/change-email', { email: `taken-over-${role}@evil.example` });
      // A customer may not change its e-mail this way at all; an administrator may, but not with a token.
      if (role === 'ADMIN') await refusedWith(token, 'PUT', `/api/users/${owner.id}`, { email: `taken-over-${role}@evil.example` });
      await refusedWith(token, 'PUT', '/api/account/password', { currentPassword: 'guess', newPassword: 'Another-long-password-1' });
      await refusedWith(token, 'GET', '/api/account/sessions');
      await refusedWith(token, 'DELETE', '/api/account/sessions');
      await refusedWith(token, 'DELETE', `/api/account/sessions/${'0'.repeat(24)}`);
      await refusedWith(token, 'POST', '/api/account/two-factor');
      await refusedWith(token, 'POST', '/api/account/two-factor/confirm', { code: '123456' });
      await refusedWith(token, 'DELETE', '/api/account/two-factor', { password: 'guess' });
      await refusedWith(token, 'POST', '/api/account/two-factor/recovery-codes', { password: 'guess' });
      await refusedWith(token, 'DELETE', `/api/users/${owner.id}`);
      // A wrong token gets the same answer there: it tells nothing about the token.
      await refusedWith('lmat_wrong', 'PUT', '/api/account/password', { currentPassword: 'guess', newPassword: 'Another-long-password-1' });

      // Nothing changed: the same e-mail, no pending change, the session alive, the account open.
      const session = await client(t.app, owner.cookie).get('/api/session');
      expect(session.json()).toMatchObject({ id: owner.id, username: owner.email });
      expect((await client(t.app, owner.cookie).get('/api/users/change-email')).json()).toEqual({ pending: null });
      // What else the owner may do stays open to the token.
      const renamed = await request(t.app, 'PUT', `/api/users/${owner.id}`, { headers: bearer(token), body: { firstName: 'Still', lastName: 'Mine' } });
      expect(renamed.statusCode, renamed.body).toBe(200);
    }

    // An administrator's token manages customers, but resets no one's second factor, makes no staff
    // account and moves no staff account's e-mail (where its password is reset).
    const admin = await loggedIn(t.app, 'ADMIN');
    const { token } = await createToken(t.app, admin.cookie);
    const customer = await loggedIn(t.app);
    const colleague = await loggedIn(t.app, 'DISTRIBUTOR');
    await refusedWith(token, 'DELETE', `/api/users/${customer.id}/two-factor`);
    const account = (accessRole: string) => ({ email: `made-${accessRole}-${customer.id}@example.com`, firstName: 'Made', lastName: 'ByToken', accessRole });
    await refusedWith(token, 'POST', '/api/users', account('ADMIN'));
    await refusedWith(token, 'POST', '/api/users', account('DISTRIBUTOR'));
    await refusedWith(token, 'PUT', `/api/users/${customer.id}`, { accessRole: 'ADMIN' });
    await refusedWith(token, 'PUT', `/api/users/${colleague.id}`, { email: `taken-over-${colleague.id}@evil.example` });
    expect((await request(t.app, 'POST', '/api/users', { headers: bearer(token), body: account('USER') })).statusCode).toBe(201);
    const moved = await request(t.app, 'PUT', `/api/users/${customer.id}`, { headers: bearer(token), body: { email: `moved-${customer.id}@example.com` } });
    expect(moved.statusCode, moved.body).toBe(200);
    expect((await request(t.app, 'DELETE', `/api/users/${customer.id}`, { headers: bearer(token) })).statusCode).toBe(204);
  });

  it("cannot take over another staff account or the security settings with an administrator's token", async () => {
    const refusedWith = async (token: string, method: Parameters<typeof request>[1], url: string, body?: Record<string, unknown>) => {
      const answer = expectError(await request(t.app, method, url, { headers: bearer(token), body }), 403, 'ERR_FORBIDDEN');
      expect(answer.message).toContain('Sign in to do this');
    };
    const admin = await loggedIn(t.app, 'ADMIN');
    const { token } = await createToken(t.app, admin.cookie);
    const otherAdmin = await loggedIn(t.app, 'ADMIN');
    const distributor = await loggedIn(t.app, 'DISTRIBUTOR');
    for (const staff of [otherAdmin, distributor]) {
      // Demoted, moved to another address (where "forgot password" then goes), its second factor reset, closed.
      await refusedWith(token, 'PUT', `/api/users/${staff.id}`, { accessRole: 'USER' });
      await refusedWith(token, 'PUT', `/api/users/${staff.id}`, { email: `taken-over-${staff.id}@evil.example` });
      await refusedWith(token, 'DELETE', `/api/users/${staff.id}/two-factor`);
      await refusedWith(token, 'DELETE', `/api/users/${staff.id}`);
      const session = await client(t.app, staff.cookie).get('/api/session');
      expect(session.statusCode, session.body).toBe(200);
      expect(session.json()).toMatchObject({ id: staff.id, username: staff.email, accessRole: staff === otherAdmin ? 'ADMIN' : 'DISTRIBUTOR' });
    }
    await refusedWith(token, 'PUT', `/api/users/${distributor.id}`, { accessRole: 'ADMIN' });
    // Nor its own: a role change or closing needs the person signed in.
    await refusedWith(token, 'PUT', `/api/users/${admin.id}`, { accessRole: 'DISTRIBUTOR' });

    // The two-factor requirement is set by an administrator signed in (with it on, this token would be
    // refused anyway, as its owner has no second factor: so it is tried with the requirement off).
    await refusedWith(token, 'PUT', '/api/settings/security.requireTwoFactor', { value: true });
    await refusedWith(token, 'PUT', '/api/settings/security.requireTwoFactor', { value: false });
    await refusedWith(token, 'DELETE', '/api/settings/security.requireTwoFactor');
    expect((await client(t.app, admin.cookie).get('/api/settings')).json()['security.requireTwoFactor']).toBeNull();
    // Other settings stay open to a token.
    expect((await request(t.app, 'PUT', '/api/settings/theme.productName', { headers: bearer(token), body: { value: 'Shop' } })).statusCode).toBe(204);
    expect((await request(t.app, 'DELETE', '/api/settings/theme.productName', { headers: bearer(token) })).statusCode).toBe(204);
  });

  it('lets a shop create TANs and read the licenses activated from them with a token', async () => {
    const shopOwner = await loggedIn(t.app, 'ADMIN');
    const { token } = await createToken(t.app, shopOwner.cookie, { name: 'webshop' });
    const product = await insertProduct(t.app);
    const created = await request(t.app, 'POST', '/api/tans', { headers: bearer(token), query: { count: '2' }, body: { productId: product.id, licenseCount: 1 } });
    expect(created.statusCode, created.body).toBe(201);
    const tans = created.json().items as { id: number; code: string }[];
    expect(tans).toHaveLength(2);

    const customer = await loggedIn(t.app);
    const activated = await client(t.app, customer.cookie).post('/api/licenses/activate', { body: { tan: tans[0].code, machineId: 'SHOP-MACHINE-1' } });
    expect(activated.statusCode, activated.body).toBe(201);

    const licenses = await request(t.app, 'GET', '/api/licenses', { headers: bearer(token), query: { tanId: String(tans[0].id) } });
    expect(licenses.statusCode, licenses.body).toBe(200);
    expect(licenses.json().items).toEqual([expect.objectContaining({ ownerId: customer.id, machineId: 'SHOP-MACHINE-1', tanId: tans[0].id })]);
    const tan = await request(t.app, 'GET', `/api/tans/${tans[0].id}`, { headers: bearer(token) });
    expect(tan.json()).toMatchObject({ activatedCount: 1 });
    // The TANs' change log names the token.
    const changes = await client(t.app, shopOwner.cookie).get('/api/changes/Tan', { query: { recordId: String(tans[1].id) } });
    expect(changes.json().items[0]).toMatchObject({ operation: 'insert', userId: shopOwner.id, tokenName: 'webshop' });
  });

  it('ends the tokens of a closed account', async () => {
    const user = await loggedIn(t.app);
    const { token } = await createToken(t.app, user.cookie);
    expect((await as.admin.delete(`/api/users/${user.id}`)).statusCode).toBe(204);
    expectError(await request(t.app, 'GET', '/api/session', { headers: bearer(token) }), 401, 'ERR_INVALID_TOKEN');
    expect(await t.app.ctx.db.selectFrom('api_tokens').selectAll().where('user_id', '=', user.id).execute()).toEqual([]);
  });

  it('declares the bearer scheme in the OpenAPI document', async () => {
    const doc = (await request(t.app, 'GET', '/api/openapi.json')).json();
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toContainEqual({ bearerAuth: [] });
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api-tokens', '/api-tokens/{id}']));
  });
});

describeBothDatabases(
  'API tokens: wrong tokens are limited per token and per address',
  (t) => {
    it(`refuses wrong tokens from an address after ${TOKEN_LIMIT.max} different ones, the right token still passes`, async () => {
      const user = await loggedIn(t.app);
      const { token } = await createToken(t.app, user.cookie);
      const from = (remoteAddress: string, value: string) => t.app.inject({ method: 'GET', url: '/api/session', remoteAddress, headers: bearer(value) });
      // Racing guesses are all counted.
      const guesses = await Promise.all(Array.from({ length: TOKEN_LIMIT.max }, (_, i) => from('203.0.113.7', `lmat_guess${i}`)));
      expect(guesses.map((response) => response.statusCode)).toEqual(Array(TOKEN_LIMIT.max).fill(401));
      const limited = await from('203.0.113.7', 'lmat_another');
      expectError(limited, 429, 'ERR_RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      // A right token behind the same address is not shut out by its neighbours' wrong ones.
      expect((await from('203.0.113.7', token)).statusCode).toBe(200);
      expect((await from('198.51.100.9', 'lmat_elsewhere')).statusCode).toBe(401);
    });

    it(`counts a broken integration's one stale token on its own: ${WRONG_TOKEN_LIMIT.max} tries, then 429 for that token only`, async () => {
      const user = await loggedIn(t.app);
      const { token } = await createToken(t.app, user.cookie);
      const from = (value: string) => t.app.inject({ method: 'GET', url: '/api/session', remoteAddress: '203.0.113.50', headers: bearer(value) });
      for (let i = 0; i < WRONG_TOKEN_LIMIT.max; i++) expect((await from('lmat_stale-integration')).statusCode).toBe(401);
      expectError(await from('lmat_stale-integration'), 429, 'ERR_RATE_LIMITED');
      // The address has one wrong token counted: a neighbour's typo and a neighbour's right token pass as ever.
      expect((await from('lmat_neighbour-typo')).statusCode).toBe(401);
      expect((await from(token)).statusCode).toBe(200);
    });
  },
  { config: { rateLimits: true } },
);
