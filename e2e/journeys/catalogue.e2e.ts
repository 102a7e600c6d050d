import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';

/** A navigation that a React transition finishes later: wait until the new page's heading shows. */
async function heading(page: Page, name: string) {
  await expect.poll(() => page.getByRole('heading', { name, exact: true }).isVisible()).toBe(true);
}

describeJourney('the catalogue: features, policies, products, matrix, compare', () => {
  const setup = journeySetup();

  it('an administrator creates features and a policy granting one, a product that uses them with a default value, duplicates it, and sees both in the matrix and the compare view', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);

    // A feature, with descriptions in two languages.
    await page.goto('/features/create');
    await heading(page, 'Create feature');
    await page.getByRole('textbox', { name: /^Name/ }).fill('export:pdf');
    await page.getByRole('textbox', { name: 'Description (English)' }).fill('PDF export');
    await page.getByRole('textbox', { name: 'Description (Deutsch)' }).fill('PDF-Export');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await heading(page, 'Features');
    await expect.poll(() => page.getByRole('cell', { name: 'export:pdf', exact: true }).isVisible()).toBe(true);

    // A feature that carries a whole number (DESIGN.md section 6g).
    await page.goto('/features/create');
    await heading(page, 'Create feature');
    await page.getByRole('textbox', { name: /^Name/ }).fill('MAX_PROJECTS');
    await page.getByText('Whole number', { exact: true }).click();
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await heading(page, 'Features');
    await expect.poll(() => page.getByRole('cell', { name: 'MAX_PROJECTS', exact: true }).isVisible()).toBe(true);

    // A policy: floating, a public name, valid for 2 months (61 days), refreshed every 15 minutes.
    await page.goto('/license-policies/create');
    await heading(page, 'Create license policy');
    await page.getByRole('textbox', { name: /^Name/ }).first().fill('Lab floating');
    await page.getByRole('combobox', { name: /^Type/ }).click();
    await page.getByRole('option', { name: 'Floating' }).click();
    await page.getByRole('textbox', { name: 'Name shown to customers' }).fill('Lab license');
    await page.getByRole('textbox', { name: /^License file valid for/ }).fill('2');
    await page.getByRole('combobox', { name: 'Unit' }).click();
    await page.getByRole('option', { name: 'Months' }).click();
    await page.getByRole('combobox', { name: /^Refresh interval/ }).click();
    await page.getByRole('option', { name: '15 minutes' }).click();
    // It grants more projects; a text where the feature takes a whole number is refused at the field, nothing saved.
    const grants = page.getByRole('textbox', { name: 'Features granted' });
    await grants.fill('MAX_PROJECTS=lots');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(() => page.getByTestId('policy-form').getByText('Enter a whole number', { exact: true }).isVisible()).toBe(true);
    expect(await grants.getAttribute('aria-invalid')).toBe('true');
    await grants.fill('MAX_PROJECTS=100\nNO_SUCH_FEATURE');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(() => page.getByTestId('policy-form').getByText('Unknown features: NO_SUCH_FEATURE').isVisible()).toBe(true);
    await grants.fill('MAX_PROJECTS=100');
    await screenshot(page, 'catalogue-policy-form');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await heading(page, 'License policies');
    const policyRow = page.getByRole('row').filter({ hasText: 'Lab floating' });
    await expect.poll(() => policyRow.textContent()).toContain('61 days');
    await expect.poll(() => policyRow.textContent()).toContain('15 minutes');
    // The built-in policies show friendly labels.
    await expect.poll(() => page.getByText('Single computer, perpetual').isVisible()).toBe(true);
    await expect.poll(() => policyRow.getByTestId('policy-grants').textContent()).toBe('Grants: MAX_PROJECTS = 100');
    // Reopened, the policy shows its grant as it was typed.
    await page.getByRole('button', { name: 'Edit Lab floating' }).click();
    await expect.poll(() => page.getByRole('dialog').getByRole('textbox', { name: 'Features granted' }).inputValue()).toBe('MAX_PROJECTS=100');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

    // A product using both; an unknown feature is marked invalid before it is removed again.
    await page.goto('/products/create');
    await heading(page, 'Create product');
    await page.getByRole('textbox', { name: /^Name/ }).fill('Studio');
    await page.getByRole('textbox', { name: /^Version/ }).fill('1.0');
    const features = page.getByRole('combobox', { name: /^Features/ });
    // Enter takes the suggestion, not the half-typed name.
    await features.fill('export:p');
    await expect.poll(() => page.getByRole('option', { name: /^export:pdf/ }).isVisible()).toBe(true);
    await features.press('Enter');
    await expect.poll(() => page.getByText('export:pdf', { exact: true }).first().isVisible()).toBe(true);
    expect(await page.getByText('Unknown features: export:p').count()).toBe(0);
    await features.fill('MAX_PRO');
    await expect.poll(() => page.getByRole('option', { name: 'MAX_PROJECTS' }).isVisible()).toBe(true);
    await features.press('Enter');
    await features.fill('no-such-feature');
    await features.press('Enter');
    await features.press('Escape');
    await expect.poll(() => page.getByText('Unknown features: no-such-feature').isVisible()).toBe(true);
    await features.press('Backspace');
    await features.press('Escape');
    await expect.poll(() => page.getByText('Unknown features: no-such-feature').count()).toBe(0);
    // MAX_PROJECTS takes a value: it gets an input for the product's default; export:pdf, a flag, none.
    const values = page.getByTestId('product-feature-values');
    await expect.poll(() => values.getByRole('textbox').count()).toBe(1);
    await values.getByRole('textbox', { name: 'MAX_PROJECTS' }).fill('50');
    await page.getByRole('combobox', { name: /^Default license policy/ }).click();
    await page.getByRole('option', { name: 'Lab floating' }).click();
    await page.getByRole('button', { name: 'Add a download link' }).click();
    await page.getByRole('textbox', { name: 'Address' }).fill('https://example.com/studio.exe');
    await screenshot(page, 'catalogue-product-form');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await heading(page, 'Products');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Studio' }).count()).toBe(1);
    // Reopened, the product shows its default value, which an edit changes; the list shows it with its features.
    await page.getByRole('button', { name: 'Edit Studio 1.0' }).click();
    const defaultValue = page.getByRole('dialog').getByRole('textbox', { name: 'MAX_PROJECTS' });
    await expect.poll(() => defaultValue.inputValue()).toBe('50');
    await defaultValue.fill('60');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await page.getByRole('button', { name: 'Edit Studio 1.0' }).click();
    await expect.poll(() => defaultValue.inputValue()).toBe('60');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('product-features').click();
    await expect.poll(() => page.getByText('MAX_PROJECTS = 60', { exact: true }).isVisible()).toBe(true);
    await page.keyboard.press('Escape');

    // Duplicate: the form starts with the product's values; only the version changes.
    await page.getByRole('link', { name: 'Duplicate Studio 1.0' }).click();
    await heading(page, 'Duplicate Studio 1.0');
    await expect.poll(() => page.getByRole('textbox', { name: /^Name/ }).inputValue()).toBe('Studio');
    await expect.poll(() => page.getByText('export:pdf').isVisible()).toBe(true);
    await expect.poll(() => page.getByRole('textbox', { name: 'MAX_PROJECTS' }).inputValue()).toBe('60');
    // Saved unchanged, it would be the same product twice: the version field says so.
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(() => page.getByText('This product already has this version').isVisible()).toBe(true);
    await page.getByRole('textbox', { name: /^Version/ }).fill('2.0');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await heading(page, 'Products');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Studio' }).count()).toBe(2);
    await screenshot(page, 'catalogue-products');

    // The matrix: both products have the feature.
    await page.goto('/products/matrix');
    await heading(page, 'Product matrix');
    const matrix = page.getByTestId('product-matrix');
    for (const product of ['Studio 1.0', 'Studio 2.0']) {
      const row = matrix.getByRole('row').filter({ hasText: product });
      await expect.poll(() => row.locator('[data-feature="export:pdf"][data-has]').count()).toBe(1);
    }
    await page.getByRole('switch', { name: 'Localized names' }).check();
    await expect.poll(() => matrix.getByText('PDF export').isVisible()).toBe(true);
    await screenshot(page, 'catalogue-matrix');

    // Compare: the two side by side, the version row highlighted as a difference.
    await page.goto('/products/compare');
    await heading(page, 'Compare products');
    const add = page.getByRole('combobox', { name: 'Add a product' });
    for (const product of ['Studio 1.0', 'Studio 2.0']) {
      await add.click();
      await add.fill('Studio');
      await page.getByRole('option', { name: product }).click();
      await expect.poll(() => page.getByTestId('compare-chosen').textContent()).toContain(product);
    }
    const compare = page.getByTestId('product-compare');
    await expect.poll(() => compare.getByTestId('compare-row-version').getAttribute('data-differs')).toBe('true');
    expect(await compare.getByTestId('compare-row-name').getAttribute('data-differs')).toBeNull();
    expect(await compare.getByTestId('compare-row-feature-export:pdf').getAttribute('data-differs')).toBeNull();
    await screenshot(page, 'catalogue-compare');
    await context.close();
  });

  it('a feature cycle is refused with a clear error; a used feature cannot be deleted, an unused one can after a confirmation', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);

    await page.goto('/features/create');
    await heading(page, 'Create feature');
    await page.getByRole('textbox', { name: /^Name/ }).fill('suite');
    const expandTo = page.getByRole('combobox', { name: /^Expands to features/ });
    await expandTo.fill('export:pdf');
    await expandTo.press('Enter');
    await expandTo.press('Escape');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await heading(page, 'Features');

    // export:pdf → suite → export:pdf would be a cycle.
    await page.getByRole('button', { name: 'Edit export:pdf' }).click();
    const dialog = page.getByRole('dialog');
    const dialogExpandTo = dialog.getByRole('combobox', { name: /^Expands to features/ });
    await dialogExpandTo.fill('suite');
    await dialogExpandTo.press('Enter');
    await dialogExpandTo.press('Escape');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.getByText('These features would expand into each other: export:pdf → suite → export:pdf').isVisible()).toBe(true);
    await screenshot(page, 'catalogue-feature-cycle');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // export:pdf is used by the products and by suite: refused.
    await page.getByRole('button', { name: 'Delete export:pdf' }).click();
    await page.getByTestId('confirm-delete').click();
    await expect.poll(() => page.getByText(/An error occurred: export:pdf is still used by .*suite\. Take it out of those first, then delete it\./).isVisible()).toBe(true);
    await expect.poll(() => page.getByRole('cell', { name: 'export:pdf', exact: true }).first().isVisible()).toBe(true);

    // suite is used by nothing: cancelling keeps it, confirming deletes it.
    await page.getByRole('button', { name: 'Delete suite' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'suite', exact: true }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Delete suite' }).click();
    await page.getByTestId('confirm-delete').click();
    await expect.poll(() => page.getByRole('cell', { name: 'suite', exact: true }).count()).toBe(0);
    await context.close();
  });
});

