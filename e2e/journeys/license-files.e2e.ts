import fs from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import type { Download, Page } from 'playwright-core';
import { verifyLicenseFile, type PublicKey } from '@license-manager/sdk';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';
import { seedActivatedLicense, seedProduct } from '../support/licensing-seed.ts';

/** What the page scripts below use of the browser (the journeys compile without the DOM library). */
type InPage = typeof globalThis & {
  document: { createElement(tag: 'a'): { href: string; click(): void } };
  navigator: { clipboard: { readText(): Promise<string> } };
};

async function downloadedText(download: Download): Promise<string> {
  return fs.readFileSync((await download.path())!, 'utf8');
}

/** Clicks the license's download link where My licenses shows one, else follows the same URL as that link would. */
async function downloadLicenseFile(page: Page, href: string): Promise<Download> {
  const link = page.locator(`a[href="${href}"]`).first();
  const shown = await link.waitFor({ timeout: 3000 }).then(
    () => true,
    () => false,
  );
  const downloading = page.waitForEvent('download');
  if (shown) await link.click();
  else await page.evaluate((url) => Object.assign((globalThis as InPage).document.createElement('a'), { href: url }).click(), href);
  return downloading;
}

describeJourney('license files: a customer downloads a .lic file, an administrator shares an ANY-Lic link', () => {
  const setup = journeySetup();
  let keys: PublicKey[];
  let productId: number;

  beforeAll(async () => {
    keys = ((await (await fetch(`${setup.server.url}/api/client/v1/keys`)).json()) as { keys: PublicKey[] }).keys;
    productId = await seedProduct(setup.server, 'Studio Pro', '2.1');
  });

  it('a customer downloads the .lic file of an activated license and it verifies', async () => {
    const customer = createAccount(setup.server, 'file-customer@e2e.test', 'USER');
    const licenseId = await seedActivatedLicense(setup.server, { email: customer.email, productId, machineId: 'WORKSTATION-7' });
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, customer.email, customer.password);
    await page.goto('/account/licenses');
    const download = await downloadLicenseFile(page, `/api/licenses/${licenseId}/file?format=lic`);
    expect(download.suggestedFilename()).toBe('Studio_Pro-2.1-WORKSTATION-7.lic');
    const text = await downloadedText(download);
    expect(text.startsWith('-----BEGIN LICENSE FILE-----\n')).toBe(true);
    const payload = await verifyLicenseFile(text, keys);
    expect(payload).toMatchObject({ licenseId, machineId: 'WORKSTATION-7', product: { name: 'Studio Pro', version: '2.1' } });
    await context.close();
  });

  it('an administrator creates an ANY-Lic link, copies it, and the link downloads a valid file in a fresh browser', async () => {
    const context = await newContext(setup.browser, setup.server);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: setup.server.url });
    const page = await context.newPage();
    // Until the catalogue API (issue 4) answers GET /api/products, the product select is fed the seeded product.
    if ((await fetch(`${setup.server.url}/api/products`)).status === 404) {
      await page.route('**/api/products?*', (route) => route.fulfill({ json: { items: [{ id: productId, name: 'Studio Pro', version: '2.1' }], totalCount: 1 } }));
    }
    await login(page, ADMIN.email, ADMIN.password);
    await page.goto('/tools/create-anylic');
    await page.getByText('*.json').click();
    await page.getByRole('combobox', { name: 'Product' }).fill('Studio');
    await page.getByRole('option', { name: /Studio Pro/ }).click();
    await page.getByLabel('Valid until').click();
    const lastDay = new Date(Date.now() + 3 * 86_400_000);
    // Three days ahead may lie in the next month (from the 26th or so): the picker opens on this one.
    if (lastDay.getMonth() !== new Date().getMonth()) await page.locator('button[data-direction="next"]').first().click();
    await page.locator('table button:not([data-disabled]):not([data-outside])', { hasText: new RegExp(`^${lastDay.getDate()}$`) }).first().click();
    await page.getByRole('button', { name: 'Create link' }).click();
    const url = await page.getByTestId('anylic-url').inputValue();
    expect(url).toMatch(new RegExp(`^${setup.server.url}/api/anylic/[A-Za-z0-9_-]{43}$`));

    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Copied' }).isVisible()).toBe(true);
    await screenshot(page, 'anylic-link-copied');
    expect(await page.evaluate(() => (globalThis as InPage).navigator.clipboard.readText())).toBe(url);
    // The label reads 'Copied' for 700 ms, then 'Copy' again.
    await expect.poll(() => page.getByRole('button', { name: 'Copy', exact: true }).isVisible()).toBe(true);
    await context.close();

    const stranger = await setup.browser.newContext({ acceptDownloads: true });
    expect(await stranger.cookies()).toEqual([]);
    const visitor = await stranger.newPage();
    const downloading = visitor.waitForEvent('download');
    await visitor.goto(url).catch(() => undefined);
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('Studio_Pro-2.1-ANY.json');
    const payload = await verifyLicenseFile(await downloadedText(download), keys);
    expect(payload).toMatchObject({ kind: 'ANYLIC', machineId: '*', product: { name: 'Studio Pro', version: '2.1' } });
    expect(Date.parse(payload.expiresAt!)).toBeGreaterThan(Date.now() + 2 * 86_400_000);
    await stranger.close();
  });
});
