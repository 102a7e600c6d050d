import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';

const PRODUCT = { name: 'E2E Studio', version: '1.0' };
const PRODUCT_LABEL = `${PRODUCT.name} ${PRODUCT.version}`;

const isoDaysFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const shownDate = (date: string) => new Date(`${date}T00:00:00Z`).toLocaleDateString('en-US', { dateStyle: 'medium', timeZone: 'UTC' });

/** The license card showing this machine id. */
const cardOf = (page: Page, machineId: string): Locator => page.getByTestId('license-card').filter({ has: page.getByTestId('license-machine').getByText(machineId, { exact: true }) });

async function toastSays(page: Page, text: string): Promise<void> {
  await expect.poll(() => page.getByText(`An error occurred: ${text}`).isVisible()).toBe(true);
}

async function activate(page: Page, tan: string, machineId: string): Promise<void> {
  await page.getByRole('button', { name: 'Activate license' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Activate a license' });
  await dialog.getByLabel('TAN').fill(tan);
  await dialog.getByLabel('Machine ID').fill(machineId);
  await dialog.getByRole('button', { name: 'Activate license' }).click();
}

async function changeMachine(page: Page, from: string, to: string): Promise<void> {
  await cardOf(page, from).getByRole('button', { name: 'Change machine' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('New machine ID').fill(to);
  await dialog.getByRole('button', { name: 'Change machine' }).click();
}

describeJourney('licensing: TANs, activation, machines, moving and temporary licenses', () => {
  const setup = journeySetup();
  let adminContext: BrowserContext;
  let admin: Page;
  let codes: string[] = [];
  let productId = 0;

  beforeAll(async () => {
    adminContext = await newContext(setup.browser, setup.server);
    admin = await adminContext.newPage();
  });

  afterAll(async () => {
    await adminContext?.close();
  });

  it('an administrator creates 5 TANs and sees them in the recent-TANs table and the TAN list', async () => {
    await login(admin, ADMIN.email, ADMIN.password);
    // The catalogue is another area's: the product is made through its API.
    const policies = (await (await admin.request.get('/api/license-policies?limit=100')).json()) as { items: { id: number; name: string }[] };
    const policy = policies.items.find((item) => item.name === 'SINGLE_HOST_INDEFINITE')!;
    const created = await admin.request.post('/api/products', {
      data: { ...PRODUCT, active: true, trialDays: 14, releaseDate: '2025-01-01', defaultLicensePolicyId: policy.id },
    });
    expect(created.status(), await created.text()).toBe(201);
    productId = ((await created.json()) as { id: number }).id;

    await admin.goto('/tans/create');
    await admin.getByText('Many TANs', { exact: true }).click();
    await admin.getByRole('combobox', { name: 'Number of TANs' }).click();
    await admin.getByRole('option', { name: '5', exact: true }).click();
    await admin.getByRole('combobox', { name: 'Product' }).click();
    await admin.getByRole('combobox', { name: 'Product' }).fill('E2E');
    await admin.getByRole('option', { name: PRODUCT_LABEL }).click();
    await admin.getByRole('textbox', { name: 'Tags' }).or(admin.getByRole('combobox', { name: 'Tags' })).fill('e2e:journey fair');
    await admin.getByRole('textbox', { name: 'Tags' }).or(admin.getByRole('combobox', { name: 'Tags' })).press('Enter');
    await admin.getByRole('button', { name: 'Create 5 TANs' }).click();
    await admin.getByRole('dialog').getByRole('button', { name: 'Create 5 TANs' }).click();

    await expect.poll(() => admin.getByTestId('recent-tan-code').count()).toBe(5);
    codes = await admin.getByTestId('recent-tan-code').allTextContents();
    for (const code of codes) expect(code).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    await expect.poll(() => admin.getByRole('button', { name: 'Copy codes' }).isVisible()).toBe(true);
    const download = admin.waitForEvent('download');
    await admin.getByRole('button', { name: 'Download CSV' }).click();
    expect((await download).suggestedFilename()).toMatch(/^tans-.*\.csv$/);
    await screenshot(admin, 'licensing-tans-created');

    await admin.goto('/tans');
    await admin.getByRole('combobox', { name: 'Tag', exact: true }).click();
    await admin.getByRole('option', { name: 'e2e:journey' }).click();
    await expect.poll(() => admin.getByTestId('tan-row').count()).toBe(5);
    await admin.getByLabel('Search by code').fill(codes[0].toUpperCase());
    await expect.poll(() => admin.getByTestId('tan-row').count()).toBe(1);
    await screenshot(admin, 'licensing-tan-list');

    // Revoking asks first; the unused fifth TAN is revoked and its row says so.
    await admin.getByLabel('Search by code').fill(codes[4]);
    await expect.poll(() => admin.getByTestId('tan-row').textContent()).toContain(codes[4]);
    await admin.getByTestId('tan-row').getByRole('button', { name: 'Revoke' }).click();
    await admin.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => admin.getByText('TAN revoked').isVisible()).toBe(true);
    await expect.poll(() => admin.getByTestId('tan-row').getByRole('button', { name: 'Revoke' }).isDisabled()).toBe(true);

    // The tags input of the next TAN suggests the tags already in use.
    await admin.goto('/tans/create');
    // The codes made before are still at hand on the next visit, newest first.
    await expect.poll(() => admin.getByRole('heading', { name: 'Latest TANs' }).isVisible()).toBe(true);
    expect(await admin.getByTestId('recent-tan-code').allTextContents()).toEqual(expect.arrayContaining(codes));
    await admin.getByRole('textbox', { name: 'Tags' }).or(admin.getByRole('combobox', { name: 'Tags' })).fill('e2e:j');
    await expect.poll(() => admin.getByRole('option', { name: 'e2e:journey' }).isVisible()).toBe(true);
    await screenshot(admin, 'licensing-tag-suggestions');

    // A product not yet (or no longer) on sale is offered, marked, with what that means for its TANs.
    const unreleased = await admin.request.post('/api/products', {
      data: { name: 'E2E Studio Next', version: '2.0', active: false, releaseDate: '2026-12-31', defaultLicensePolicyId: policy.id },
    });
    expect(unreleased.status(), await unreleased.text()).toBe(201);
    await admin.getByRole('combobox', { name: 'Product' }).click();
    await admin.getByRole('combobox', { name: 'Product' }).fill('Next');
    await admin.getByRole('option', { name: 'E2E Studio Next 2.0 (inactive)' }).click();
    await expect.poll(() => admin.getByText('This product is inactive: its TANs cannot be activated until it is active again.').isVisible()).toBe(true);
  });

  it('a customer activates a TAN, changes its machine and moves the license to another account, which then sees it', async () => {
    const first = createAccount(setup.server, 'first@e2e.test', 'USER');
    const second = createAccount(setup.server, 'second@e2e.test', 'USER');
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, first.email, first.password);

    await activate(page, codes[0].toUpperCase(), 'E2E-BOX-1');
    await expect.poll(() => cardOf(page, 'E2E-BOX-1').isVisible()).toBe(true);
    await expect.poll(() => cardOf(page, 'E2E-BOX-1').getByText(PRODUCT_LABEL).isVisible()).toBe(true);

    await changeMachine(page, 'E2E-BOX-1', 'E2E-BOX-2');
    await expect.poll(() => cardOf(page, 'E2E-BOX-2').isVisible()).toBe(true);
    expect(await cardOf(page, 'E2E-BOX-1').count()).toBe(0);
    await screenshot(page, 'licensing-my-licenses');

    // Moving to one's own address is refused at the field, in words.
    await cardOf(page, 'E2E-BOX-2').getByRole('button', { name: 'Move' }).click();
    await page.getByRole('dialog').getByLabel('E-mail address of the new owner').fill(first.email);
    await page.getByRole('dialog').getByRole('button', { name: 'Move' }).click();
    await page.getByRole('dialog').getByText('The license already belongs to this account').waitFor();
    await page.getByRole('dialog').getByLabel('E-mail address of the new owner').fill(second.email);
    await page.getByRole('dialog').getByRole('button', { name: 'Move' }).click();
    await expect.poll(() => cardOf(page, 'E2E-BOX-2').count()).toBe(0);
    await context.close();

    const secondContext = await newContext(setup.browser, setup.server);
    const secondPage = await secondContext.newPage();
    await login(secondPage, second.email, second.password);
    await secondPage.goto('/account/licenses');
    await expect.poll(() => cardOf(secondPage, 'E2E-BOX-2').isVisible()).toBe(true);
    await secondContext.close();

    // The administrator sees the license under its new owner.
    const users = (await (await admin.request.get(`/api/licenses?tanId=${(await tanId(admin, codes[0]))}`)).json()) as { items: { ownerId: number }[] };
    await admin.goto(`/users/${users.items[0].ownerId}/licenses`);
    await expect.poll(() => cardOf(admin, 'E2E-BOX-2').isVisible()).toBe(true);
  });

  it('a customer adds, extends and deletes a temporary license', async () => {
    const customer = createAccount(setup.server, 'trial@e2e.test', 'USER');
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, customer.email, customer.password);

    await page.getByRole('button', { name: 'Add temporary license' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a temporary license' });
    await dialog.getByRole('combobox', { name: 'Product' }).click();
    await page.getByRole('option', { name: PRODUCT_LABEL }).click();
    await dialog.getByLabel('Machine ID').fill('E2E-TRIAL');
    await dialog.getByRole('button', { name: 'Add temporary license' }).click();

    const card = cardOf(page, 'E2E-TRIAL');
    await expect.poll(() => card.isVisible()).toBe(true);
    await expect.poll(() => card.getByText('Temporary', { exact: true }).isVisible()).toBe(true);
    // A trial is called a trial, never by its product's perpetual default policy.
    await expect.poll(() => card.getByText('Trial license for one computer').isVisible()).toBe(true);
    // The product's 14 trial days are the suggested validity, and as far as a trial of it reaches.
    await expect.poll(() => card.getByTestId('license-valid-until').textContent()).toBe(shownDate(isoDaysFromToday(14)));
    // It already runs as long as a trial of it can (its first day + 14): the dialog offers nothing more.
    await card.getByRole('button', { name: 'Extend' }).click();
    await expect.poll(() => page.getByRole('dialog').getByTestId('extend-none-left').isVisible()).toBe(true);
    expect(await page.getByRole('dialog').getByText(`A trial can run until ${shownDate(isoDaysFromToday(14))} at most`).isVisible()).toBe(true);
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).last().click();

    // A second machine for the same product is refused: that machine's trial is used.
    await page.getByRole('button', { name: 'Add temporary license' }).click();
    await dialog.getByRole('combobox', { name: 'Product' }).click();
    await page.getByRole('option', { name: PRODUCT_LABEL }).click();
    await dialog.getByLabel('Machine ID').fill('E2E-TRIAL');
    await dialog.getByRole('button', { name: 'Add temporary license' }).click();
    await toastSays(page, 'This computer has already had a temporary license for this product.');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // A trial that ends sooner is extended by days and weeks, up to the 14 days.
    const shortTrial = await page.request.post('/api/licenses/temporary', { data: { productId, machineId: 'E2E-TRIAL-SHORT', validUntil: isoDaysFromToday(3) } });
    expect(shortTrial.status(), await shortTrial.text()).toBe(201);
    await page.reload();
    const short = cardOf(page, 'E2E-TRIAL-SHORT');
    await short.getByRole('button', { name: 'Extend' }).click();
    await page.getByRole('dialog').getByLabel('Extend by').fill('3');
    await page.getByRole('dialog').getByRole('button', { name: 'Extend' }).click();
    await expect.poll(() => short.getByTestId('license-valid-until').textContent()).toBe(shownDate(isoDaysFromToday(6)));
    // 8 days are left up to its first day + 14: two weeks are refused under the field with the spec's
    // words, one week is not; months are offered too (product spec: days, weeks or months).
    await short.getByRole('button', { name: 'Extend' }).click();
    await page.getByRole('dialog').getByLabel('Extend by').fill('2');
    await page.getByRole('dialog').getByText('Weeks', { exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Extend' }).click();
    await expect.poll(() => page.getByRole('dialog').getByText('At most 1 (Weeks)').isVisible()).toBe(true);
    await expect.poll(() => page.getByRole('dialog').getByText('You cannot extend the license this far into the future', { exact: false }).isVisible()).toBe(true);
    await page.getByRole('dialog').getByText('Months', { exact: true }).click();
    await page.getByRole('dialog').getByLabel('Extend by').fill('1');
    await expect.poll(() => page.getByRole('dialog').getByText('You cannot extend the license this far into the future', { exact: false }).isVisible()).toBe(true);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await screenshot(page, 'licensing-temporary');

    await card.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => cardOf(page, 'E2E-TRIAL').count()).toBe(0);
    await context.close();
  });

  it('the different-machines limit refuses a fourth machine with its numbers', async () => {
    const customer = createAccount(setup.server, 'hopper@e2e.test', 'USER');
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, customer.email, customer.password);
    await activate(page, codes[1], 'HOP-1');
    await expect.poll(() => cardOf(page, 'HOP-1').isVisible()).toBe(true);
    await changeMachine(page, 'HOP-1', 'HOP-2');
    await expect.poll(() => cardOf(page, 'HOP-2').isVisible()).toBe(true);
    await changeMachine(page, 'HOP-2', 'HOP-3');
    await expect.poll(() => cardOf(page, 'HOP-3').isVisible()).toBe(true);
    // The built-in policy allows 3 machines within 30 days (720 hours).
    await changeMachine(page, 'HOP-3', 'HOP-4');
    await toastSays(page, 'You have already used this license on 3 different machines within the last 30 days or 720 hours');
    await screenshot(page, 'licensing-machine-limit');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect(await cardOf(page, 'HOP-3').count()).toBe(1);
    await context.close();
  });

  it("a used-up TAN is refused with the spec's message", async () => {
    const customer = createAccount(setup.server, 'late@e2e.test', 'USER');
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, customer.email, customer.password);
    await activate(page, codes[0], 'LATE-BOX');
    await toastSays(page, 'Invalid license (activation failed)');
    await context.close();
  });

  it("a TAN's license count cannot go below its activations, and the field says why", async () => {
    const created = await admin.request.post('/api/tans?count=1', { data: { productId, licenseCount: 3 } });
    expect(created.status(), await created.text()).toBe(201);
    const code = ((await created.json()) as { items: { code: string }[] }).items[0].code;
    for (const machineId of ['COUNT-1', 'COUNT-2']) {
      const activated = await admin.request.post('/api/licenses/activate', { data: { tan: code, machineId } });
      expect(activated.status(), await activated.text()).toBe(201);
    }
    await admin.goto('/tans');
    await admin.getByLabel('Search by code').fill(code);
    await expect.poll(() => admin.getByTestId('tan-row').count()).toBe(1);
    await admin.getByTestId('tan-row').getByRole('button', { name: 'Edit' }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByLabel(/^License count/).fill('1');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.getByText('Already activated 2 times: enter 2 or more').isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });
});

async function tanId(page: Page, code: string): Promise<number> {
  const list = (await (await page.request.get(`/api/tans?filter=${code}`)).json()) as { items: { id: number }[] };
  return list.items[0].id;
}
