/**
 * An air-gapped machine's license through the portal (issue 52, DESIGN.md section 6h): the machine's
 * request file, carried to the portal's "Offline machines", comes back as a file bound to its install
 * key; its deactivation proof frees the license at once, and only once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { LicenseClient, type PublicKey } from '@license-manager/sdk';
import { deactivationProof, installKey, licenseRequest, type InstallKey } from '@license-manager/sdk/node';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';

const PRODUCT = 'Airgap CAD';
const MACHINE = 'AIRGAP-LAB-7';

async function post(page: Page, url: string, data: object): Promise<unknown> {
  const response = await page.request.post(url, { data });
  expect(response.status(), `${url}: ${await response.text()}`).toBeLessThan(300);
  return response.json();
}

/** The page's toast with this text (the error notifications). */
const toast = (page: Page, text: string) => page.locator('.mantine-Notification-root').filter({ hasText: text });

describeJourney('offline activation: a machine with no network gets, and gives back, its license through the portal', () => {
  const setup = journeySetup();
  const directories: string[] = [];
  let keys: PublicKey[];
  let tan: string;
  /** The offline machine's installation, and another one (a copied file must not work there). */
  let machine: InstallKey;
  /** When the server issued the machine's file (its deactivation proof names it). */
  let fileIssuedAt: string;
  let otherMachine: InstallKey;

  beforeAll(async () => {
    keys = ((await (await fetch(`${setup.server.url}/api/client/v1/keys`)).json()) as { keys: PublicKey[] }).keys;
    for (let i = 0; i < 2; i++) directories.push(fs.mkdtempSync(path.join(os.tmpdir(), 'lm-offline-')));
    machine = await installKey(directories[0]);
    otherMachine = await installKey(directories[1]);
  });
  afterAll(() => {
    for (const directory of directories) fs.rmSync(directory, { recursive: true, force: true });
  });

  const clientOn = (key: InstallKey) => new LicenseClient({ serverUrl: 'http://127.0.0.1:9', product: PRODUCT, machineId: MACHINE, publicKeys: keys, installKeyId: key.keyId });

  it('a customer uploads the request, activates it with a TAN, and the downloaded file works on that machine only', async () => {
    const customer = createAccount(setup.server, 'offline-customer@e2e.test', 'USER');
    const admin = await (await newContext(setup.browser, setup.server)).newPage();
    await login(admin, ADMIN.email, ADMIN.password);
    const policies = (await (await admin.request.get('/api/license-policies?limit=100')).json()) as { items: { id: number; name: string }[] };
    const policy = policies.items.find((item) => item.name === 'SINGLE_HOST_INDEFINITE')!;
    const product = (await post(admin, '/api/products', { name: PRODUCT, version: '4.0', trialDays: 14, releaseDate: '2026-01-01', defaultLicensePolicyId: policy.id })) as { id: number };
    tan = ((await post(admin, '/api/tans?count=1', { productId: product.id, licenseCount: 1 })) as { items: { code: string }[] }).items[0].code;
    await admin.context().close();

    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, customer.email, customer.password);
    // From My licenses, as a person finds it: the offline instructions, then the machines' page.
    await page.goto('/account/licenses');
    await page.getByRole('link', { name: 'Offline license instructions' }).click();
    await page.getByRole('link', { name: 'Offline machines' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Offline machines');
    const activation = page.locator('div.mantine-Paper-root').filter({ has: page.getByRole('heading', { name: 'Activate an offline machine' }) });

    // Not a request file: said plainly, nothing activated.
    await activation.getByRole('textbox', { name: 'License request file as text' }).fill('-----BEGIN LICENSE REQUEST-----\nbroken\n-----END LICENSE REQUEST-----');
    await toast(page, 'This is not a valid license request file').waitFor();
    expect(await activation.getByRole('button', { name: 'Activate', exact: true }).isDisabled()).toBe(true);

    // Something else picked by mistake (a 100 KB file): refused at once, the field says why.
    const wrongFile = path.join(directories[0], 'photo.req');
    fs.writeFileSync(wrongFile, Buffer.alloc(100 * 1024, 1));
    await activation.locator('input[type=file]').setInputFiles(wrongFile);
    await activation.getByText('This file is larger than 64 KB').waitFor();

    // The file from the USB stick, uploaded: the page says what it asks for.
    const requestFile = path.join(directories[0], 'airgap.req');
    fs.writeFileSync(requestFile, licenseRequest(machine, { product: PRODUCT, machineId: MACHINE }));
    await activation.locator('input[type=file]').setInputFiles(requestFile);
    await expect.poll(() => activation.getByText(`${PRODUCT} on machine ${MACHINE}`).isVisible()).toBe(true);
    await activation.getByRole('textbox', { name: 'TAN' }).fill(tan);
    await activation.getByRole('button', { name: 'Activate', exact: true }).click();
    await activation.getByText('Activated. Download the license file').waitFor();
    await screenshot(page, 'offline-activation-activated-1280');
    const downloading = page.waitForEvent('download');
    await activation.getByRole('button', { name: 'Download the license file' }).click();
    const file = fs.readFileSync((await (await downloading).path())!, 'utf8');

    const onMachine = await clientOn(machine).importFile(file);
    expect(onMachine).toMatchObject({ valid: true, license: { machineId: MACHINE, installKeyId: machine.keyId } });
    fileIssuedAt = onMachine.valid ? onMachine.license.issuedAt : '';
    const copied = await clientOn(otherMachine).importFile(file);
    expect(copied).toMatchObject({ valid: false, reason: 'INVALID_FILE' });
    expect(!copied.valid && copied.message).toContain('bound to another installation');

    // The TAN is used up: the same request again is refused, in words.
    await activation.getByRole('button', { name: 'Activate', exact: true }).click();
    await toast(page, 'Invalid license').waitFor();
    await context.close();
  });

  it('the machine\'s deactivation proof frees the license at once; the same proof again is refused', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, 'offline-customer@e2e.test', 'secret-pass-1');
    const mine = (await (await page.request.get('/api/licenses?limit=100')).json()) as { items: { id: number; machineId: string | null; productName?: string }[] };
    const license = mine.items.find((item) => item.machineId === MACHINE)!;
    expect(license).toBeDefined();
    const proof = deactivationProof(machine, { licenseId: license.id, machineId: MACHINE, fileIssuedAt });

    await page.goto('/account/offline');
    const freeing = page.locator('div.mantine-Paper-root').filter({ has: page.getByRole('heading', { name: 'Free an offline machine' }) });
    await freeing.locator('input.mantine-Select-input').click();
    await page.getByRole('option', { name: new RegExp(`#${license.id} `) }).click();
    await freeing.getByRole('textbox', { name: 'Deactivation proof as text' }).fill(proof);
    await freeing.getByRole('button', { name: 'Free the machine' }).click();
    await freeing.getByText('The machine is freed').waitFor();
    await screenshot(page, 'offline-activation-freed-1280');
    const after = (await (await page.request.get(`/api/licenses/${license.id}`)).json()) as { machineId: string | null };
    expect(after.machineId).toBeNull();

    // Carried over twice: the second time is refused and says why.
    await freeing.getByRole('textbox', { name: 'Deactivation proof as text' }).fill(proof);
    await freeing.getByRole('button', { name: 'Free the machine' }).click();
    await toast(page, 'This deactivation proof has already been accepted').waitFor();
    await context.close();
  });

  it('reads on a phone in German: both steps, nothing sticking out', async () => {
    const context = await newContext(setup.browser, setup.server, { locale: 'de-DE', viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await login(page, 'offline-customer@e2e.test', 'secret-pass-1');
    await page.goto('/account/offline');
    await page.getByRole('heading', { level: 2 }).nth(1).waitFor();
    expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await screenshot(page, 'offline-activation-390-de');
    await context.close();
  });
});
