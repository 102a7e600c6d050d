/**
 * Releases and downloads (issue 53, DESIGN.md section 6i): an administrator publishes a release and
 * uploads its file with progress (Uppy through tus); a customer whose free updates ended before it
 * downloads the release that is theirs and reads why the newer one is not.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';
import { seedActivatedLicense } from '../support/licensing-seed.ts';

const PRODUCT = 'Release Studio';
const CUSTOMER = 'releases-customer@e2e.test';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function call(page: Page, method: string, url: string, data?: object): Promise<any> {
  const response = await page.request.fetch(url, { method, data });
  expect(response.status(), `${method} ${url}: ${await response.text()}`).toBeLessThan(300);
  return response.json();
}

/** A finished tus upload through the API (as Uppy makes one); its id. */
async function upload(page: Page, bytes: Buffer): Promise<string> {
  const tus = { 'tus-resumable': '1.0.0' };
  const created = await page.request.fetch('/api/uploads', { method: 'POST', headers: { ...tus, 'upload-length': String(bytes.length) } });
  expect(created.status()).toBe(201);
  const location = created.headers().location!;
  const patched = await page.request.fetch(location, { method: 'PATCH', headers: { ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, data: bytes });
  expect(patched.status()).toBe(204);
  return location.split('/').pop()!;
}

describeJourney('releases: an administrator publishes and uploads, a customer downloads what is theirs', () => {
  const setup = journeySetup();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-releases-e2e-'));
  const installer = { old: randomBytes(20_000), next: randomBytes(300_000) };
  let productId: number;

  beforeAll(async () => {
    createAccount(setup.server, CUSTOMER, 'USER');
  });
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  it('an administrator publishes 1.1.0 and uploads its installer through a broken connection, watching the progress to the end', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    // The catalogue and the customer's license, bought 60 days ago with free updates that ended 10 days
    // ago: 1.0.0 (30 days ago) is theirs, 1.1.0 (today) is not.
    const policies = (await call(page, 'GET', '/api/license-policies?limit=100')) as { items: { id: number; name: string }[] };
    const policy = policies.items.find((item) => item.name === 'SINGLE_HOST_INDEFINITE')!;
    productId = (await call(page, 'POST', '/api/products', { name: PRODUCT, version: '1', trialDays: 14, releaseDate: '2026-01-01', defaultLicensePolicyId: policy.id })).id;
    const old = await call(page, 'POST', `/api/products/${productId}/releases`, { version: '1.0.0', releasedAt: new Date(Date.now() - 30 * 86_400_000).toISOString() });
    await call(page, 'POST', `/api/releases/${old.id}/artifacts`, { uploadId: await upload(page, installer.old), platform: 'windows', arch: 'x86_64', filename: 'release-studio-1.0.0.exe' });
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
    await seedActivatedLicense(setup.server, { email: CUSTOMER, productId, machineId: 'RELEASE-PC-1', freeUpdatesUntil: daysAgo(10), activatedOn: daysAgo(60) });

    // Products → Releases, as the menu leads there.
    await page.goto('/');
    await page.getByRole('navigation', { name: 'Main menu' }).getByText('Products', { exact: true }).click();
    await page.getByRole('menuitem', { name: 'Releases' }).click();
    await page.getByTestId('release-product').click();
    await page.getByRole('option', { name: new RegExp(PRODUCT) }).click();
    await page.getByTestId('release').first().waitFor();

    await page.getByTestId('new-release').click();
    const dialog = page.getByRole('dialog', { name: 'New release' });
    await dialog.getByTestId('release-version').fill('1.1');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByText(/semver|2\.1\.0|version/i).first().waitFor();
    await dialog.getByTestId('release-version').fill('1.1.0');
    await dialog.getByLabel('Release notes').fill('## New\n- Faster rendering');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    const release = page.getByTestId('release').filter({ hasText: '1.1.0' });
    await release.waitFor();

    await release.getByTestId('add-file').click();
    const adding = page.getByRole('dialog', { name: 'Add a file to 1.1.0' });
    const file = path.join(work, 'release-studio-1.1.0.exe');
    fs.writeFileSync(file, installer.next);
    await adding.locator('input[type=file]').first().setInputFiles(file);
    await expect.poll(() => adding.getByTestId('artifact-filename').inputValue()).toBe('release-studio-1.1.0.exe');
    // The connection breaks during the first send: Uppy asks the server where it stands and goes on.
    let cuts = 0;
    await page.route('**/api/uploads/**', async (route) => {
      if (route.request().method() === 'PATCH' && cuts === 0) {
        cuts += 1;
        await route.abort('connectionreset');
      } else await route.continue();
    });
    await adding.getByRole('button', { name: /^Upload/ }).click();
    await adding.getByTestId('upload-done').waitFor();
    expect(cuts).toBe(1);
    // Uppy's status bar says the upload is complete (it showed the progress on the way there).
    await adding.getByText('Complete', { exact: true }).waitFor();
    await screenshot(page, 'releases-upload-done-1280');
    await adding.getByRole('button', { name: 'Save file' }).click();
    await expect.poll(() => adding.count()).toBe(0);
    await release.getByRole('link', { name: 'release-studio-1.1.0.exe' }).waitFor();
    expect(await release.locator('code').first().getAttribute('title')).toBe(sha256(installer.next));
    await screenshot(page, 'releases-page-1280');
    await context.close();
  });

  it('a customer downloads 1.0.0, and reads why 1.1.0 is not theirs and how to get it', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, CUSTOMER, 'secret-pass-1');
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Downloads' }).click();
    const license = page.getByTestId('license-downloads').filter({ hasText: PRODUCT });
    await license.waitFor();
    await expect.poll(() => license.getByTestId('newer-release').textContent()).toMatch(/Version 1\.1\.0 .* was released after your free updates ended\. Renew your free updates/);
    expect(await license.getByTestId('download-link').allTextContents()).toEqual([expect.stringContaining('release-studio-1.0.0.exe')]);
    const downloading = page.waitForEvent('download');
    await license.getByTestId('download-link').click();
    const download = await downloading;
    expect(sha256(fs.readFileSync((await download.path())!))).toBe(sha256(installer.old));
    await screenshot(page, 'releases-downloads-1280');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await license.waitFor();
    expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await screenshot(page, 'releases-downloads-390');
    await context.close();
  });

  it('a German administrator reads the uploader in German', async () => {
    const context = await newContext(setup.browser, setup.server, { locale: 'de-DE' });
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    await page.goto(`/releases?productId=${productId}`);
    await page.getByTestId('release').filter({ hasText: '1.1.0' }).getByTestId('add-file').click();
    const adding = page.getByRole('dialog');
    await adding.getByTestId('artifact-uploader').getByText(/Dateien hier ablegen\/einfügen/).waitFor();
    await screenshot(page, 'releases-uploader-de');
    await context.close();
  });
});
