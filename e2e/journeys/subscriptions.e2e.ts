/**
 * Licensing as software is sold (issue 37), in Chromium: a floating policy that lets seats be
 * borrowed, a floating TAN with fewer seats than machines, a subscription's end and suspension set
 * by the administrator and seen by the customer, the staff's search over every license, a trial's
 * extend dialog that offers only what is left, and revoking a TAN together with its licenses.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';

const isoDaysFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const MACHINES = ['SITE-WS-01', 'SITE-WS-02', 'SITE-LAPTOP-03'];

describeJourney('subscriptions, floating seats and the staff’s license search', () => {
  const setup = journeySetup();
  let adminContext: BrowserContext;
  let admin: Page;
  let customerContext: BrowserContext;
  let customer: Page;
  let tan = { id: 0, code: '' };
  const product = { name: 'E2E Site CAD', version: '3.0' };

  beforeAll(async () => {
    adminContext = await newContext(setup.browser, setup.server, { viewport: { width: 1366, height: 768 } });
    admin = await adminContext.newPage();
    customerContext = await newContext(setup.browser, setup.server, { viewport: { width: 1366, height: 768 } });
    customer = await customerContext.newPage();
  });

  afterAll(async () => {
    await adminContext?.close();
    await customerContext?.close();
  });

  it('an administrator makes a floating policy whose seats may be borrowed for 14 days', async () => {
    await login(admin, ADMIN.email, ADMIN.password);
    await admin.goto('/license-policies/create');
    await admin.getByRole('textbox', { name: /^Name/ }).first().fill('SITE_FLOATING');
    await admin.getByRole('combobox', { name: /^Type/ }).click();
    await admin.getByRole('option', { name: 'Floating' }).click();
    await admin.getByRole('textbox', { name: 'Name shown to customers' }).fill('Site license');
    await admin.getByRole('textbox', { name: /^Borrowing for offline use/ }).fill('14');
    await screenshot(admin, 'subscriptions-policy-borrowing');
    await admin.getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(async () => ((await (await admin.request.get('/api/license-policies?limit=100')).json()) as { items: { name: string; maxBorrowDays: number }[] }).items.find((p) => p.name === 'SITE_FLOATING')?.maxBorrowDays).toBe(14);
  });

  it('a customer activates a 2-seat floating TAN on three machines; the cards say who holds a seat', async () => {
    const policies = (await (await admin.request.get('/api/license-policies?limit=100')).json()) as { items: { id: number; name: string }[] };
    const policyId = policies.items.find((p) => p.name === 'SITE_FLOATING')!.id;
    const created = await admin.request.post('/api/products', { data: { ...product, active: true, trialDays: 14, releaseDate: '2025-01-01', defaultLicensePolicyId: policyId } });
    expect(created.status(), await created.text()).toBe(201);
    const tans = await admin.request.post('/api/tans?count=1', { data: { productId: ((await created.json()) as { id: number }).id, licenseCount: 2, validUntil: isoDaysFromToday(30) } });
    expect(tans.status(), await tans.text()).toBe(201);
    tan = ((await tans.json()) as { items: { id: number; code: string }[] }).items[0];

    const account = createAccount(setup.server, 'site-admin@e2e.test', 'USER');
    await login(customer, account.email, account.password);
    for (const machineId of MACHINES) {
      const activated = await customer.request.post('/api/licenses/activate', { data: { tan: tan.code, machineId } });
      expect(activated.status(), await activated.text()).toBe(201);
    }
    // Two workstations start the software: both get a seat, the laptop none.
    for (const machineId of MACHINES.slice(0, 2)) expect((await customer.request.post('/api/client/v1/license', { data: { machineId, product: product.name } })).status()).toBe(200);
    expect((await customer.request.post('/api/client/v1/license', { data: { machineId: MACHINES[2], product: product.name } })).status()).toBe(409);

    await customer.goto('/account/licenses');
    await expect.poll(() => customer.getByTestId('license-card').count()).toBe(3);
    await expect.poll(() => customer.getByTestId('license-seat').getByText('In use on this machine').count()).toBe(2);
    // The TAN's end was set by hand, not by a shop subscription: never described as renewed with each payment.
    await expect.poll(() => customer.getByTestId('license-valid-until').count()).toBe(3);
    expect(await customer.getByTestId('license-subscription').count()).toBe(0);
    await screenshot(customer, 'subscriptions-customer-seats');
  });

  it('the administrator suspends the TAN; the customer’s cards say so and the software gets no file', async () => {
    await admin.goto('/tans');
    const row = admin.getByTestId('tan-row').first();
    // The TAN's licenses say which machines hold a seat now.
    await row.getByRole('button', { name: /licenses/ }).click();
    const activations = admin.getByRole('dialog');
    await expect.poll(() => activations.getByTestId('tan-seats-in-use').textContent()).toBe('2 of 2 seats in use now');
    expect(await activations.getByTestId('tan-license-seat').getByText('In use now', { exact: true }).count()).toBe(2);
    await screenshot(admin, 'subscriptions-tan-seats');
    await activations.getByRole('button', { name: 'Close' }).first().click();
    await row.getByRole('button', { name: 'Edit' }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByLabel('Suspended').check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => row.getByText('Suspended', { exact: true }).isVisible()).toBe(true);
    expect(await row.getByText('seats').isVisible()).toBe(true);
    await screenshot(admin, 'subscriptions-tan-list-suspended');

    await customer.reload();
    await expect.poll(() => customer.getByTestId('license-suspended').count()).toBe(3);
    const refused = await customer.request.post('/api/client/v1/license', { data: { machineId: MACHINES[0], product: product.name } });
    expect(refused.status()).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe('ERR_LICENSE_SUSPENDED');
    await screenshot(customer, 'subscriptions-customer-suspended');
  });

  it('the administrator finds a license by its machine id on the Licenses page, in German too', async () => {
    await admin.goto('/licenses');
    await admin.getByPlaceholder('Machine ID, TAN, owner or e-mail').fill(MACHINES[2]);
    await expect.poll(() => admin.getByTestId('license-row').count()).toBe(1);
    expect(await admin.getByTestId('license-row').getByText('site-admin@e2e.test').isVisible()).toBe(true);
    await screenshot(admin, 'subscriptions-staff-search');

    const german = await newContext(setup.browser, setup.server, { locale: 'de-DE', viewport: { width: 390, height: 844 } });
    const page = await german.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    await page.goto('/licenses');
    await page.getByPlaceholder('Rechner-ID, TAN, Inhaber oder E-Mail').fill('site-admin@e2e.test');
    await expect.poll(() => page.getByTestId('license-row').count()).toBe(3);
    await expect.poll(() => page.getByText('Ausgesetzt', { exact: true }).count()).toBeGreaterThan(0);
    await screenshot(page, 'subscriptions-staff-search-de-phone');
    await german.close();
  });

  it('a distributor sees only the licenses of its own TANs and suspends one of them, in French', async () => {
    const products = (await (await admin.request.get('/api/products?limit=100')).json()) as { items: { id: number; name: string }[] };
    const productId = products.items.find((p) => p.name === product.name)!.id;
    const distributor = createAccount(setup.server, 'reseller@e2e.test', 'DISTRIBUTOR');
    const users = (await (await admin.request.get('/api/users?filter=reseller%40e2e.test')).json()) as { items: { id: number }[] };
    const made = await admin.request.post('/api/tans?count=1', { data: { productId, licenseCount: 1, distributorId: users.items[0].id } });
    const own = ((await made.json()) as { items: { id: number; code: string }[] }).items[0];
    expect((await customer.request.post('/api/licenses/activate', { data: { tan: own.code, machineId: 'RESOLD-PC-1' } })).status()).toBe(201);

    const context = await newContext(setup.browser, setup.server, { locale: 'fr-FR', viewport: { width: 1366, height: 768 } });
    const page = await context.newPage();
    await login(page, distributor.email, distributor.password);
    await page.goto('/licenses');
    await expect.poll(() => page.getByTestId('license-row').count()).toBe(1);
    expect(await page.getByTestId('license-machine').textContent()).toBe('RESOLD-PC-1');
    await page.goto('/tans');
    await page.getByTestId('tan-row').first().getByRole('button', { name: 'Modifier' }).click();
    await page.getByRole('dialog').getByLabel('Suspendu').check();
    await page.getByRole('dialog').getByRole('button', { name: 'Enregistrer' }).click();
    await expect.poll(() => page.getByTestId('tan-row').first().getByText('Suspendu', { exact: true }).isVisible()).toBe(true);
    await screenshot(page, 'subscriptions-distributor-fr');
    await context.close();
    expect((await customer.request.post('/api/client/v1/license', { data: { machineId: 'RESOLD-PC-1', product: product.name } })).status()).toBe(403);
  });

  it('revoking the TAN asks whether its three licenses go too, and revokes them with it', async () => {
    await admin.goto('/tans');
    await admin.getByTestId('tan-row').filter({ hasText: tan.code.replace(/(.{4})(?=.)/g, '$1-') }).getByRole('button', { name: 'Revoke' }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByLabel('Also revoke the 3 licenses activated with it (a leaked or refunded TAN)').check();
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await customer.reload();
    await expect.poll(() => customer.getByTestId('license-card').getByText('Revoked', { exact: true }).count()).toBe(3);
  });

  it('a trial’s extend dialog offers only what is left up to its start plus the trial period', async () => {
    const products = (await (await admin.request.get('/api/products?limit=100')).json()) as { items: { id: number; name: string }[] };
    const productId = products.items.find((p) => p.name === product.name)!.id;
    const trial = await customer.request.post('/api/licenses/temporary', { data: { productId, machineId: 'TRIAL-PC-9', validUntil: isoDaysFromToday(10) } });
    expect(trial.status(), await trial.text()).toBe(201);
    await customer.reload();
    const card = customer.getByTestId('license-card').filter({ hasText: 'TRIAL-PC-9' });
    await card.getByRole('button', { name: 'Extend' }).click();
    const dialog = customer.getByRole('dialog');
    await expect.poll(() => dialog.getByText('A trial can run until').isVisible()).toBe(true);
    // 14 trial days from today, 10 used: 4 days left; weeks and months are offered, and refused.
    expect(await dialog.getByRole('radio', { name: 'Weeks' }).count()).toBe(1);
    await dialog.getByLabel('Extend by').fill('5');
    await dialog.getByRole('button', { name: 'Extend' }).click();
    await expect.poll(() => dialog.getByText('At most 4 (Days)').isVisible()).toBe(true);
    await expect.poll(() => dialog.getByText('You cannot extend the license this far into the future', { exact: false }).isVisible()).toBe(true);
    await screenshot(customer, 'subscriptions-extend-dialog');
    await dialog.getByLabel('Extend by').fill('4');
    await dialog.getByRole('button', { name: 'Extend' }).click();
    await expect.poll(() => customer.getByText('License extended').isVisible()).toBe(true);
  });
});
