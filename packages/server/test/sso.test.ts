import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createUser, describeBothDatabases, expectError, login, request, sessionCookieOf, uniqueEmail, type Harness } from './harness.ts';
import { followProvider, startTestProvider, type TestAccount, type TestProvider } from './oidc-test-provider.ts';
import { forgetProviders } from '../src/modules/sso/provider.ts';
import { nameBreakGlassAdministrator } from '../src/modules/sso/policy.ts';
import { hashToken } from '../src/platform/auth/secrets.ts';

const STATE_COOKIE = 'lm_sso_state';
const SECOND_FACTOR_COOKIE = 'lm_sso_second_factor';
const totp = (secret: string, offsetSteps = 0) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });

describeBothDatabases('single sign-on (OpenID Connect)', (t: Harness) => {
  let provider: TestProvider;
  let adminCookie: string;
  let account = 0;

  const setSetting = async (key: string, value: unknown) => {
    const response = await request(t.app, 'PUT', `/api/settings/${key}`, { cookie: adminCookie, body: { value } });
    expect(response.statusCode, response.body).toBe(204);
  };
  const newAccount = (claims: Partial<TestAccount> = {}) => {
    const id = `person-${++account}-${t.kind}`;
    provider.accounts.set(id, { email: uniqueEmail('sso'), email_verified: true, given_name: 'Dana', family_name: 'Doe', groups: [], ...claims });
    return id;
  };

  /** Signs in as the provider's account through /api/sso/login and the callback; the callback's redirect and session cookie. */
  async function ssoSignIn(accountId: string, options: { cookie?: string; amr?: string[]; start?: () => Promise<{ url: string; state: string }>; beforeCallback?: (state: string) => Promise<void> } = {}) {
    provider.nextLogin = { accountId, ...(options.amr ? { amr: options.amr } : {}) };
    let url: string;
    let state: string;
    if (options.start) ({ url, state } = await options.start());
    else {
      const start = await request(t.app, 'GET', '/api/sso/login');
      expect(start.statusCode, start.body).toBe(302);
      url = String(start.headers.location);
      state = start.cookies.find((cookie) => cookie.name === STATE_COOKIE)?.value ?? '';
      if (!url.startsWith(provider.issuer)) return { location: url, cookie: null };
    }
    const back = new URL(await followProvider(provider, url));
    expect(back.pathname).toBe('/api/sso/callback');
    await options.beforeCallback?.(state);
    const cookies = [`${STATE_COOKIE}=${state}`, ...(options.cookie ? [options.cookie] : [])].join('; ');
    const done = await request(t.app, 'GET', back.pathname + back.search, { headers: { cookie: cookies } });
    expect(done.statusCode, done.body).toBe(302);
    const secondFactor = done.cookies.find((cookie) => cookie.name === SECOND_FACTOR_COOKIE)?.value;
    return { location: String(done.headers.location), cookie: sessionCookieOf(done), ...(secondFactor ? { secondFactor } : {}) };
  }
  const sessionOf = async (cookie: string | null) => (await request(t.app, 'GET', '/api/session', { cookie })).json() as { id: number | null; accessRole: string | null; username: string | null };

  beforeAll(async () => {
    provider = await startTestProvider([`${t.config.publicUrl}/api/sso/callback`]);
    const admin = await createUser(t.app, { role: 'ADMIN' });
    adminCookie = await login(t.app, admin.email);
  });
  afterAll(async () => {
    forgetProviders();
    await provider?.close();
  });

  it('offers nothing until it is set up; only an administrator sets it up, and the client secret is never shown', async () => {
    expect((await request(t.app, 'GET', '/api/sso/status')).json()).toEqual({ enabled: false, label: null, requiredForStaff: false });
    expect((await ssoSignIn('nobody')).location).toBe('/login?ssoError=ERR_SSO_NOT_CONFIGURED');
    const distributor = await createUser(t.app, { role: 'DISTRIBUTOR' });
    expectError(await request(t.app, 'PUT', '/api/settings/sso.issuer', { cookie: await login(t.app, distributor.email), body: { value: provider.issuer } }), 403, 'ERR_FORBIDDEN');
    expectError(await request(t.app, 'PUT', '/api/settings/sso.roleMapping', { cookie: adminCookie, body: { value: { staff: 'OWNER' } } }), 400, 'ERR_VALIDATION');

    await setSetting('sso.issuer', provider.issuer);
    await setSetting('sso.clientId', provider.clientId);
    await setSetting('sso.clientSecret', provider.clientSecret);
    await setSetting('sso.scopes', 'openid email profile groups');
    await setSetting('sso.roleMapping', { 'lm-distributors': 'DISTRIBUTOR', 'lm-admins': 'ADMIN' });
    await setSetting('sso.provisioning', true);
    await setSetting('sso.buttonLabel', 'Contoso');
    const settings = (await request(t.app, 'GET', '/api/settings', { cookie: adminCookie })).json() as Record<string, unknown>;
    expect(settings['sso.clientSecret']).toBe('********');
    const stored = await t.app.ctx.db.selectFrom('settings').select('value').where('key', '=', 'sso.clientSecret').executeTakeFirstOrThrow();
    if (t.config.secretKey) expect(stored.value).not.toContain(provider.clientSecret);
    expect((await request(t.app, 'GET', '/api/sso/status')).json()).toEqual({ enabled: true, label: 'Contoso', requiredForStaff: false });
  });

  it('provisions a distributor from a group at the first sign-in; a removed group demotes at the next one', async () => {
    const id = newAccount({ groups: ['lm-distributors', 'other'] });
    const first = await ssoSignIn(id);
    expect(first.location).toBe('/tans');
    const session = await sessionOf(first.cookie);
    expect(session).toMatchObject({ accessRole: 'DISTRIBUTOR', username: provider.accounts.get(id)?.email });
    expect((await request(t.app, 'GET', '/api/tans', { cookie: first.cookie })).statusCode).toBe(200);

    provider.accounts.get(id)!.groups = [];
    const second = await ssoSignIn(id);
    expect(await sessionOf(second.cookie)).toMatchObject({ id: session.id, accessRole: 'USER' });
    // The session of the first sign-in lost the rights as well: the role is read from the account.
    expect((await sessionOf(first.cookie)).accessRole).toBe('USER');
  });

  it('refuses, with nobody signed in: no group with a role, an unverified e-mail, an e-mail of an existing account', async () => {
    expect(await ssoSignIn(newAccount({ groups: ['other'] }))).toEqual({ location: '/login?ssoError=ERR_SSO_NO_ACCOUNT', cookie: null });
    expect(await ssoSignIn(newAccount({ groups: ['lm-admins'], email_verified: false }))).toEqual({ location: '/login?ssoError=ERR_SSO_EMAIL_NOT_VERIFIED', cookie: null });
    const victim = await createUser(t.app, { role: 'ADMIN' });
    // Same address as an administrator's: no sign-in, no link (an attacker controls their own claims at some providers).
    expect(await ssoSignIn(newAccount({ email: victim.email, groups: ['lm-admins'] }))).toEqual({ location: '/login?ssoError=ERR_SSO_LINK_REQUIRED', cookie: null });
    expect(await t.app.ctx.db.selectFrom('sso_identities').select('id').where('user_id', '=', victim.id).execute()).toEqual([]);
  });

  it("links an identity to an existing account only by that account's signed-in owner", async () => {
    const owner = await createUser(t.app, { role: 'DISTRIBUTOR' });
    const ownerCookie = await login(t.app, owner.email);
    const id = newAccount({ email: owner.email, groups: ['lm-distributors'] });
    expectError(await request(t.app, 'POST', '/api/account/sso'), 401, 'ERR_UNAUTHENTICATED');
    const start = async () => {
      const response = await request(t.app, 'POST', '/api/account/sso', { cookie: ownerCookie });
      expect(response.statusCode, response.body).toBe(200);
      return { url: (response.json() as { url: string }).url, state: response.cookies.find((cookie) => cookie.name === STATE_COOKIE)?.value ?? '' };
    };
    expect((await ssoSignIn(id, { start, cookie: ownerCookie })).location).toBe('/account/security?ssoLinked=1');
    const identities = (await request(t.app, 'GET', '/api/account/sso', { cookie: ownerCookie })).json() as { items: { id: number; issuer: string }[] };
    expect(identities.items).toMatchObject([{ issuer: provider.issuer }]);
    expect(await sessionOf((await ssoSignIn(id)).cookie)).toMatchObject({ id: owner.id, accessRole: 'DISTRIBUTOR' });

    // The same identity cannot be linked to a second account; another account cannot unlink it.
    const other = await createUser(t.app, { role: 'USER' });
    const otherCookie = await login(t.app, other.email);
    const startOther = async () => {
      const response = await request(t.app, 'POST', '/api/account/sso', { cookie: otherCookie });
      return { url: (response.json() as { url: string }).url, state: response.cookies.find((cookie) => cookie.name === STATE_COOKIE)?.value ?? '' };
    };
    expect((await ssoSignIn(id, { start: startOther, cookie: otherCookie })).location).toBe('/login?ssoError=ERR_SSO_IDENTITY_TAKEN');
    expectError(await request(t.app, 'DELETE', `/api/account/sso/${identities.items[0].id}`, { cookie: otherCookie }), 404, 'ERR_NOT_FOUND');
  });

  it('refuses a wrong state, a wrong nonce, an ID token signed with an unknown key and a clock beyond tolerance', async () => {
    const id = newAccount({ groups: ['lm-distributors'] });
    const failed = { location: '/login?ssoError=ERR_SSO_FAILED', cookie: null };
    // The state of another browser: the cookie does not match.
    provider.nextLogin = { accountId: id };
    const start = await request(t.app, 'GET', '/api/sso/login');
    const back = new URL(await followProvider(provider, String(start.headers.location)));
    const wrongState = await request(t.app, 'GET', back.pathname + back.search, { headers: { cookie: `${STATE_COOKIE}=something-else` } });
    expect(wrongState.headers.location).toBe(failed.location);
    expect(sessionCookieOf(wrongState)).toBeNull();
    // A wrong nonce: the ID token's nonce is not the one this sign-in sent.
    const beforeCallback = async (state: string) => {
      await t.app.ctx.db.updateTable('sso_logins').set({ nonce: 'not-the-nonce' }).where('state_hash', '=', hashToken(state)).execute();
    };
    expect(await ssoSignIn(id, { beforeCallback })).toEqual(failed);
    // An ID token signed with a key the provider does not publish.
    provider.foreignKeys = true;
    forgetProviders();
    try {
      expect(await ssoSignIn(id)).toEqual(failed);
    } finally {
      provider.foreignKeys = false;
      forgetProviders();
    }
    // A provider clock two hours behind: its ID token has expired on arrival.
    provider.clockSkewSeconds = -7200;
    try {
      expect(await ssoSignIn(id)).toEqual(failed);
    } finally {
      provider.clockSkewSeconds = 0;
    }
    expect((await ssoSignIn(id)).location).toBe('/tans');
  });

  it('refuses when discovery fails', async () => {
    await setSetting('sso.issuer', 'http://127.0.0.1:1');
    try {
      expect(await ssoSignIn('nobody')).toEqual({ location: '/login?ssoError=ERR_SSO_FAILED', cookie: null });
    } finally {
      await setSetting('sso.issuer', provider.issuer);
    }
  });

  it("asks the account's own second factor after the provider, unless the provider asserted one and is trusted to", async () => {
    const id = newAccount({ groups: ['lm-distributors'] });
    const first = await ssoSignIn(id);
    const api = (cookie: string | null) => ({ post: (url: string, body?: unknown) => request(t.app, 'POST', url, { cookie, ...(body ? { body } : {}) }) });
    const setup = (await api(first.cookie).post('/api/account/two-factor')).json() as { secret: string };
    const confirmed = await api(first.cookie).post('/api/account/two-factor/confirm', { code: totp(setup.secret) });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const recoveryCodes = confirmed.json().recoveryCodes as string[];
    const answer = (step: string | undefined, code: string) =>
      request(t.app, 'POST', '/api/sso/second-factor', { body: { code }, headers: step ? { cookie: `${SECOND_FACTOR_COOKIE}=${step}` } : {} });

    // The provider asserted nothing: nobody is signed in yet, the login page asks for the code.
    const waiting = await ssoSignIn(id);
    expect(waiting).toMatchObject({ location: '/login?ssoSecondFactor=1', cookie: null, secondFactor: expect.any(String) });
    expectError(await answer(waiting.secondFactor, '000000'), 401, 'ERR_TWO_FACTOR_INVALID');
    expectError(await answer(undefined, recoveryCodes[0]), 401, 'ERR_SSO_SECOND_FACTOR');
    const signedIn = await answer(waiting.secondFactor, recoveryCodes[0]);
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    expect(signedIn.json()).toEqual({ redirect: '/tans' });
    expect(await sessionOf(sessionCookieOf(signedIn))).toMatchObject({ accessRole: 'DISTRIBUTOR', username: provider.accounts.get(id)?.email });
    // A step signs in once.
    expectError(await answer(waiting.secondFactor, recoveryCodes[1]), 401, 'ERR_SSO_SECOND_FACTOR');

    // Five wrong codes end the step: the right one after them signs nobody in.
    const guessed = await ssoSignIn(id);
    for (let attempt = 1; attempt < 5; attempt++) expectError(await answer(guessed.secondFactor, '000000'), 401, 'ERR_TWO_FACTOR_INVALID');
    expectError(await answer(guessed.secondFactor, '000000'), 401, 'ERR_SSO_SECOND_FACTOR');
    expectError(await answer(guessed.secondFactor, recoveryCodes[1]), 401, 'ERR_SSO_SECOND_FACTOR');

    // The provider's assertion counts only when the setting trusts it (the default), and only for a second factor.
    expect((await ssoSignIn(id, { amr: ['pwd'] })).location).toBe('/login?ssoSecondFactor=1');
    const asserted = await ssoSignIn(id, { amr: ['pwd', 'otp'] });
    expect(asserted.location).toBe('/tans');
    expect(await sessionOf(asserted.cookie)).toMatchObject({ accessRole: 'DISTRIBUTOR' });
    await setSetting('sso.trustProviderMfa', false);
    try {
      expect((await ssoSignIn(id, { amr: ['mfa'] })).location).toBe('/login?ssoSecondFactor=1');
    } finally {
      await setSetting('sso.trustProviderMfa', true);
    }

    // An account closed while the login page asked for its code gets no session.
    const closing = await ssoSignIn(id);
    const userId = (await sessionOf(asserted.cookie)).id!;
    await t.app.ctx.db.updateTable('users').set({ closed_at: new Date().toISOString() }).where('id', '=', userId).execute();
    expectError(await answer(closing.secondFactor, recoveryCodes[2]), 403, 'ERR_SSO_NO_ACCOUNT');
  });

  it('with single sign-on required, refuses the password of staff but not of customers or the break-glass administrator', async () => {
    const distributor = await createUser(t.app, { role: 'DISTRIBUTOR' });
    const customer = await createUser(t.app, { role: 'USER' });
    const breakGlass = await createUser(t.app, { role: 'ADMIN' });
    expect(await nameBreakGlassAdministrator(t.app.ctx.db, distributor.email)).toMatch(/not an administrator/);
    expect(await nameBreakGlassAdministrator(t.app.ctx.db, breakGlass.email)).toBeNull();
    await setSetting('sso.requiredForStaff', true);
    try {
      expect((await request(t.app, 'GET', '/api/sso/status')).json()).toMatchObject({ requiredForStaff: true });
      expectError(await request(t.app, 'POST', '/api/session', { body: { username: distributor.email, password: distributor.password } }), 403, 'ERR_SSO_REQUIRED');
      // A wrong password answers as always: the refusal tells a guesser nothing about the role.
      expectError(await request(t.app, 'POST', '/api/session', { body: { username: distributor.email, password: 'wrong password!' } }), 401, 'ERR_LOGIN_FAILED');
      await login(t.app, customer.email);
      await login(t.app, breakGlass.email);
    } finally {
      await setSetting('sso.requiredForStaff', false);
    }
  });
});
