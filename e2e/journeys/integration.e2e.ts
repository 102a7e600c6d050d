import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startReceiver, type Receiver } from '../../packages/server/test/webhook-receiver.ts';
import { ADMIN, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';
import { text } from '../support/messages.ts';

const PHONE = { width: 390, height: 844 };

async function openAccountMenuItem(page: Page, name: string): Promise<void> {
  await page.getByTestId('account-menu').click();
  await page.getByRole('menuitem', { name }).click();
}

describeJourney('the integration API: API tokens and webhooks', () => {
  const setup = journeySetup();
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('a user creates a token, copies it once, calls the API with it, and revokes it', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    await openAccountMenuItem(page, 'API tokens');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/account/api-tokens');
    await expect.poll(() => page.getByRole('heading', { name: 'API tokens' }).isVisible()).toBe(true);

    await page.getByTestId('new-token').click();
    const dialog = page.getByRole('dialog', { name: 'New API token' });
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => dialog.getByText(text('en', 'validation.required')).first().isVisible()).toBe(true);
    await dialog.getByLabel('Name').fill('Web shop');
    await dialog.getByLabel('Expires').click();
    await page.getByRole('option', { name: 'In 30 days' }).click();
    await dialog.getByRole('button', { name: 'Create' }).click();

    const shown = page.getByTestId('created-token');
    await expect.poll(() => shown.inputValue()).toMatch(/^lmat_/);
    const token = await shown.inputValue();
    await expect.poll(() => page.getByRole('row', { name: /Web shop/ }).isVisible()).toBe(true);
    await expect.poll(() => dialog.count()).toBe(0);
    await screenshot(page, 'api-tokens-created-1280');

    // The token works without the browser's cookies.
    const asToken = await fetch(`${setup.server.url}/api/session`, { headers: { authorization: `Bearer ${token}` } });
    expect(asToken.status).toBe(200);
    expect(await asToken.json()).toMatchObject({ username: ADMIN.email });

    await page.getByRole('button', { name: 'I have stored it' }).click();
    await expect.poll(() => shown.count()).toBe(0);
    await page.reload();
    // Shown only once: the list never carries it again.
    await expect.poll(() => page.getByRole('row', { name: /Web shop/ }).isVisible()).toBe(true);
    expect(await page.content()).not.toContain(token);

    await page.setViewportSize(PHONE);
    // The shell's navbar slides away when the width drops to a phone's.
    await page.waitForTimeout(600);
    await screenshot(page, 'api-tokens-390');
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByRole('button', { name: 'Revoke Web shop' }).click();
    await page.getByTestId('confirm-revoke').click();
    await expect.poll(() => page.getByRole('row', { name: /Web shop/ }).count()).toBe(0);
    const revoked = await fetch(`${setup.server.url}/api/session`, { headers: { authorization: `Bearer ${token}` } });
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { error: string }).error).toBe('ERR_INVALID_TOKEN');
    await context.close();
  });

  it('an administrator adds an endpoint, sends a test event, reads the delivery log, redelivers and rotates the secret', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    await page.getByRole('navigation', { name: 'Main menu' }).getByText('Tools', { exact: true }).click();
    await page.getByRole('menuitem', { name: 'Webhooks' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/tools/webhooks');

    await page.getByTestId('add-endpoint').click();
    const dialog = page.getByRole('dialog', { name: 'Add endpoint' });
    await dialog.getByLabel('URL').fill('ftp://crm.example.com');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => dialog.getByText('Enter an address starting with http:// or https://').isVisible()).toBe(true);
    await expect.poll(() => dialog.getByText('Choose at least one event').isVisible()).toBe(true);
    await dialog.getByLabel('URL').fill(receiver.url);
    await dialog.getByLabel('user.updated').check();
    await dialog.getByLabel('license.created').check();
    await dialog.getByLabel('Description').fill('CRM');
    await dialog.getByRole('button', { name: 'Create' }).click();

    const secretInput = page.getByTestId('endpoint-secret');
    await expect.poll(() => secretInput.inputValue()).toMatch(/^whsec_/);
    receiver.secret = await secretInput.inputValue();
    await expect.poll(() => page.getByTestId('endpoint-url').first().textContent()).toBe(receiver.url);
    await expect.poll(() => dialog.count()).toBe(0);
    await screenshot(page, 'webhooks-created-1280');
    await page.getByRole('button', { name: 'I have stored it' }).click();

    await page.getByRole('button', { name: `Send test event ${receiver.url}` }).click();
    await expect.poll(() => page.getByText(/Test event delivered \(200, \d+ ms\)/).isVisible()).toBe(true);
    await expect.poll(() => receiver.received.length).toBe(1);
    expect(receiver.received[0].payload.type).toBe('webhook.test');
    expect(receiver.rejected).toEqual([]);

    await page.getByRole('button', { name: `Delivery log ${receiver.url}` }).click();
    const log = page.getByRole('dialog', { name: `Delivery log of ${receiver.url}` });
    await expect.poll(() => log.getByTestId('delivery-status').first().textContent()).toBe('Delivered');
    await expect.poll(() => log.getByTestId('delivery-attempt').first().textContent()).toContain('200');
    await log.getByTestId('redeliver').first().click();
    // The worker sends it again, with the same webhook-id.
    await expect.poll(() => receiver.received.length).toBe(2);
    expect(receiver.received[1].headers['webhook-id']).toBe(receiver.received[0].headers['webhook-id']);
    await expect.poll(() => log.getByTestId('delivery-status').allTextContents()).toEqual(['Delivered', 'Delivered']);
    await screenshot(page, 'webhooks-log-1280');
    await page.setViewportSize(PHONE);
    await page.waitForTimeout(600);
    await screenshot(page, 'webhooks-log-390');
    await page.keyboard.press('Escape');
    await expect.poll(() => log.count()).toBe(0);
    await screenshot(page, 'webhooks-390');
    await page.setViewportSize({ width: 1280, height: 800 });

    // A receiver that is not there: the toast says why, in the person's words.
    const closed = 'http://127.0.0.1:9/closed';
    const made = await page.evaluate(async (url) => (await fetch('/api/webhook-endpoints', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url, events: ['license.created'] }) })).status, closed);
    expect(made).toBe(201);
    await page.reload();
    await page.getByRole('button', { name: `Send test event ${closed}` }).click();
    await expect.poll(() => page.getByText('Test event not delivered: The receiver refused the connection (nothing answers at this address and port)').isVisible()).toBe(true);

    await page.getByRole('button', { name: `New secret ${receiver.url}` }).click();
    await page.getByTestId('confirm-rotate').click();
    await expect.poll(async () => (await secretInput.count()) && secretInput.inputValue()).toMatch(/^whsec_/);
    expect(await secretInput.inputValue()).not.toBe(receiver.secret);
    await context.close();
  });
});
