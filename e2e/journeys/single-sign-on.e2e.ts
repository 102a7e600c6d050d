/**
 * Issue 54: staff sign in through their company's identity provider (a real OpenID Connect provider,
 * oidc-provider on 127.0.0.1), and a refusal for no seat leaves a trace on the license's timeline.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, screenshot, type TestServer } from '../harness.ts';
import { openDatabase } from '../../packages/server/src/platform/db/database.ts';
import * as OTPAuth from 'otpauth';
import { startTestProvider, type TestProvider } from '../../packages/server/test/oidc-test-provider.ts';

/** A floating license of one seat held by one machine, and a second license of the customer that finds no seat. */
async function seedFloatingPool(server: TestServer, email: string) {
  const url = server.env.DATABASE_URL;
  const database = openDatabase(url?.startsWith('postgres') ? { kind: 'postgres', url } : { kind: 'sqlite', file: path.join(server.dataDir, 'license-manager.db') });
  try {
    const { db } = database;
    const now = new Date().toISOString();
    const owner = await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const product = await db.insertInto('products').values({ name: 'Floating CAD', version: '1.0', active: true, release_date: now.slice(0, 10), created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
    const policy = await db.selectFrom('license_policies').select('id').where('name', '=', 'FLOATING_DEFAULT').executeTakeFirstOrThrow();
    const tan = await db
      .insertInto('tans')
      .values({ code: 'sso0e2e0tan0', product_id: product.id, license_policy_id: policy.id, license_count: 1, activated_count: 0, distributor_id: null, revoked: false, free_updates_until: null, notes: null, created_by: null, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const license = (machineId: string) =>
      db
        .insertInto('licenses')
        .values({ kind: 'TAN', owner_id: owner.id, product_id: product.id, license_policy_id: policy.id, tan_id: tan.id, machine_id: machineId, permanent: true, revoked: false, free_updates_until: null, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
    await license('workstation-1');
    await license('workstation-2');
  } finally {
    await database.close();
  }
}

describeJourney('single sign-on for staff, and the trace of a refusal', () => {
  const setup = journeySetup();
  let provider: TestProvider;
  let admin: BrowserContext;

  const setSetting = async (key: string, value: unknown) => {
    const response = await admin.request.put(`/api/settings/${key}`, { data: { value } });
    expect(response.status(), await response.text()).toBe(204);
  };
  /** Signs in with "Sign in with …" on the login page of a fresh browser profile. */
  const signInThroughProvider = async (accountId: string, options: { locale?: string } = {}): Promise<Page> => {
    provider.nextLogin = { accountId };
    const context = await newContext(setup.browser, setup.server, options.locale ? { locale: options.locale } : {});
    const page = await context.newPage();
    await page.goto('/login');
    await page.getByTestId('sso-login').click();
    // Through the provider and back: a page of the app again (the login page again only with its error, or asking the code).
    const origin = new URL(setup.server.url).origin;
    await page.waitForURL((url) => url.origin === origin && !url.pathname.startsWith('/api/') && (url.pathname !== '/login' || url.searchParams.has('ssoError') || url.searchParams.has('ssoSecondFactor')));
    return page;
  };

  beforeAll(async () => {
    provider = await startTestProvider([`${setup.server.url}/api/sso/callback`]);
    admin = await newContext(setup.browser, setup.server);
    const session = await admin.request.post('/api/session', { data: { username: ADMIN.email, password: ADMIN.password } });
    expect(session.status(), await session.text()).toBe(200);
    await setSetting('sso.issuer', provider.issuer);
    await setSetting('sso.clientId', provider.clientId);
    await setSetting('sso.clientSecret', provider.clientSecret);
    await setSetting('sso.scopes', 'openid email profile groups');
    await setSetting('sso.roleMapping', { resellers: 'DISTRIBUTOR' });
    await setSetting('sso.provisioning', true);
    await setSetting('sso.buttonLabel', 'Contoso');
  });
  afterAll(async () => {
    await admin?.close();
    await provider?.close();
  });

  it('provisions a distributor who lands on their TANs; a removed group demotes at the next sign-in', async () => {
    provider.accounts.set('dana', { email: 'dana@contoso.e2e', email_verified: true, given_name: 'Dana', family_name: 'Reseller', groups: ['resellers'] });
    const page = await signInThroughProvider('dana');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/tans');
    expect(await (await page.request.get('/api/session')).json()).toMatchObject({ username: 'dana@contoso.e2e', accessRole: 'DISTRIBUTOR' });
    await screenshot(page, 'sso-distributor-tans');
    await page.context().close();

    provider.accounts.get('dana')!.groups = [];
    const again = await signInThroughProvider('dana');
    expect(await (await again.request.get('/api/session')).json()).toMatchObject({ username: 'dana@contoso.e2e', accessRole: 'USER' });
    expect((await again.request.get('/api/tans')).status()).toBe(403);
    await again.context().close();
  });

  it("asks a distributor's own second factor after the provider when it asserted none, in German", async () => {
    provider.accounts.set('dora', { email: 'dora@contoso.e2e', email_verified: true, given_name: 'Dora', family_name: 'Reseller', groups: ['resellers'] });
    const first = await signInThroughProvider('dora');
    await expect.poll(() => new URL(first.url()).pathname).toBe('/tans');
    const setup2fa = (await (await first.request.post('/api/account/two-factor')).json()) as { secret: string };
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(setup2fa.secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
    const confirmed = await first.request.post('/api/account/two-factor/confirm', { data: { code } });
    expect(confirmed.status(), await confirmed.text()).toBe(200);
    const { recoveryCodes } = (await confirmed.json()) as { recoveryCodes: string[] };
    await first.context().close();

    const page = await signInThroughProvider('dora', { locale: 'de-DE' });
    expect(new URL(page.url()).searchParams.get('ssoSecondFactor')).toBe('1');
    expect(await (await page.request.get('/api/session')).json()).toMatchObject({ id: null });
    await page.getByText('Ihr Firmenkonto hat bestätigt, wer Sie sind.', { exact: false }).waitFor();
    await page.getByTestId('sso-code').fill('000000');
    await page.getByTestId('sso-code').press('Enter');
    await page.getByTestId('sso-second-factor-error').waitFor();
    expect(await page.getByTestId('sso-second-factor-error').textContent()).toContain('Dieser Code stimmt nicht');
    await screenshot(page, 'sso-second-factor-de');
    await page.getByTestId('sso-code').fill(recoveryCodes[0]);
    await page.getByTestId('sso-code').press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/tans');
    expect(await (await page.request.get('/api/session')).json()).toMatchObject({ username: 'dora@contoso.e2e', accessRole: 'DISTRIBUTOR' });
    await page.context().close();
  });

  it('shows a translated error and signs nobody in when the provider has not verified the e-mail', async () => {
    provider.accounts.set('unverified', { email: 'eve@contoso.e2e', email_verified: false, groups: ['resellers'] });
    const page = await signInThroughProvider('unverified');
    await page.getByTestId('sso-error').waitFor();
    expect(await page.getByTestId('sso-error').textContent()).toContain('has not verified your e-mail address');
    expect(await (await page.request.get('/api/session')).json()).toMatchObject({ id: null });
    await page.context().close();
  });

  it('edits the groups-to-roles mapping in Settings: its lines in monospace under a plain label, Save only for a change', async () => {
    const page = await admin.newPage();
    await page.goto('/settings');
    const mapping = page.getByTestId('sso-role-mapping');
    const save = page.getByTestId('sso-role-mapping-save');
    await mapping.waitFor();
    const fonts = (await page.evaluate(
      `(() => { const input = document.querySelector('[data-testid=sso-role-mapping]'); return [getComputedStyle(input).fontFamily, getComputedStyle(document.querySelector('label[for="' + input.id + '"]')).fontFamily]; })()`,
    )) as [string, string];
    expect(fonts[0]).toMatch(/mono/i);
    expect(fonts[1]).not.toMatch(/mono/i);
    expect(await mapping.inputValue()).toBe('resellers = DISTRIBUTOR');
    expect(await save.isDisabled()).toBe(true);
    await mapping.fill('resellers=DISTRIBUTOR\nadmins  =ADMIN');
    expect(await save.isDisabled()).toBe(false);
    await save.click();
    // Saved, and shown as saved: one `group = role` a line, Save off again.
    await expect.poll(() => mapping.inputValue()).toBe('resellers = DISTRIBUTOR\nadmins = ADMIN');
    expect(await save.isDisabled()).toBe(true);
    expect((await (await admin.request.get('/api/settings')).json()) as unknown).toMatchObject({ 'sso.roleMapping': { resellers: 'DISTRIBUTOR', admins: 'ADMIN' } });
    await page.close();
    await setSetting('sso.roleMapping', { resellers: 'DISTRIBUTOR' });
  });

  it('refuses the password of staff when single sign-on is required; the break-glass administrator still gets in', async () => {
    const distributor = createAccount(setup.server, 'password-distributor@e2e.test', 'DISTRIBUTOR');
    setup.server.cli('sso:break-glass', '--email', ADMIN.email);
    await setSetting('sso.requiredForStaff', true);
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await page.goto('/login');
    await page.locator('main input[type=email]').first().fill(distributor.email);
    await page.locator('main input[type=password]').first().fill(distributor.password);
    await page.locator('main form button[type=submit]').first().click();
    await page.getByTestId('login-error').waitFor();
    expect(await page.getByTestId('login-error').textContent()).toContain('Staff sign in with their company account (single sign-on)');
    await screenshot(page, 'sso-required');
    await login(page, ADMIN.email, ADMIN.password);
    await context.close();
    await setSetting('sso.requiredForStaff', false);
  });

  it("shows a customer's refusal for no seat with time and machine on the license's timeline", async () => {
    const customer = createAccount(setup.server, 'floating-customer@e2e.test', 'USER');
    await seedFloatingPool(setup.server, customer.email);
    const fetchLicense = (machineId: string) => fetch(`${setup.server.url}/api/client/v1/license`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ machineId, product: 'Floating CAD' }) });
    expect((await fetchLicense('workstation-1')).status).toBe(200);
    expect((await fetchLicense('workstation-2')).status).toBe(409);

    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, customer.email, customer.password);
    await page.goto('/account/licenses');
    await page.getByTestId('license-card').filter({ hasText: 'workstation-2' }).getByTestId('license-events-open').click();
    await page.getByTestId('license-timeline').waitFor();
    const timeline = await page.getByTestId('license-timeline').textContent();
    expect(timeline).toContain('No seat free');
    expect(timeline).toContain('workstation-2');
    await screenshot(page, 'license-timeline-no-seat');
    await context.close();
  });
});
