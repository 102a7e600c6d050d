/**
 * Selling without glue (issue 40) in Chromium: an administrator connects a Stripe shop from Tools →
 * Shop connections, a signed purchase arrives, the buyer finds the bought TAN on My licenses as ready
 * to activate and activates it, the desktop refresh accepts it until a refund revokes it, an
 * event for an unknown price shows as failed with its reason and is replayed once mapped, Tools →
 * Shop orders lists every order with its TANs and licenses and replays a failed one, and a price
 * mapped as an add-on adds its feature to the TAN the buyer already has (issue 51).
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';
import { cutOff } from '../support/layout.ts';
import { seedFeature, seedProduct } from '../support/licensing-seed.ts';

const SECRET = 'whsec_e2e_selling_0123456789';
const PRODUCT = { name: 'E2E Shop CAD', version: '5.0' };

/** Posts a Stripe event signed as Stripe signs it: `t=…,v1=` hex HMAC-SHA256 of `t.body`. */
async function stripe(url: string, type: string, object: Record<string, unknown>) {
  const body = JSON.stringify({ id: `evt_${Date.now()}${Math.random().toString(16).slice(2, 8)}`, object: 'event', type, created: Math.floor(Date.now() / 1000), data: { object } });
  const t = Math.floor(Date.now() / 1000);
  const signature = createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex');
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': `t=${t},v1=${signature}` }, body });
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { events: { outcome: string; reason: string | null; tanIds: number[] }[] }).events[0];
}

const checkout = (email: string, price: string, paymentIntent: string) => ({
  id: `cs_test_${paymentIntent}`,
  object: 'checkout.session',
  mode: 'payment',
  payment_status: 'paid',
  payment_intent: paymentIntent,
  customer_details: { email, name: 'Grace Hopper' },
  locale: 'en',
  metadata: { items: `${price}:1` },
});

