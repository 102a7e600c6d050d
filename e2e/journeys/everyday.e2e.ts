import { expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { Locale } from '../../packages/contract/src/constants.ts';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, requestsSettled, screenshot, type TestServer } from '../harness.ts';
import { linkFromMail } from '../mailbox.ts';
import { seedActivatedLicense } from '../support/licensing-seed.ts';
import { cutOff } from '../support/layout.ts';
import { text } from '../support/messages.ts';

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** Whether two boxes on the screen overlap. */
async function overlap(a: Locator, b: Locator): Promise<boolean> {
  const [x, y] = [await a.boundingBox(), await b.boundingBox()];
  if (!x || !y) return false;
  return x.x < y.x + y.width && y.x < x.x + x.width && x.y < y.y + y.height && y.y < x.y + x.height;
}

async function seedCatalogue(page: Page, server: TestServer, customerEmail: string): Promise<void> {
  const post = async (url: string, data: object) => {
    const response = await page.request.post(url, { data });
    expect(response.status(), await response.text()).toBeLessThan(300);
    return (await response.json()) as { id: number };
  };
  await post('/api/features', { name: 'export:pdf', localizedDescription: { en: 'PDF export', de: 'PDF-Export' } });
  const policies = (await (await page.request.get('/api/license-policies?limit=100')).json()) as { items: { id: number; name: string }[] };
  const policy = policies.items.find((item) => item.name === 'SINGLE_HOST_INDEFINITE')!;
  const v1 = await post('/api/products', { name: 'Everyday Studio', version: '1.0', trialDays: 14, releaseDate: '2024-01-01', defaultLicensePolicyId: policy.id, features: ['export:pdf'] });
  await post('/api/products', { name: 'Everyday Studio', version: '2.0', trialDays: 14, releaseDate: '2025-06-01', defaultLicensePolicyId: policy.id });
  // Free updates until soon: the badge says "ending …", the longest text a card has. Activated
  // before 2.0 came out, so 2.0 is a free upgrade.
  await seedActivatedLicense(server, { email: customerEmail, productId: v1.id, machineId: 'PHONE-PC-1', freeUpdatesUntil: inDays(20), activatedOn: '2025-01-15' });
}

