/**
 * The smaller things a person trips over (issue 38): a new installation's checklist, dates typed as
 * the fields show them, Mantine's labels in the interface language, the first administrator's name,
 * a distributor's statistics and TAN form, and a policy's validity in hours.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import type { Locale } from '../../packages/contract/src/constants.ts';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';
import { describeViolations, seriousViolations } from '../support/axe.ts';
import { seedActivatedLicense, seedProduct } from '../support/licensing-seed.ts';
import { text } from '../support/messages.ts';

const DESKTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const PRODUCT = { name: 'Typing Suite', version: '2.0' };

/** The reader's local day, `days` from today, as `YYYY-MM-DD` (what the date fields count from). */
function localDay(days: number): string {
  const day = new Date();
  day.setDate(day.getDate() + days);
  return `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
}

/** A day as the date fields and tables show it (lib/format.ts: medium date style). */
const shown = (day: string, locale: Locale) => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));

async function openTemporaryDialog(page: Page, locale: Locale) {
  await page.getByRole('button', { name: text(locale, 'licenses.addTemporary') }).first().click();
  const dialog = page.getByRole('dialog', { name: text(locale, 'licenses.temporaryTitle') });
  await dialog.getByRole('combobox', { name: text(locale, 'licenses.product') }).click();
  await page.getByRole('option', { name: `${PRODUCT.name} ${PRODUCT.version}` }).click();
  return dialog;
}

describeJourney('first steps and the small things', () => {
  const setup = journeySetup();

  it('a new installation’s administrator is shown what to set up first, sees steps ticked and can hide the list', async () => {
    const context = await newContext(setup.browser, setup.server, { viewport: DESKTOP });
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    await page.goto('/');
    const checklist = page.getByTestId('first-run-checklist');
    await expect.poll(() => checklist.isVisible()).toBe(true);
    expect(await checklist.getByRole('heading').textContent()).toBe(text('en', 'setup.title'));
    expect(await page.getByTestId('setup-step-product').getAttribute('data-done')).toBe('false');
    expect(await checklist.textContent()).toContain(text('en', 'setup.progress', { done: 0, of: 4 }));
    // The first administrator has no made-up English name: the account menu names the address.
    const accountMenu = page.getByTestId('account-menu');
    expect(await accountMenu.getAttribute('aria-label')).toContain(ADMIN.email);
    expect(await accountMenu.getAttribute('aria-label')).not.toContain('System');
    // The open account menu, headed by the account, holds only what a menu may (axe: aria-required-children).
    await accountMenu.click();
    await page.getByTestId('account-menu-heading').waitFor();
    const violations = await seriousViolations(page);
    expect(violations, describeViolations('account menu', violations)).toEqual([]);
    await page.keyboard.press('Escape');
    await screenshot(page, 'first-steps-checklist-en-1366');
    // The same in German on a phone.
    const german = await newContext(setup.browser, setup.server, { locale: 'de', viewport: PHONE });
    const phone = await german.newPage();
    await login(phone, ADMIN.email, ADMIN.password);
    await phone.goto('/');
    await expect.poll(() => phone.getByTestId('first-run-checklist').getByRole('heading').textContent()).toBe(text('de', 'setup.title'));
    await screenshot(phone, 'first-steps-checklist-de-390');
    await german.close();

    await checklist.getByRole('link', { name: text('en', 'setup.go.product') }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/products/create');
    const policies = (await (await page.request.get('/api/license-policies?limit=100')).json()) as { items: { id: number; name: string }[] };
    const policy = policies.items.find((item) => item.name === 'SINGLE_HOST_INDEFINITE')!;
    const created = await page.request.post('/api/products', { data: { ...PRODUCT, active: true, trialDays: 14, releaseDate: '2025-01-01', defaultLicensePolicyId: policy.id } });
    expect(created.status(), await created.text()).toBe(201);

    await page.goto('/');
    await expect.poll(() => page.getByTestId('setup-step-product').getAttribute('data-done')).toBe('true');
    expect(await checklist.textContent()).toContain(text('en', 'setup.progress', { done: 1, of: 4 }));
    await checklist.getByRole('button', { name: text('en', 'setup.dismiss') }).click();
    await expect.poll(() => checklist.count()).toBe(0);
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).isVisible()).toBe(true);
    expect(await checklist.count()).toBe(0);
    await context.close();
  });

  it('a date typed the way the field shows it is taken, and one past the latest allowed day says so (English, German)', async () => {
    const customer = createAccount(setup.server, 'typist@e2e.test', 'USER');
    const english = await newContext(setup.browser, setup.server, { viewport: DESKTOP });
    const page = await english.newPage();
    await login(page, customer.email, customer.password);
    const dialog = await openTemporaryDialog(page, 'en');
    await dialog.getByLabel(text('en', 'licenses.machineId')).fill('TYPED-DATE');
    const validUntil = dialog.getByLabel(text('en', 'licenses.validUntil'));
    const typed = shown(localDay(5), 'en'); // "Dec 1, 2026"
    await validUntil.fill(typed);
    await validUntil.press('Tab');
    expect(await validUntil.inputValue()).toBe(typed);
    await dialog.getByRole('button', { name: text('en', 'licenses.addTemporary') }).click();
    const card = page.getByTestId('license-card').filter({ hasText: 'TYPED-DATE' });
    await expect.poll(() => card.getByTestId('license-valid-until').textContent()).toBe(typed);
    await english.close();

    const german = await newContext(setup.browser, setup.server, { locale: 'de', viewport: PHONE });
    const germanPage = await german.newPage();
    await login(germanPage, customer.email, customer.password);
    const germanDialog = await openTemporaryDialog(germanPage, 'de');
    const field = germanDialog.getByLabel(text('de', 'licenses.validUntil'));
    const before = await field.inputValue();
    await field.fill(shown(localDay(60), 'de'));
    await field.press('Tab');
    const said = text('de', 'common.dateTooLate', { date: shown(localDay(60), 'de'), latest: shown(localDay(14), 'de') });
    await expect.poll(() => germanDialog.getByText(said).isVisible()).toBe(true);
    expect(await field.inputValue()).toBe(before);
    await screenshot(germanPage, 'first-steps-date-too-late-de-390');
    await field.fill('bald');
    await field.press('Tab');
    await expect.poll(() => germanDialog.getByText(text('de', 'common.dateUnreadable', { text: 'bald', example: shown(localDay(0), 'de') })).isVisible()).toBe(true);
    await german.close();
  });

  it('Mantine’s built-in button names speak the interface language', async () => {
    const context = await newContext(setup.browser, setup.server, { locale: 'de' });
    const page = await context.newPage();
    await page.goto('/login');
    const toggle = page.getByRole('button', { name: text('de', 'builtIn.togglePassword') }).first();
    await expect.poll(() => toggle.count()).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Toggle password visibility' }).count()).toBe(0);
    await context.close();
  });

  for (const viewport of [DESKTOP, PHONE]) {
    it(`a distributor’s TAN form shows its whole address, and its statistics the tabs of its own TANs’ numbers (${viewport.width} px)`, async () => {
      const email = `a-very-long-reseller-address-${viewport.width}@distribution-partner.example`;
      const distributor = createAccount(setup.server, email, 'DISTRIBUTOR');
      const context = await newContext(setup.browser, setup.server, { viewport });
      const page = await context.newPage();
      await login(page, distributor.email, distributor.password);
      await page.goto('/tans/create');
      const field = page.getByTestId('tan-distributor');
      await expect.poll(() => field.inputValue()).toContain(email);
      expect(await field.isDisabled()).toBe(true);
      // Nothing of it is cut off: the field is as wide and as tall as its text.
      const overflow = await field.evaluate((element) => ({ x: element.scrollWidth - element.clientWidth, y: element.scrollHeight - element.clientHeight }));
      expect(overflow).toEqual({ x: 0, y: 0 });
      await screenshot(page, `first-steps-distributor-tan-${viewport.width}`);

      await page.goto('/statistics');
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(text('en', 'pages.statistics'));
      const tabs = ['statistics.overview', 'statistics.categories.tan-activations', 'statistics.categories.overage'].map((key) => text('en', key));
      await expect.poll(() => page.getByRole('tab').allTextContents()).toEqual(tabs);
      // The tab bar wraps on a phone: nothing of the page sticks out to the side.
      expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
      await screenshot(page, `first-steps-distributor-statistics-${viewport.width}`);
      await context.close();
    });
  }

  it('a policy’s file validity is entered in hours too, and hours that make no whole day are refused with the reason', async () => {
    const context = await newContext(setup.browser, setup.server, { viewport: DESKTOP });
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    await page.goto('/license-policies/create');
    const form = page.getByTestId('policy-form');
    await form.getByLabel(text('en', 'catalogue.policy.name')).first().fill('HOURLY_FILES');
    await form.getByLabel(text('en', 'catalogue.policy.publicNameText')).fill('Hourly files');
    await form.getByRole('combobox', { name: text('en', 'catalogue.policy.unit') }).click();
    await page.getByRole('option', { name: text('en', 'catalogue.units.hours') }).click();
    const amount = form.getByLabel(text('en', 'catalogue.policy.licenseMaxValid'));
    await amount.fill('36');
    await form.getByRole('button', { name: text('en', 'common.create') }).click();
    await expect.poll(() => form.getByText(text('en', 'catalogue.policy.wholeDays', { perDay: '24 hours' })).isVisible()).toBe(true);
    await screenshot(page, 'first-steps-policy-hours-1366');

    await amount.fill('48');
    await form.getByRole('button', { name: text('en', 'common.create') }).click();
    await expect.poll(async () => {
      const list = (await (await page.request.get('/api/license-policies?limit=100')).json()) as { items: { name: string; licenseMaxValidDays: number }[] };
      return list.items.find((item) => item.name === 'HOURLY_FILES')?.licenseMaxValidDays;
    }).toBe(2);
    await context.close();
  });

  it('a revoked license offers no download: disabled buttons, not links, and nothing axe calls serious', async () => {
    const customer = createAccount(setup.server, 'revoked-card@e2e.test', 'USER');
    const productId = await seedProduct(setup.server, 'Revoked Suite', '1.0');
    const licenseId = await seedActivatedLicense(setup.server, { email: customer.email, productId, machineId: 'REVOKED-BOX' });
    const adminContext = await newContext(setup.browser, setup.server);
    const admin = await adminContext.newPage();
    await login(admin, ADMIN.email, ADMIN.password);
    const revoked = await admin.request.put(`/api/licenses/${licenseId}`, { data: { revoked: true } });
    expect(revoked.status(), await revoked.text()).toBe(200);
    await adminContext.close();

    const context = await newContext(setup.browser, setup.server, { viewport: PHONE });
    const page = await context.newPage();
    await login(page, customer.email, customer.password);
    const card = page.getByTestId('license-card').filter({ hasText: 'REVOKED-BOX' });
    await expect.poll(() => card.isVisible()).toBe(true);
    const download = card.getByRole('button', { name: text('en', 'licenses.download') });
    expect(await download.isDisabled()).toBe(true);
    expect(await card.getByRole('button', { name: '.json' }).isDisabled()).toBe(true);
    expect(await card.locator('a[download]').count()).toBe(0);
    const violations = await seriousViolations(page);
    expect(violations, describeViolations('/account/licenses (revoked)', violations)).toEqual([]);
    await screenshot(page, 'first-steps-revoked-card-390');
    await context.close();
  });

  it('the reset-password page’s unusable-link alert, with its link to a new one, reads well for axe (both widths)', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const context = await newContext(setup.browser, setup.server, { viewport });
      const page = await context.newPage();
      await page.goto('/reset-password');
      const alert = page.getByTestId('reset-failed');
      await expect.poll(() => alert.getByRole('link', { name: text('en', 'accounts.reset.requestNew') }).isVisible()).toBe(true);
      const violations = await seriousViolations(page);
      expect(violations, describeViolations(`/reset-password ${viewport.width}`, violations)).toEqual([]);
      await context.close();
    }
  });

  it('on a phone, the change log’s values and the product matrix scroll by keyboard too', async () => {
    const context = await newContext(setup.browser, setup.server, { viewport: PHONE });
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    // A product with three features (matrix columns) and an edit of it (old and new values side by side): both wider than a phone.
    const features = ['kb:export', 'kb:import', 'kb:render'];
    for (const name of features) expect((await page.request.post('/api/features', { data: { name } })).status()).toBe(201);
    const policies = (await (await page.request.get('/api/license-policies?limit=100')).json()) as { items: { id: number; name: string }[] };
    const defaultLicensePolicyId = policies.items.find((item) => item.name === 'SINGLE_HOST_INDEFINITE')!.id;
    const created = await page.request.post('/api/products', { data: { name: 'Keyboard Suite', version: '1.0', active: true, features, releaseDate: '2025-01-01', defaultLicensePolicyId } });
    expect(created.status(), await created.text()).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const edited = await page.request.put(`/api/products/${id}`, { data: { name: 'Keyboard Suite', version: '1.1', active: true, features, releaseDate: '2025-02-01', defaultLicensePolicyId } });
    expect(edited.status(), await edited.text()).toBe(200);
    for (const [route, ready] of [
      ['/changes/Product', page.getByTestId('change-entry').first()],
      ['/products/matrix', page.getByTestId('product-matrix')],
    ] as const) {
      await page.goto(route);
      await ready.waitFor();
      const violations = await seriousViolations(page);
      expect(violations, describeViolations(`${route} 390`, violations)).toEqual([]);
    }
    await context.close();
  });
});
