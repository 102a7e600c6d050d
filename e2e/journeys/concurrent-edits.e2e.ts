/**
 * Nobody's save undoes another's (issue 47), in Chromium: an administrator has a TAN's dialog open
 * while a shop's renewal changes the TAN; saving a note shows what changed instead of reverting the
 * renewal, and "Apply my changes again" saves the note on top of it. A second conflict is answered
 * with "Reload", which shows the TAN as it is now. A customer's consent withdrawn while an
 * administrator edits the account stays withdrawn, and a license revoked meanwhile stays revoked.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';

const isoDaysFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

interface Tan {
  id: number;
  code: string;
  notes: string | null;
  validUntil: string | null;
  suspended: boolean;
}

describeJourney('concurrent edits', () => {
  const setup = journeySetup();
  let context: BrowserContext;
  let admin: Page;
  let tan: Tan;
  let productId = 0;

  const stored = async () => (await (await admin.request.get(`/api/tans/${tan.id}`)).json()) as Tan;

  /** Opens the TAN's dialog and waits until it has loaded the TAN's current version (its ETag). */
  async function openDialog() {
    await admin.goto('/tans');
    const row = admin.getByTestId('tan-row').first();
    const loaded = admin.waitForResponse((response) => response.url().endsWith(`/api/tans/${tan.id}`) && response.request().method() === 'GET');
    await row.getByRole('button', { name: 'Edit' }).click();
    await loaded;
    return admin.getByRole('dialog', { name: /Edit TAN/ });
  }

  beforeAll(async () => {
    context = await newContext(setup.browser, setup.server, { viewport: { width: 1366, height: 900 } });
    admin = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
  });

  it('an administrator has a TAN with a subscription end', async () => {
    await login(admin, ADMIN.email, ADMIN.password);
    const policies = (await (await admin.request.get('/api/license-policies?limit=1')).json()) as { items: { id: number }[] };
    const product = await admin.request.post('/api/products', { data: { name: 'E2E Concurrent', version: '1.0', active: true, releaseDate: '2025-01-01', defaultLicensePolicyId: policies.items[0].id } });
    expect(product.status(), await product.text()).toBe(201);
    const created = await admin.request.post('/api/tans?count=1', { data: { productId: ((await product.json()) as { id: number }).id, licenseCount: 1, validUntil: isoDaysFromToday(10) } });
    expect(created.status(), await created.text()).toBe(201);
    productId = ((await product.json()) as { id: number }).id;
    tan = ((await created.json()) as { items: Tan[] }).items[0];
  });

  it('a renewal made while the dialog was open is shown, not reverted; the note is applied again on top of it', async () => {
    const dialog = await openDialog();
    // The shop renews the subscription (no If-Match: integrations change records as before).
    const renewedUntil = isoDaysFromToday(40);
    const renewal = await admin.request.put(`/api/tans/${tan.id}`, { data: { validUntil: renewedUntil } });
    expect(renewal.status(), await renewal.text()).toBe(200);

    await dialog.getByLabel('Notes').fill('Called the customer');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const conflict = admin.getByRole('dialog', { name: 'Changed by someone else' });
    await conflict.waitFor();
    const changed = conflict.locator('tr[data-field="validUntil"]');
    expect(await changed.getByText('changed meanwhile').isVisible()).toBe(true);
    expect(await conflict.locator('tr[data-field="notes"]').getByText('Called the customer').isVisible()).toBe(true);
    await screenshot(admin, 'concurrent-edits-conflict');
    // Nothing was saved yet.
    expect(await stored()).toMatchObject({ notes: null, validUntil: renewedUntil });

    await conflict.getByRole('button', { name: 'Apply my changes again' }).click();
    await expect.poll(() => admin.getByRole('dialog').count()).toBe(0);
    expect(await stored()).toMatchObject({ notes: 'Called the customer', validUntil: renewedUntil });
  });

  it('"Reload" shows the TAN as it is now, with a suspension made meanwhile', async () => {
    const dialog = await openDialog();
    expect((await admin.request.put(`/api/tans/${tan.id}`, { data: { suspended: true } })).status()).toBe(200);
    await dialog.getByLabel('Notes').fill('Will lift the suspension');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const conflict = admin.getByRole('dialog', { name: 'Changed by someone else' });
    await conflict.waitFor();
    expect(await conflict.locator('tr[data-field="suspended"]').getByText('changed meanwhile').isVisible()).toBe(true);
    await conflict.getByRole('button', { name: 'Reload' }).click();
    await expect.poll(() => conflict.count()).toBe(0);
    expect(await dialog.getByLabel('Suspended').isChecked()).toBe(true);
    expect(await dialog.getByLabel('Notes').inputValue()).toBe('Called the customer');
    expect(await stored()).toMatchObject({ suspended: true, notes: 'Called the customer' });
  });

  it("a customer's consent withdrawn while the administrator's dialog was open stays withdrawn", async () => {
    const account = createAccount(setup.server, 'consent@e2e.test', 'USER');
    const users = (await (await admin.request.get('/api/users', { params: { filter: account.email } })).json()) as { items: { id: number }[] };
    const userId = users.items[0].id;
    expect((await admin.request.post(`/api/users/${userId}/consent/email`)).status()).toBe(200);
    await admin.goto('/users');
    const loaded = admin.waitForResponse((response) => response.url().endsWith(`/api/users/${userId}`) && response.request().method() === 'GET');
    await admin.getByRole('button', { name: `Edit ${account.email}` }).click();
    await loaded;
    const dialog = admin.getByRole('dialog', { name: /^Edit/ });
    // The customer withdraws the consent (My account) while the dialog is open.
    expect((await admin.request.delete(`/api/users/${userId}/consent/email`)).status()).toBe(200);
    await dialog.getByLabel('Phone').fill('+41 44 000 00 00');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const conflict = admin.getByRole('dialog', { name: 'Changed by someone else' });
    await conflict.waitFor();
    expect(await conflict.locator('tr[data-field="optInEmail"]').getByText('changed meanwhile').isVisible()).toBe(true);
    await conflict.getByRole('button', { name: 'Apply my changes again' }).click();
    await expect.poll(() => admin.getByRole('dialog').count()).toBe(0);
    const stored = (await (await admin.request.get(`/api/users/${userId}`)).json()) as { phone: string; optInEmail: boolean };
    expect(stored).toMatchObject({ phone: '+41 44 000 00 00', optInEmail: false });
  });

  it('a license revoked while its dialog was open stays revoked', async () => {
    const created = await admin.request.post('/api/tans?count=1', { data: { productId, licenseCount: 1 } });
    const code = ((await created.json()) as { items: Tan[] }).items[0].code;
    const activated = await admin.request.post('/api/licenses/activate', { data: { tan: code, machineId: 'E2E-CONCURRENT-01' } });
    expect(activated.status(), await activated.text()).toBe(201);
    const licenseId = ((await activated.json()) as { id: number }).id;
    await admin.goto('/account/licenses');
    const card = admin.getByTestId('license-card').filter({ hasText: 'E2E-CONCURRENT-01' });
    const loaded = admin.waitForResponse((response) => response.url().endsWith(`/api/licenses/${licenseId}`) && response.request().method() === 'GET');
    await card.getByRole('button', { name: 'Edit' }).click();
    await loaded;
    const dialog = admin.getByRole('dialog', { name: /^Edit/ });
    expect((await admin.request.put(`/api/licenses/${licenseId}`, { data: { revoked: true } })).status()).toBe(200);
    await dialog.getByLabel('Permanent').check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    const conflict = admin.getByRole('dialog', { name: 'Changed by someone else' });
    await conflict.waitFor();
    expect(await conflict.locator('tr[data-field="revoked"]').getByText('changed meanwhile').isVisible()).toBe(true);
    await conflict.getByRole('button', { name: 'Apply my changes again' }).click();
    await expect.poll(() => admin.getByRole('dialog').count()).toBe(0);
    expect(await (await admin.request.get(`/api/licenses/${licenseId}`)).json()).toMatchObject({ revoked: true, permanent: true });
  });
});
