import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ADMIN, createAccount, describeJourney, launchBrowser, login, newContext, screenshot, startServer, type TestServer } from '../harness.ts';

const CATEGORIES = ['TAN activations', 'Expired free updates', 'Trial licenses', 'New users', 'Active users', 'Active machines'];

describeJourney('statistics and change log', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    createAccount(server, 'stats-customer@e2e.test', 'USER');
    createAccount(server, 'stats-distributor@e2e.test', 'DISTRIBUTOR');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('an administrator opens every statistics category, reads the table and downloads the CSV', async () => {
    const context = await newContext(browser, server);
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    await page.getByRole('navigation', { name: 'Main menu' }).getByText('Statistics', { exact: true }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/statistics');
    for (const category of CATEGORIES) {
      await expect.poll(() => page.getByRole('region', { name: category }).isVisible()).toBe(true);
    }
    await screenshot(page, 'statistics-overview');

    for (const category of CATEGORIES) {
      await page.getByRole('tab', { name: category }).click();
      await expect.poll(() => page.getByRole('heading', { name: `Statistics: ${category}` }).isVisible()).toBe(true);
      await expect.poll(() => page.locator('.recharts-surface').first().isVisible()).toBe(true);
    }
    await expect.poll(() => new URL(page.url()).pathname).toBe('/statistics/active-machines');

    // New users: the three accounts of this journey were created this month.
    await page.getByRole('tab', { name: 'New users' }).click();
    await expect.poll(() => page.getByTestId('total-new-users-users').textContent()).toContain('3');
    await page.getByText('Table', { exact: true }).click();
    const table = page.getByTestId('table-new-users');
    await expect.poll(() => table.locator('tbody tr').count()).toBe(12);
    await expect.poll(() => table.locator('tfoot').textContent()).toContain('3');
    await screenshot(page, 'statistics-new-users-table');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^statistics-new-users-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = fs.readFileSync(await download.path(), 'utf8').trim().split(/\r\n/);
    expect(csv[0]).toBe('Month,New users');
    expect(csv).toHaveLength(14);
    expect(csv.at(-1)).toBe('Total,3');
    await context.close();
  });

  it('a distributor sees only the TAN activations, and is sent back from the others', async () => {
    const context = await newContext(browser, server);
    const page = await context.newPage();
    await login(page, 'stats-distributor@e2e.test', 'secret-pass-1');
    await page.goto('/statistics');
    await expect.poll(() => page.getByRole('region', { name: 'TAN activations' }).isVisible()).toBe(true);
    expect(await page.getByRole('tab').count()).toBe(1);
    await page.goto('/statistics/new-users');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/statistics');
    await context.close();
  });

  it('an administrator opens the change log from the Tools menu and narrows it to one record', async () => {
    const context = await newContext(browser, server);
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    await nav.getByText('Tools', { exact: true }).click();
    await page.getByRole('menuitem', { name: 'Change log: users' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Change log: Users' }).isVisible()).toBe(true);
    expect(new URL(page.url()).search).toContain('sort=-timestamp');

    // The accounts created from the command line are inserts by the system, newest first.
    const entries = page.getByTestId('change-entry');
    await expect.poll(() => entries.count()).toBeGreaterThanOrEqual(3);
    await expect.poll(() => entries.first().textContent()).toContain('stats-distributor@e2e.test');
    await expect.poll(() => entries.first().getByTestId('change-actor').textContent()).toBe('System');

    await entries.first().getByRole('button', { name: /^Record #\d+$/ }).click();
    await expect.poll(() => entries.count()).toBe(1);
    expect(new URL(page.url()).searchParams.get('recordId')).toMatch(/^\d+$/);
    await screenshot(page, 'change-log-user');
    await context.close();
  });
});
