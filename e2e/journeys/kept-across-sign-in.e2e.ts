/**
 * A change is kept across the sign-in (issue 47): an administrator has a TAN's dialog open while the
 * session is ended from another browser ("end other sessions"); saving the note leads to the sign-in,
 * and once signed in again the TAN list offers the change as it was typed: "Send again" saves it
 * without retyping. Nothing secret is kept in the tab's storage.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';

describeJourney('a change kept across the sign-in', () => {
  const setup = journeySetup();
  let context: BrowserContext;
  let admin: Page;
  let tanId = 0;

  beforeAll(async () => {
    context = await newContext(setup.browser, setup.server, { viewport: { width: 1366, height: 900 } });
    admin = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
  });

  it('a note saved after the session ended elsewhere is saved after signing in again, without retyping', async () => {
    await login(admin, ADMIN.email, ADMIN.password);
    const policies = (await (await admin.request.get('/api/license-policies?limit=1')).json()) as { items: { id: number }[] };
    const product = await admin.request.post('/api/products', { data: { name: 'E2E Kept', version: '1.0', active: true, releaseDate: '2025-01-01', defaultLicensePolicyId: policies.items[0].id } });
    expect(product.status(), await product.text()).toBe(201);
    const created = await admin.request.post('/api/tans?count=1', { data: { productId: ((await product.json()) as { id: number }).id, licenseCount: 1 } });
    expect(created.status(), await created.text()).toBe(201);
    tanId = ((await created.json()) as { items: { id: number }[] }).items[0].id;

    await admin.goto('/tans');
    const loaded = admin.waitForResponse((response) => response.url().endsWith(`/api/tans/${tanId}`) && response.request().method() === 'GET');
    await admin.getByTestId('tan-row').first().getByRole('button', { name: 'Edit' }).click();
    await loaded;
    const dialog = admin.getByRole('dialog', { name: /Edit TAN/ });

    await dialog.getByLabel('Notes').fill('Kept across the sign-in');
    // Meanwhile another browser of the same administrator (no page: nothing takes the focus) ends every other session.
    const other = await newContext(setup.browser, setup.server);
    const signedIn = await other.request.post('/api/session', { data: { username: ADMIN.email, password: ADMIN.password } });
    expect(signedIn.status(), await signedIn.text()).toBe(200);
    expect((await other.request.delete('/api/account/sessions')).status()).toBe(204);
    await other.close();

    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => new URL(admin.url()).pathname).toBe('/login');
    expect(new URL(admin.url()).searchParams.get('returnUrl')).toBe('/tans');
    expect(await admin.getByTestId('login-change-kept').textContent()).toMatch(/change you sent was kept/);

    await admin.locator('main input[type=email]').first().fill(ADMIN.email);
    await admin.locator('main input[type=password]').first().fill(ADMIN.password);
    await admin.locator('main form button[type=submit]').first().click();
    await expect.poll(() => new URL(admin.url()).pathname).toBe('/tans');
    const kept = admin.getByTestId('kept-change');
    await kept.waitFor();
    await screenshot(admin, 'kept-across-sign-in');
    // The tab keeps the change, never the password.
    const stored = await admin.evaluate(() => JSON.stringify(sessionStorage));
    expect(stored).toContain('Kept across the sign-in');
    expect(stored).not.toContain(ADMIN.password);

    await kept.getByRole('button', { name: 'Send again' }).click();
    await expect.poll(() => kept.count()).toBe(0);
    const tan = (await (await admin.request.get(`/api/tans/${tanId}`)).json()) as { notes: string | null };
    expect(tan.notes).toBe('Kept across the sign-in');
    expect(await admin.evaluate(() => sessionStorage.getItem('lm.keptChange'))).toBeNull();
  });
});
