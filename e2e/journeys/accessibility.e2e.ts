import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, type TestServer } from '../harness.ts';
import { describeViolations, seriousViolations } from '../support/axe.ts';
import { seedActivatedLicense } from '../support/licensing-seed.ts';

const WIDTHS = [
  { name: 'laptop', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
];

type Role = 'anonymous' | 'customer' | 'distributor' | 'administrator';

const ANONYMOUS_ROUTES = ['/', '/login', '/forgot-password', '/reset-password?email=a%40e2e.test&token=x', '/register', '/register/confirm?email=a%40e2e.test', '/no-such-page'];
const SIGNED_IN_ROUTES = ['/', '/account/settings', '/account/security', '/account/change-email', '/account/licenses', '/account/licenses/offline'];
const CATALOGUE_ROUTES = ['/products', '/products/matrix', '/products/compare', '/license-policies', '/features', '/tans', '/tans/create', '/statistics'];
const ADMIN_ROUTES = [
  '/users',
  '/users/create',
  '/products/create',
  '/license-policies/create',
  '/features/create',
  '/tools/create-anylic',
  '/statistics/tan-activations',
  '/statistics/trial-licenses',
  '/settings',
  '/changes/User',
  '/changes/Product',
  '/export',
  '/tools/shop-connections',
];

const CUSTOMER = 'a11y-customer@e2e.test';
const DISTRIBUTOR = 'a11y-distributor@e2e.test';

/** A catalogue, TANs and licenses, so that lists, cards and change logs have rows to check. */
async function seed(page: Page, server: TestServer): Promise<{ customerId: number }> {
  await login(page, ADMIN.email, ADMIN.password);
  const post = async (url: string, data: object) => {
    const response = await page.request.post(url, { data });
    expect(response.status(), await response.text()).toBeLessThan(300);
    return response.json() as Promise<{ id: number }>;
  };
  await post('/api/features', { name: 'export:pdf', localizedDescription: { en: 'PDF export' } });
  await post('/api/features', { name: 'import', localizedDescription: { en: 'Import' } });
  const policies = (await (await page.request.get('/api/license-policies?limit=100')).json()) as { items: { id: number; name: string }[] };
  const policy = policies.items.find((item) => item.name === 'SINGLE_HOST_INDEFINITE')!;
  const product = await post('/api/products', { name: 'A11y Studio', version: '1.0', trialDays: 14, releaseDate: '2025-01-01', defaultLicensePolicyId: policy.id, features: ['export:pdf', 'import'] });
  await post('/api/products', { name: 'A11y Studio', version: '2.0', trialDays: 14, releaseDate: '2026-01-01', defaultLicensePolicyId: policy.id, features: ['export:pdf'] });
  const users = (await (await page.request.get(`/api/users?filter=${encodeURIComponent(DISTRIBUTOR)}`)).json()) as { items: { id: number }[] };
  const tans = await page.request.post('/api/tans?count=60', { data: { productId: product.id, licenseCount: 2, distributorId: users.items[0].id, tags: ['fair'] } });
  expect(tans.status()).toBe(201);
  await seedActivatedLicense(server, { email: CUSTOMER, productId: product.id, machineId: 'A11Y-MACHINE-1' });
  const customers = (await (await page.request.get(`/api/users?filter=${encodeURIComponent(CUSTOMER)}`)).json()) as { items: { id: number }[] };
  return { customerId: customers.items[0].id };
}

/** Waits until the page has rendered its content: the busy overlay is gone and a heading shows. */
async function settled(page: Page): Promise<void> {
  await expect.poll(() => page.locator('h1').count()).toBe(1);
  await expect.poll(() => page.locator('[data-testid="busy-overlay"]').count()).toBe(0);
  await page.waitForLoadState('networkidle');
}

describeJourney('accessibility: no critical or serious axe-core violation on any route, for each role, at laptop and phone width', () => {
  const setup = journeySetup();
  const routes = {} as Record<Role, string[]>;
  const accounts: Record<Exclude<Role, 'anonymous'>, { email: string; password: string }> = {} as never;

  let seeded: Promise<void> | undefined;
  /** Seeds once, inside the first test (polls need a running test). */
  const ready = () =>
    (seeded ??= (async () => {
    accounts.customer = createAccount(setup.server, CUSTOMER, 'USER');
    accounts.distributor = createAccount(setup.server, DISTRIBUTOR, 'DISTRIBUTOR');
    accounts.administrator = ADMIN;
    const context = await newContext(setup.browser, setup.server);
    const { customerId } = await seed(await context.newPage(), setup.server);
    await context.close();
    routes.anonymous = ANONYMOUS_ROUTES;
    routes.customer = SIGNED_IN_ROUTES;
    routes.distributor = [...SIGNED_IN_ROUTES, ...CATALOGUE_ROUTES];
    routes.administrator = [...SIGNED_IN_ROUTES, ...CATALOGUE_ROUTES, ...ADMIN_ROUTES, `/users/${customerId}/licenses`];
    })());

  for (const role of ['anonymous', 'customer', 'distributor', 'administrator'] as const) {
    it(`${role}: every route`, async () => {
      await ready();
      const report: string[] = [];
      for (const width of WIDTHS) {
        const context = await newContext(setup.browser, setup.server, { viewport: width.viewport });
        const page = await context.newPage();
        if (role !== 'anonymous') await login(page, accounts[role].email, accounts[role].password);
        for (const route of routes[role]) {
          await page.goto(route);
          await settled(page);
          const violations = await seriousViolations(page);
          if (violations.length) report.push(describeViolations(`${role} ${width.name} ${route}`, violations));
        }
        await context.close();
      }
      expect(report.join('\n')).toBe('');
    });
  }

  it('dialogs and forms showing errors have no critical or serious violation either', async () => {
    await ready();
    const report: string[] = [];
    const check = async (page: Page, where: string) => {
      const violations = await seriousViolations(page);
      if (violations.length) report.push(describeViolations(where, violations));
    };
    for (const width of WIDTHS) {
      const context = await newContext(setup.browser, setup.server, { viewport: width.viewport });
      const page = await context.newPage();
      await page.goto('/register');
      await page.getByTestId('register-form').getByRole('button', { name: 'Create account' }).click();
      await page.locator('.mantine-InputWrapper-error').first().waitFor();
      await check(page, `${width.name} registration errors`);

      await login(page, accounts.customer.email, accounts.customer.password);
      await page.goto('/account/licenses');
      await page.getByRole('button', { name: 'Activate license' }).first().click();
      const dialog = page.getByRole('dialog', { name: 'Activate a license' });
      await dialog.getByRole('button', { name: 'Activate license' }).click();
      await dialog.locator('.mantine-InputWrapper-error').first().waitFor();
      await check(page, `${width.name} activation dialog with errors`);
      await context.close();
    }
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    await page.goto('/license-policies');
    await page.getByRole('row').filter({ hasText: 'Floating (network) license' }).getByRole('button', { name: /Edit/ }).click();
    await page.getByRole('dialog').waitFor();
    await check(page, 'policy dialog');
    await page.keyboard.press('Escape');
    await page.goto('/tans');
    await page.getByTestId('tan-row').first().getByRole('button', { name: /Edit/ }).click();
    await page.getByRole('dialog').waitFor();
    await check(page, 'TAN dialog');
    await context.close();
    expect(report.join('\n')).toBe('');
  });
});
