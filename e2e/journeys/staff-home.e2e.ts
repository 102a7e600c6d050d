/**
 * The staff home (issue 49): an administrator (German, phone) and a distributor (English, laptop)
 * open the app to what needs them today; a figure leads to the list filtered to it. One server, one
 * browser, data made through the API.
 */
import { beforeAll, expect, it } from 'vitest';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';
import { outsideOf } from '../support/layout.ts';
import { text } from '../support/messages.ts';
import { seedProduct } from '../support/licensing-seed.ts';

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1366, height: 768 };

describeJourney('staff home', () => {
  const setup = journeySetup();
  const distributor = { email: 'home-distributor@e2e.test', password: 'secret-pass-1' };

  beforeAll(async () => {
    createAccount(setup.server, distributor.email, 'DISTRIBUTOR', distributor.password);
    createAccount(setup.server, 'home-customer@e2e.test', 'USER');
    const productId = await seedProduct(setup.server, 'Home Product', '1.0');
    // Two suspended TANs, one the distributor's; one of the distributor's ends in 3 days.
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    // Through the API: expect.poll (the login helper's) belongs to tests, not hooks.
    expect((await page.request.post('/api/session', { data: { username: ADMIN.email, password: ADMIN.password } })).status()).toBe(200);
    const users = (await (await page.request.get(`/api/users?filter=${encodeURIComponent(distributor.email)}`)).json()) as { items: { id: number }[] };
    const distributorId = users.items[0].id;
    const inThreeDays = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    for (const body of [{ distributorId }, {}, { distributorId, validUntil: inThreeDays }]) {
      const created = await page.request.post('/api/tans', { data: { productId, licenseCount: 1, ...body } });
      expect(created.status(), await created.text()).toBe(201);
      const [tan] = ((await created.json()) as { items: { id: number }[] }).items;
      if (!('validUntil' in body)) expect((await page.request.put(`/api/tans/${tan.id}`, { data: { suspended: true } })).status()).toBe(200);
    }
    await context.close();
  });

  it('an administrator in German on a phone opens the app to the day at a glance, and a figure opens its list', async () => {
    const context = await newContext(setup.browser, setup.server, { locale: 'de-DE', viewport: PHONE });
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    await page.goto('/');
    await expect.poll(() => page.getByRole('heading', { level: 1, name: text('de', 'dashboard.title') }).isVisible()).toBe(true);
    const suspended = page.getByTestId('dashboard-suspended');
    await expect.poll(() => suspended.getByTestId('dashboard-count').textContent()).toBe('2');
    expect(await page.getByTestId('dashboard-subscriptions-ending').getByTestId('dashboard-count').textContent()).toBe('1');
    expect(await page.getByTestId('dashboard-failed-shop-events').isVisible()).toBe(true);
    expect(await outsideOf(page, '[data-testid=staff-home]')).toEqual([]);
    await screenshot(page, 'staff-home-admin-de-phone');
    await suspended.click();
    await expect.poll(() => new URL(page.url()).pathname + new URL(page.url()).search).toBe('/tans?state=suspended');
    await expect.poll(() => page.getByTestId('tan-row').count()).toBe(2);
    await context.close();
  });

  it('a distributor on a laptop sees only its own TANs; a customer keeps My licenses as home', async () => {
    const context = await newContext(setup.browser, setup.server, { viewport: LAPTOP });
    const page = await context.newPage();
    await login(page, distributor.email, distributor.password);
    await page.goto('/');
    await expect.poll(() => page.getByTestId('dashboard-suspended').getByTestId('dashboard-count').textContent()).toBe('1');
    expect(await page.getByTestId('dashboard-subscriptions-ending').getByTestId('dashboard-count').textContent()).toBe('1');
    expect(await page.getByTestId('dashboard-failed-shop-events').count()).toBe(0);
    expect(await page.getByTestId('dashboard-refreshes').count()).toBe(0);
    await screenshot(page, 'staff-home-distributor-laptop');
    await page.getByTestId('dashboard-subscriptions-ending').click();
    await expect.poll(() => page.getByTestId('tan-row').count()).toBe(1);
    await context.clearCookies();

    await login(page, 'home-customer@e2e.test', 'secret-pass-1');
    await page.goto('/');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(text('en', 'pages.myLicenses'));
    expect(await page.getByTestId('staff-home').count()).toBe(0);
    await context.close();
  });
});