describeJourney('selling through a connected shop', () => {
  const setup = journeySetup();
  let adminContext: BrowserContext;
  let admin: Page;
  let webhookUrl = '';

  beforeAll(async () => {
    await seedProduct(setup.server, PRODUCT.name, PRODUCT.version);
    adminContext = await newContext(setup.browser, setup.server, { viewport: { width: 1366, height: 768 } });
    admin = await adminContext.newPage();
  });
  afterAll(async () => {
    await adminContext?.close();
  });

  it('an administrator connects Stripe with a price mapped to a product and sees the webhook address', async () => {
    await login(admin, ADMIN.email, ADMIN.password);
    await admin.getByRole('navigation', { name: 'Main menu' }).getByText('Tools', { exact: true }).click();
    await admin.getByRole('menuitem', { name: 'Shop connections' }).click();
    await expect.poll(() => new URL(admin.url()).pathname).toBe('/tools/shop-connections');
    await admin.getByTestId('add-shop-connection').click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Stripe (test)');
    await dialog.getByLabel('Webhook secret').fill(SECRET);
    await dialog.getByRole('button', { name: 'Add mapping' }).click();
    await dialog.getByLabel('Shop id (price, product, variant)').fill('price_e2e_pro');
    await dialog.getByRole('combobox', { name: 'Product' }).click();
    await dialog.getByRole('combobox', { name: 'Product' }).fill('E2E Shop');
    await admin.getByRole('option', { name: new RegExp(PRODUCT.name) }).click();
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => admin.getByRole('row', { name: /Stripe \(test\)/ }).isVisible()).toBe(true);
    webhookUrl = (await admin.getByRole('row', { name: /Stripe \(test\)/ }).locator('code').textContent()) ?? '';
    expect(webhookUrl).toMatch(/\/api\/webhooks\/shop\/\d+$/);
    // The secret is never shown again.
    expect(await admin.content()).not.toContain(SECRET);
    await screenshot(admin, 'shop-connections-1366');

    // The page's guide is served by the app itself, not a path in the repository.
    await admin.getByRole('link', { name: 'selling guide' }).click();
    await expect.poll(() => new URL(admin.url()).pathname).toBe('/help/selling');
    await expect.poll(() => admin.getByRole('heading', { level: 1, name: 'Selling: shop purchases and subscriptions become licenses' }).isVisible()).toBe(true);
    await expect.poll(() => admin.getByRole('heading', { name: 'Stripe' }).isVisible()).toBe(true);
    await screenshot(admin, 'help-selling-1366');
    await admin.goBack();
    await expect.poll(() => new URL(admin.url()).pathname).toBe('/tools/shop-connections');
  });

  it('a purchase becomes a TAN the buyer activates from My licenses; the desktop refresh works until a refund revokes it', async () => {
    const buyer = createAccount(setup.server, 'buyer@shop.e2e.test', 'USER');
    const bought = await stripe(webhookUrl, 'checkout.session.completed', checkout(buyer.email, 'price_e2e_pro', 'pi_e2e_1'));
    expect(bought.outcome).toBe('processed');

    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, buyer.email, buyer.password);
    await page.goto('/account/licenses');
    const ready = page.getByTestId('ready-to-activate');
    await expect.poll(() => ready.isVisible()).toBe(true);
    await expect.poll(() => ready.getByText(PRODUCT.name).isVisible()).toBe(true);
    await ready.getByRole('button', { name: 'Activate' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Machine ID').fill('SHOP-MACHINE-1');
    await dialog.getByRole('button', { name: 'Activate' }).click();
    await expect.poll(() => ready.count()).toBe(0);
    await expect.poll(() => page.getByText('SHOP-MACHINE-1').first().isVisible()).toBe(true);
    await screenshot(page, 'shop-bought-activated-1280');

    const refresh = () => fetch(`${setup.server.url}/api/client/v1/license`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ machineId: 'SHOP-MACHINE-1', product: PRODUCT.name }) });
    expect((await refresh()).status).toBe(200);
    await stripe(webhookUrl, 'charge.refunded', { id: 'ch_e2e_1', object: 'charge', refunded: true, payment_intent: 'pi_e2e_1' });
    const refused = await refresh();
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe('ERR_LICENSE_REVOKED');
    await context.close();
  });

  it('an event for an unknown price is listed as failed with its reason and replayed once mapped', async () => {
    const failed = await stripe(webhookUrl, 'checkout.session.completed', checkout('late@shop.e2e.test', 'price_e2e_team', 'pi_e2e_2'));
    expect(failed).toMatchObject({ outcome: 'failed', reason: 'unknown-mapping:price_e2e_team' });
    await admin.reload();
    const row = admin.getByRole('row', { name: /Stripe \(test\)/ });
    await expect.poll(() => row.getByTestId('failed-events').textContent()).toBe('1 failed event');

    await row.getByRole('button', { name: /Edit/ }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Add mapping' }).click();
    await dialog.getByLabel('Shop id (price, product, variant)').nth(1).fill('price_e2e_team');
    await dialog.getByRole('combobox', { name: 'Product' }).nth(1).click();
    await dialog.getByRole('combobox', { name: 'Product' }).nth(1).fill('E2E Shop');
    await admin.getByRole('option', { name: new RegExp(PRODUCT.name) }).click();
    await dialog.getByLabel('Seats').nth(1).fill('5');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.count()).toBe(0);

    await row.getByRole('button', { name: /Events/ }).click();
    const log = admin.getByRole('dialog');
    await expect.poll(() => log.getByText('No mapping for “price_e2e_team”: add it, then replay.').isVisible()).toBe(true);
    await log.getByTestId('replay-event').click();
    await expect.poll(() => log.getByTestId('replay-event').count()).toBe(0);
    await expect.poll(() => log.getByTestId('shop-event-outcome').first().textContent()).toBe('Handled');
    await screenshot(admin, 'shop-events-replayed-1366');
  });

  it('Tools → Shop orders lists each order with its TANs and licenses, finds a failed one by its buyer, and replays it once mapped', async () => {
    const failed = await stripe(webhookUrl, 'checkout.session.completed', checkout('site@shop.e2e.test', 'price_e2e_site', 'pi_e2e_3'));
    expect(failed).toMatchObject({ outcome: 'failed', reason: 'unknown-mapping:price_e2e_site' });
    await admin.keyboard.press('Escape');
    await expect.poll(() => admin.getByRole('dialog').count()).toBe(0);
    await admin.getByRole('navigation', { name: 'Main menu' }).getByText('Tools', { exact: true }).click();
    await admin.getByRole('menuitem', { name: 'Shop orders' }).click();
    await expect.poll(() => new URL(admin.url()).pathname).toBe('/tools/shop-orders');
    await expect.poll(() => admin.getByRole('heading', { name: 'Shop orders' }).isVisible()).toBe(true);

    // The first purchase: its TAN, revoked by the refund, and the license activated from it, linked.
    const purchase = admin.getByRole('row', { name: /cs_test_pi_e2e_1 buyer@shop\.e2e\.test/ });
    await expect.poll(() => purchase.getByTestId('order-tan').isVisible()).toBe(true);
    await expect.poll(() => purchase.getByText('Revoked').isVisible()).toBe(true);
    const license = purchase.getByTestId('order-license');
    await expect.poll(() => license.textContent()).toMatch(/SHOP-MACHINE-1/);
    // The refund is listed by the order it refunded.
    await expect.poll(() => admin.getByRole('row', { name: /charge\.refunded/ }).getByText('cs_test_pi_e2e_1').isVisible()).toBe(true);
    await admin.mouse.move(10, 600);
    await expect.poll(() => admin.getByRole('menuitem', { name: 'Shop orders' }).count()).toBe(0);
    await screenshot(admin, 'shop-orders-1366');

    await admin.getByTestId('orders-search').fill('site@shop');
    const row = admin.getByRole('row', { name: /cs_test_pi_e2e_3/ });
    await expect.poll(() => admin.getByRole('row').count()).toBe(2);
    await expect.poll(() => row.getByTestId('order-reason').textContent()).toBe('No mapping for “price_e2e_site”: add it, then replay.');

    // Fixed on Shop connections, then replayed from the Orders page.
    await admin.goto('/tools/shop-connections');
    await admin.getByRole('row', { name: /Stripe \(test\)/ }).getByRole('button', { name: /Edit/ }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Add mapping' }).click();
    await dialog.getByLabel('Shop id (price, product, variant)').nth(2).fill('price_e2e_site');
    await dialog.getByRole('combobox', { name: 'Product' }).nth(2).click();
    await dialog.getByRole('combobox', { name: 'Product' }).nth(2).fill('E2E Shop');
    await admin.getByRole('option', { name: new RegExp(PRODUCT.name) }).click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    await admin.goBack();
    await expect.poll(() => new URL(admin.url()).pathname).toBe('/tools/shop-orders');
    await admin.getByTestId('orders-search').fill('cs_test_pi_e2e_3');
    await expect.poll(() => admin.getByRole('row').count()).toBe(2);
    await admin.getByTestId('replay-order').click();
    await expect.poll(() => admin.getByTestId('replay-order').count()).toBe(0);
    await expect.poll(() => admin.getByTestId('order-outcome').first().textContent()).toBe('Handled');
    await expect.poll(() => admin.getByTestId('order-tan').count()).toBe(1);

    // The TAN's link opens the TAN list searched for it.
    await admin.getByTestId('order-tan').getByRole('link').click();
    await expect.poll(() => new URL(admin.url()).pathname).toBe('/tans');
    await expect.poll(() => admin.getByText(PRODUCT.name).first().isVisible()).toBe(true);
  });

  it('a price mapped as an add-on adds its feature to the TAN the buyer already has; the Orders page says so', async () => {
    await seedFeature(setup.server, 'E2E_SIMULATION');
    await admin.goto('/tools/shop-connections');
    await admin.getByRole('row', { name: /Stripe \(test\)/ }).getByRole('button', { name: /Edit/ }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Add mapping' }).click();
    await dialog.getByLabel('Shop id (price, product, variant)').nth(3).fill('price_e2e_sim');
    await dialog.getByTestId('mapping-kind').nth(3).click();
    await admin.getByRole('option', { name: 'An add-on to the buyer’s license' }).click();
    // An add-on needs its features: refused in the form until it names one.
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.getByText('Name at least one feature the add-on adds').isVisible()).toBe(true);
    await dialog.getByRole('combobox', { name: 'Product' }).nth(3).click();
    await dialog.getByRole('combobox', { name: 'Product' }).nth(3).fill('E2E Shop');
    await admin.getByRole('option', { name: new RegExp(PRODUCT.name) }).click();
    await dialog.getByLabel(/Features and values the add-on adds/).fill('E2E_SIMULATION');
    await screenshot(admin, 'shop-add-on-mapping-1366');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.count()).toBe(0);

    // The buyer of the replayed "team" order holds a TAN of the product: the add-on goes to it.
    const added = await stripe(webhookUrl, 'checkout.session.completed', checkout('late@shop.e2e.test', 'price_e2e_sim', 'pi_e2e_4'));
    expect(added).toMatchObject({ outcome: 'processed', tanIds: [expect.any(Number)] });
    await admin.goto('/tools/shop-orders');
    await admin.getByTestId('orders-search').fill('cs_test_pi_e2e_4');
    await expect.poll(() => admin.getByRole('row', { name: /cs_test_pi_e2e_4/ }).getByText('price_e2e_sim: added').isVisible()).toBe(true);

    // Opened again, the mapping reads as it was saved.
    await admin.goto('/tools/shop-connections');
    await admin.getByRole('row', { name: /Stripe \(test\)/ }).getByRole('button', { name: /Edit/ }).click();
    await expect.poll(() => dialog.getByLabel(/Features and values the add-on adds/).inputValue()).toBe('E2E_SIMULATION');
    await admin.keyboard.press('Escape');
  });

  it('a German administrator on a phone reads the page and the connection form whole', async () => {
    const german = await newContext(setup.browser, setup.server, { locale: 'de-DE', viewport: { width: 390, height: 844 } });
    const page = await german.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    await page.goto('/tools/shop-connections');
    await expect.poll(() => page.getByRole('heading', { name: 'Shop-Anbindungen' }).isVisible()).toBe(true);
    expect(await cutOff(page, 'main')).toEqual([]);
    await page.getByRole('button', { name: 'Shop anbinden' }).click();
    await expect.poll(() => page.getByRole('dialog').getByLabel('Kulanztage').isVisible()).toBe(true);
    await page.getByRole('dialog').getByRole('button', { name: 'Zuordnung hinzufügen' }).click();
    expect(await cutOff(page, '[role=dialog]')).toEqual([]);
    await screenshot(page, 'shop-connection-form-de-phone');
    await page.keyboard.press('Escape');
    await page.goto('/tools/shop-orders');
    await expect.poll(() => page.getByRole('heading', { name: 'Shop-Bestellungen' }).isVisible()).toBe(true);
    expect(await cutOff(page, 'main')).toEqual([]);
    await screenshot(page, 'shop-orders-de-phone');
    await german.close();
  });
});