describeJourney('everyday things: dialogs, notices, the phone, the session check and small rules', () => {
  const setup = journeySetup();
  let seeded: Promise<void> | undefined;
  const customer = { email: 'everyday-customer@e2e.test', password: 'secret-pass-1' };
  const ready = () =>
    (seeded ??= (async () => {
      createAccount(setup.server, customer.email, 'USER', customer.password);
      const context = await newContext(setup.browser, setup.server);
      const page = await context.newPage();
      await login(page, ADMIN.email, ADMIN.password);
      await seedCatalogue(page, setup.server, customer.email);
      await context.close();
    })());

  it('an anonymous visit logs no console error: the session check answers 200 with the anonymous rules', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    const session = page.waitForResponse((response) => response.url().endsWith('/api/session'));
    await page.goto('/');
    expect((await session).status()).toBe(200);
    await page.goto('/register');
    await page.goto('/users');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/login');
    await expect.poll(() => page.getByRole('heading', { name: 'Log in to your account' }).isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a signed-in page never shows "Log in" while the session is checked', async () => {
    await ready();
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, customer.email, customer.password);
    await page.route('**/api/session', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    });
    await page.goto('/account/licenses');
    const loginButton = page.getByRole('banner').getByRole('link', { name: 'Log in' });
    for (let check = 0; check < 10; check++) {
      expect(await loginButton.count()).toBe(0);
      await page.waitForTimeout(150);
    }
    await page.getByTestId('account-menu').waitFor();
    expect(await loginButton.count()).toBe(0);
    await context.close();
  });

  it('the free-upgrade offer is one notice the customer opens, never a dialog on top of another', async () => {
    await ready();
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, customer.email, customer.password);
    await page.goto('/account/licenses');
    const notice = page.getByTestId('free-upgrade-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('Everyday Studio 2.0');
    await page.waitForTimeout(500);
    expect(await page.getByRole('dialog').count()).toBe(0);

    // The customer's own dialog stays alone.
    await page.getByRole('button', { name: 'Activate license' }).first().click();
    await page.getByRole('dialog', { name: 'Activate a license' }).waitFor();
    await page.waitForTimeout(300);
    expect(await page.getByRole('dialog').count()).toBe(1);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

    const show = notice.getByRole('button', { name: 'Show the offer' });
    await show.click();
    await page.getByRole('dialog', { name: 'Free upgrade available' }).waitFor();
    await screenshot(page, 'everyday-free-upgrade-offer');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    // Keyboard focus is back where the customer was.
    await expect.poll(() => show.evaluate((element) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement)).toBe(true);

    // Dismissed: not again in this visit.
    await notice.getByRole('button', { name: 'Hide until my next visit' }).click();
    await page.reload();
    await page.getByTestId('license-card').first().waitFor();
    expect(await page.getByTestId('free-upgrade-notice').count()).toBe(0);
    await context.close();
  });

  it('focus returns to the control that opened a dialog, a skip link leads to the content, and an error toast leaves the dialog’s close button free', async () => {
    await ready();
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, customer.email, customer.password);
    await page.goto('/account/licenses');
    await page.getByTestId('license-card').first().waitFor();
    const isFocused = (locator: Locator) => locator.evaluate((element) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement);

    const changeMachine = page.getByTestId('license-card').first().getByRole('button', { name: 'Change machine' });
    await changeMachine.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await expect.poll(() => isFocused(changeMachine)).toBe(true);

    // An unknown TAN: the dialog stays open with the error, and the toast does not cover its close button.
    const activate = page.getByRole('button', { name: 'Activate license' }).first();
    await activate.click();
    const dialog = page.getByRole('dialog', { name: 'Activate a license' });
    await dialog.getByLabel('TAN').fill('abcd-efgh-jkmn');
    await dialog.getByLabel('Machine ID').fill('OTHER-PC');
    await dialog.getByRole('button', { name: 'Activate license' }).click();
    const toast = page.locator('.mantine-Notification-root').filter({ hasText: 'Invalid license' });
    await toast.waitFor();
    expect(await toast.textContent()).toContain('An error occurred: Invalid license (activation failed): this TAN is unknown, revoked or used up.');
    expect(await overlap(toast, dialog.locator('.mantine-Modal-close'))).toBe(false);
    await screenshot(page, 'everyday-activation-error-toast');
    await dialog.locator('.mantine-Modal-close').click();
    await expect.poll(() => isFocused(activate)).toBe(true);

    await page.goto('/account/settings');
    await page.locator('h1').waitFor();
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    await expect.poll(() => isFocused(skip)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate('document.activeElement.id')).toBe('main-content');
    await context.close();
  });

  for (const locale of ['de', 'fr', 'es', 'it'] as Locale[]) {
    it(`on a 390 px phone in ${locale} no text of the license cards and the navbar is cut off`, async () => {
      await ready();
      const context = await newContext(setup.browser, setup.server, { locale, viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      await login(page, customer.email, customer.password);
      await page.goto('/account/licenses');
      await page.getByTestId('license-card').first().waitFor();
      expect(await page.getByTestId('license-free-updates').first().textContent()).toContain(text(locale, 'licenses.freeUpdates.expiring', { date: '' }).trim().split(' ')[0]);
      expect(await cutOff(page, '[data-testid="license-card"]')).toEqual([]);
      expect(await cutOff(page, 'header')).toEqual([]);
      await screenshot(page, `everyday-phone-licenses-${locale}`);
      await context.close();
    });
  }

  it('on a 390 px phone in German (the longest words) no page cuts a text off', async () => {
    await ready();
    const report: string[] = [];
    for (const [account, routes] of [
      [customer, ['/', '/account/settings', '/account/change-email', '/account/licenses', '/account/licenses/offline']],
      [ADMIN, ['/users', '/users/create', '/products', '/products/matrix', '/products/compare', '/license-policies', '/features', '/tans', '/tans/create', '/tools/create-anylic', '/statistics', '/settings', '/changes/User', '/export']],
    ] as const) {
      const context = await newContext(setup.browser, setup.server, { locale: 'de-DE', viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      await login(page, account.email, account.password);
      for (const route of routes) {
        await page.goto(route);
        await expect.poll(() => page.locator('h1').count()).toBe(1);
        await requestsSettled(page);
        const cut = await cutOff(page, 'body');
        if (cut.length) report.push(`${route}: ${cut.join(' | ')}`);
        if (route === '/license-policies' || route === '/tans') await screenshot(page, `everyday-phone-de${route.replace(/\//g, '-')}`);
      }
      await context.close();
    }
    expect(report).toEqual([]);
  });

  it('the cookie banner stays below dialogs: the Save button of the policy dialog can be clicked; a built-in policy keeps its type', async () => {
    const context = await newContext(setup.browser, setup.server, { cookieBanner: true, viewport: { width: 1280, height: 700 } });
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    await page.goto('/license-policies');
    await page.getByTestId('cookie-accept').waitFor();
    const row = page.getByRole('row').filter({ hasText: 'Floating (network) license' });
    await row.getByRole('button', { name: /Edit/ }).click();
    const dialog = page.getByRole('dialog', { name: /Edit license policy/ });
    await dialog.waitFor();
    expect(await dialog.getByLabel(/^Type/).first().isDisabled()).toBe(true);
    const save = dialog.getByRole('button', { name: 'Save', exact: true });
    await save.scrollIntoViewIfNeeded();
    const box = (await save.boundingBox())!;
    const hit = await page.evaluate(([x, y]) => {
      const doc = (globalThis as unknown as { document: { elementFromPoint(x: number, y: number): { closest(s: string): unknown } | null } }).document;
      return Boolean(doc.elementFromPoint(x, y)?.closest('button[type="submit"]'));
    }, [box.x + box.width / 2, box.y + box.height / 2]);
    expect(hit).toBe(true);
    await screenshot(page, 'everyday-policy-dialog-with-cookie-banner');
    await context.close();
  });

  it('after "resend confirmation", the first link confirms and the newer one says the account is confirmed', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    const email = 'resent@e2e.test';
    await page.goto('/register');
    const form = page.getByTestId('register-form');
    await form.getByLabel(/^e-mail address/i).fill(email);
    await form.getByLabel(/^password/i).fill('my-secret-1');
    await form.getByLabel(/^confirmation/i).fill('my-secret-1');
    await form.getByRole('button', { name: 'Create account' }).click();
    await page.getByTestId('registration-pending').waitFor();
    await page.getByTestId('resend-confirmation').click();
    const first = await linkFromMail(setup.server, email, '/register/confirm', 1);
    const second = await linkFromMail(setup.server, email, '/register/confirm', 2);
    await page.goto(first);
    await page.getByTestId('registration-complete').waitFor();
    await page.goto(second);
    await page.getByTestId('registration-already-confirmed').waitFor();
    expect(await page.getByTestId('registration-failed').count()).toBe(0);
    await context.close();
  });

  it('an administrator: number fields keep 0 and say the minimum, the features input says which characters are allowed, another account’s licenses name their owner', async () => {
    await ready();
    const lonely = createAccount(setup.server, 'no-licenses@e2e.test', 'USER');
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);

    await page.goto('/license-policies/create');
    const machines = page.getByLabel(/^Maximum number of different machines/);
    await machines.fill('0');
    await page.getByLabel(/^Name/).first().click();
    expect(await machines.inputValue()).toBe('0');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(() => page.getByText('Enter 1 or more').first().isVisible()).toBe(true);
    // A floating file valid for one day cannot wait a week before it is refreshed.
    await page.getByRole('textbox', { name: 'Type', exact: true }).or(page.getByRole('combobox', { name: 'Type', exact: true })).click();
    await page.getByRole('option', { name: 'Floating' }).click();
    await page.getByLabel(/^License file valid for/).fill('1');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(() => page.getByText('Choose less than the file’s validity of 1 day').first().isVisible()).toBe(true);

    await page.goto('/tans/create');
    await page.getByLabel(/^License count/).fill('0');
    await page.locator('main form button[type="submit"]').click();
    await expect.poll(() => page.getByText('Enter 1 or more').first().isVisible()).toBe(true);

    await page.goto('/settings');
    const maxCount = page.locator('input[data-setting="tan.maxLicenseCount"]');
    await maxCount.fill('0');
    await maxCount.press('Tab');
    expect(await maxCount.inputValue()).toBe('0');
    await page.locator('.mantine-Paper-root', { has: maxCount }).getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.getByText('Enter 1 or more').first().isVisible()).toBe(true);
    // An order's temporary license is a temporary license: within the configured maximum (30 days).
    const orderDays = page.locator('input[data-setting="order.temporaryLicenseDays"]');
    await orderDays.fill('45');
    await page.locator('.mantine-Paper-root', { has: orderDays }).getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.getByText('Enter 30 or less').first().isVisible()).toBe(true);
    expect(await page.getByText('At most 30, the longest a temporary license may run (see Limits)').isVisible()).toBe(true);

    await page.goto('/products/create');
    const features = page.getByRole('combobox', { name: 'Features' });
    await features.fill('bad!tag');
    await features.press('Enter');
    await expect.poll(() => page.getByText('“bad!tag” contains characters that are not allowed: use only letters, digits and : / _ -').isVisible()).toBe(true);
    expect(await features.inputValue()).toBe('bad!tag');

    const users = (await (await page.request.get(`/api/users?filter=${encodeURIComponent(lonely.email)}`)).json()) as { items: { id: number; formattedName: string }[] };
    await page.goto(`/users/${users.items[0].id}/licenses`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(`Licenses of ${users.items[0].formattedName}`);
    await expect.poll(() => page.getByText('This account has no licenses.').isVisible()).toBe(true);
    expect(await page.getByText('You have no licenses yet').count()).toBe(0);
    await context.close();
  });

  it('a list whose data cannot be loaded says why, in the page’s language, instead of showing an empty list', async () => {
    const context = await newContext(setup.browser, setup.server, { locale: 'de-DE' });
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    const unavailable = { status: 503, json: { error: 'ERR_DATABASE_UNAVAILABLE', message: 'The database cannot be reached right now' } };
    await page.route('**/api/tans?*', (route) => route.fulfill(unavailable));
    await page.route('**/api/features?*', (route) => route.fulfill(unavailable));
    const said = text('de', 'errors.ERR_DATABASE_UNAVAILABLE');
    for (const list of ['/tans', '/features']) {
      await page.goto(list);
      await expect.poll(() => page.getByRole('alert').filter({ hasText: said }).isVisible(), { message: list }).toBe(true);
    }
    // No count is known, so none is shown (not "0 TANs").
    await page.goto('/tans');
    await page.getByRole('alert').filter({ hasText: said }).waitFor();
    expect(await page.getByText(text('de', 'tans.totalCount_other', { count: 0 })).count()).toBe(0);
    // A refused query names what was refused, as the server worded it in the request's language.
    const detail = 'Dieser Verweis auf eine Seite passt nicht mehr zur Liste und ihrer Sortierung; beginnen Sie wieder auf der ersten Seite';
    await page.route('**/api/users?*', (route) =>
      route.fulfill({ status: 400, json: { error: 'ERR_VALIDATION', message: 'after: pageCursor', details: [{ path: 'after', code: 'pageCursor', message: detail }] } }),
    );
    await page.goto('/users');
    await expect.poll(() => page.getByRole('alert').filter({ hasText: `${text('de', 'errors.ERR_VALIDATION')} ${detail}` }).isVisible()).toBe(true);
    await screenshot(page, 'list-load-error-de');
    await context.close();
  });

  it('a distributor sees no empty Actions column and can open the features of a product', async () => {
    await ready();
    const distributor = createAccount(setup.server, 'everyday-distributor@e2e.test', 'DISTRIBUTOR');
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, distributor.email, distributor.password);
    for (const route of ['/products', '/features', '/license-policies']) {
      await page.goto(route);
      await page.getByRole('columnheader').first().waitFor();
      expect(await page.getByRole('columnheader', { name: 'Actions' }).count(), route).toBe(0);
    }
    await page.goto('/products');
    await page.getByTestId('product-features').first().click();
    await expect.poll(() => page.getByText('export:pdf — PDF export').isVisible()).toBe(true);
    await context.close();
  });

  it('the change-email page shows the pending change when the customer comes back', async () => {
    const account = createAccount(setup.server, 'mover@e2e.test', 'USER');
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, account.email, account.password);
    await page.goto('/account/change-email');
    await page.getByLabel('New e-mail address').fill('moved@e2e.test');
    await page.getByRole('button', { name: 'Send confirmation link' }).click();
    await page.getByTestId('change-email-requested').waitFor();
    await page.goto('/account/settings');
    await page.goto('/account/change-email');
    await page.getByTestId('change-email-requested').waitFor();
    expect(await page.getByTestId('change-email-requested').textContent()).toContain('moved@e2e.test');
    await context.close();
  });
});