describeJourney('the settings: logo and localized links', () => {
  const setup = journeySetup();

  it('an uploaded logo shows in the navbar at once, for visitors too', async () => {
    const logo = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lm-logo-')), 'logo.svg');
    fs.writeFileSync(logo, '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><circle cx="32" cy="32" r="30" fill="#e8590c"/></svg>');
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    await page.goto('/settings');
    await heading(page, 'Settings');
    await page.getByTestId('file-theme.logo').locator('input[type=file]').setInputFiles(logo);
    await expect.poll(() => page.getByTestId('navbar-logo').getAttribute('src')).toMatch(/^\/theme\/files\/logo\?v=/);
    const src = (await page.getByTestId('navbar-logo').getAttribute('src'))!;
    const image = await page.request.get(src);
    expect(image.headers()['content-type']).toBe('image/svg+xml');
    await screenshot(page, 'settings-logo');

    const visitor = await (await newContext(setup.browser, setup.server)).newPage();
    await visitor.goto('/');
    await expect.poll(() => visitor.getByTestId('navbar-logo').getAttribute('src')).toBe(src);
    await visitor.context().close();
    await context.close();
  });

  it('a changed imprint link shows in the footer, per locale', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    await page.goto('/settings');
    await heading(page, 'Settings');
    const imprint = page.getByTestId('settings-imprint');
    await imprint.getByRole('textbox', { name: 'Imprint (English)' }).fill('https://example.com/imprint');
    await imprint.getByRole('textbox', { name: 'Imprint (Deutsch)' }).fill('https://example.com/impressum');
    await imprint.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByTestId('footer-imprint').getAttribute('href')).toBe('https://example.com/imprint');

    await page.getByTestId('locale-switcher').selectOption('de');
    await expect.poll(() => page.getByTestId('footer-imprint').getAttribute('href')).toBe('https://example.com/impressum');
    await expect.poll(() => page.getByTestId('footer-imprint').textContent()).toBe('Impressum');
    await screenshot(page, 'settings-imprint-de');

    // A visitor in French gets no French link and no general one: no imprint link at all.
    const visitor = await (await newContext(setup.browser, setup.server, { locale: 'fr-FR' })).newPage();
    await visitor.goto('/');
    await expect.poll(() => visitor.getByRole('heading', { name: 'Connectez-vous à votre compte' }).isVisible()).toBe(true);
    expect(await visitor.getByTestId('footer-imprint').count()).toBe(0);
    await visitor.context().close();
    await context.close();
  });
});
