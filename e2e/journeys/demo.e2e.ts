/**
 * The demo installation (`npm run cli -- seed:demo`) as its first visitors see it: fourteen months of
 * a vendor's data on every page, at a laptop's and a phone's width, where lists are long and names
 * are real.
 */
import { beforeAll, expect, it } from 'vitest';
import { ADMIN, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';

const PASSWORD = 'demo-secret-1';
const CUSTOMER = 'juergen.mueller@example.com';
const DISTRIBUTOR = 'distributor@example.com';

describeJourney('the demo installation', () => {
  const setup = journeySetup();

  beforeAll(() => {
    const report = setup.server.cli('seed:demo', '--password', PASSWORD);
    expect(report).toContain(`${ADMIN.email} (with its own password)`);
  });

  it("keeps every TAN's actions in view on a laptop, for the administrator and the distributor", async () => {
    for (const who of [ADMIN, { email: DISTRIBUTOR, password: PASSWORD }]) {
      const context = await newContext(setup.browser, setup.server, { locale: 'de-DE', viewport: { width: 1366, height: 900 } });
      const page = await context.newPage();
      await login(page, who.email, who.password);
      await page.goto('/tans');
      const rows = page.getByTestId('tan-row');
      await expect.poll(() => rows.count()).toBeGreaterThan(10);
      // The list is wider than the window (tags, distributors' names): the actions keep to its edge.
      const revoke = rows.first().getByRole('button', { name: 'Widerrufen' });
      const box = (await revoke.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(1366);
      await expect.poll(() => page.getByRole('columnheader', { name: 'Distributor' }).count()).toBe(who === ADMIN ? 1 : 0);
      await screenshot(page, `demo-tans-${who === ADMIN ? 'admin' : 'distributor'}`);
      await context.close();
    }
  });

  it("keeps a long dialog's buttons in view on a laptop 768 px high, and saves from there", async () => {
    const context = await newContext(setup.browser, setup.server, { locale: 'de-DE', viewport: { width: 1366, height: 768 } });
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    await page.goto('/tans');
    await page.getByTestId('tan-row').first().getByRole('button', { name: 'Bearbeiten' }).click();
    const dialog = page.locator('section[role=dialog]');
    // The German form is taller than the window: it scrolls, and its buttons stay at the dialog's foot.
    await expect.poll(() => dialog.evaluate((section) => section.scrollHeight > section.clientHeight)).toBe(true);
    const save = dialog.getByRole('button', { name: 'Speichern' });
    const box = (await save.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(768);
    // Nothing of the form lies over it: a click there reaches the button.
    const onTop = await page.evaluate(`document.elementFromPoint(${box.x + box.width / 2}, ${box.y + box.height / 2})?.closest('button')?.textContent`);
    expect(onTop).toBe('Speichern');
    await screenshot(page, 'demo-tan-dialog-laptop');
    await save.click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await context.close();
  });

  it('shows fourteen months of statistics; a month without trials has no conversion rate', async () => {
    const context = await newContext(setup.browser, setup.server, { viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    await page.goto('/statistics/trial-licenses');
    await page.getByText('Table', { exact: true }).click();
    const rows = page.getByTestId('table-trial-licenses').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(12);
    // A row's text has its cells apart by tabs.
    const cells = (await rows.allInnerTexts()).map((text) => text.split('\t').map((cell) => cell.trim()));
    // Month, trials, machines, converted, rate: no machines, no rate; machines, a percentage.
    expect(cells.filter(([, , machines]) => machines === '0').every((row) => row[4] === '–')).toBe(true);
    expect(cells.filter(([, , machines]) => machines !== '0').every((row) => /%$/.test(row[4]))).toBe(true);
    expect(cells.filter(([, , machines]) => machines !== '0').length).toBeGreaterThan(3);
    await screenshot(page, 'demo-statistics-trials');
    await page.goto('/users/999999/licenses');
    await expect.poll(() => page.getByRole('heading', { name: 'Page not found' }).isVisible()).toBe(true);
    await context.close();
  });

  it("gives a customer a page of licenses, notices and an upgrade offer; Escape in a date picker keeps the dialog's input", async () => {
    const context = await newContext(setup.browser, setup.server, { locale: 'de-DE', viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    await login(page, CUSTOMER, PASSWORD);
    await page.goto('/account/licenses');
    await expect.poll(() => page.getByText('Acme Render Server 3').count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByRole('button', { name: /Kostenloses Upgrade auf Acme CAD 6/ }).count()).toBeGreaterThan(0);
    await screenshot(page, 'demo-customer-licenses');

    await page.getByRole('button', { name: /temporäre Lizenz/i }).first().click();
    const dialog = page.locator('section[role=dialog]');
    await dialog.getByLabel(/Rechner-ID/).fill('NEW-MACHINE-01');
    await dialog.locator('input[data-dates-input]').click();
    await page.keyboard.press('Escape');
    // The calendar closed; the dialog stays with what was typed. A second Escape closes the dialog.
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.getByLabel(/Rechner-ID/).inputValue()).toBe('NEW-MACHINE-01');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await context.close();
  });

  it('keeps the End button of each session in view on a phone', async () => {
    const context = await newContext(setup.browser, setup.server, { locale: 'de-DE', viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await login(page, CUSTOMER, PASSWORD);
    await page.goto('/account/security');
    const end = page.getByTestId('session-row').first().getByRole('button');
    await end.scrollIntoViewIfNeeded();
    const box = (await end.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await context.close();
  });
});
