import fs from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';

const CATEGORIES = ['TAN activations', 'Expired free updates', 'Trial licenses', 'New users', 'Active users', 'Active machines', 'Over-limit seats'];

describeJourney('statistics and change log', () => {
  const setup = journeySetup();

  beforeAll(async () => {
    createAccount(setup.server, 'stats-customer@e2e.test', 'USER');
    createAccount(setup.server, 'stats-distributor@e2e.test', 'DISTRIBUTOR');
  });

  it('an administrator opens every statistics category, reads the table and downloads the CSV', async () => {
    const context = await newContext(setup.browser, setup.server);
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
    await expect.poll(() => new URL(page.url()).pathname).toBe('/statistics/overage');

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

    // A kept link to a product deleted since: one explanation and the way back to every product.
    await page.goto('/statistics?productId=999999');
    const gone = page.getByRole('alert').filter({ hasText: 'The chosen product no longer exists.' });
    await expect.poll(() => gone.isVisible()).toBe(true);
    expect(await page.getByRole('region', { name: 'New users' }).count()).toBe(0);
    await screenshot(page, 'statistics-product-gone');
    await gone.getByRole('button', { name: 'Show all products' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'New users' }).isVisible()).toBe(true);
    expect(new URL(page.url()).search).toBe('');
    await context.close();
  });

  it('a distributor sees only the numbers of its own TANs (activations, over-limit seats), and is sent back from the others', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, 'stats-distributor@e2e.test', 'secret-pass-1');
    await page.goto('/statistics');
    for (const category of ['TAN activations', 'Over-limit seats']) await expect.poll(() => page.getByRole('region', { name: category }).isVisible()).toBe(true);
    await expect.poll(() => page.getByRole('tab').allTextContents()).toEqual(['Overview', 'TAN activations', 'Over-limit seats']);
    await page.getByRole('tab', { name: 'Over-limit seats' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Statistics: Over-limit seats' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByTestId('total-overage-grants').textContent()).toContain('0');
    await page.goto('/statistics/new-users');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/statistics');
    await context.close();
  });

  it('an administrator opens the change log from the Tools menu and narrows it to one record', async () => {
    const context = await newContext(setup.browser, setup.server);
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

  it('an administrator edits a product, opens its change log from the edit dialog and sees the change highlighted', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    const policies = (await (await page.request.get('/api/license-policies')).json()) as { items: { id: number; name: string }[] };
    const created = await page.request.post('/api/products', { data: { name: 'Darkroom', version: '3.0', defaultLicensePolicyId: policies.items[0].id } });
    expect(created.status()).toBe(201);
    const product = (await created.json()) as { id: number };

    await page.goto('/products');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Darkroom' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Edit Darkroom 3.0' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: /^Name/ }).fill('Darkroom Pro');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Darkroom Pro' }).count()).toBe(1);

    await page.getByRole('button', { name: 'Edit Darkroom Pro 3.0' }).click();
    await page.getByRole('dialog').getByRole('link', { name: 'Change log' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Change log: Products' }).isVisible()).toBe(true);
    expect(new URL(page.url()).searchParams.get('recordId')).toBe(String(product.id));

    const entries = page.getByTestId('change-entry');
    await expect.poll(() => entries.count()).toBe(2);
    const update = entries.first();
    expect(await update.getAttribute('data-operation')).toBe('update');
    await expect.poll(() => update.getByTestId('change-actor').textContent()).not.toBe('System');
    const changed = update.locator('tr[data-changed]');
    await expect.poll(() => changed.count()).toBeGreaterThanOrEqual(1);
    const nameRow = changed.filter({ hasText: /^Name/ });
    await expect.poll(() => nameRow.textContent()).toContain('Darkroom Pro');
    expect(await nameRow.textContent()).toContain('Darkroom');
    expect(await entries.nth(1).getAttribute('data-operation')).toBe('insert');
    // The policy the product points to is named, not given as a number.
    const builtIn: Record<string, string> = {
      SINGLE_HOST_INDEFINITE: 'Single computer, renewed while in use',
      SINGLE_HOST_PERPETUAL: 'Single computer, perpetual',
      FLOATING_DEFAULT: 'Floating (network) license',
    };
    // A created record shows a line of its values; every field opens on request (issue 38).
    await expect.poll(() => entries.nth(1).getByTestId('change-summary').textContent()).toContain('Darkroom');
    await entries.nth(1).getByTestId('change-details').click();
    const policyRow = entries.nth(1).locator('tr').filter({ hasText: /^Default license policy/ });
    await expect.poll(() => policyRow.count()).toBe(1);
    expect(await policyRow.textContent()).toContain(builtIn[policies.items[0].name] ?? policies.items[0].name);
    await screenshot(page, 'change-log-product-edit');

    // Only the changed fields, on request.
    await page.getByRole('switch', { name: 'Only changed fields' }).check({ force: true });
    await expect.poll(() => update.locator('tbody tr').count()).toBe(await changed.count());
    await context.close();
  });
});
