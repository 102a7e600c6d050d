/**
 * Lists that fit (issue 38 item 4): at 1366×768, in every language, an administrator's lists need no
 * sideways scrolling and show at least 12 rows; on a 390×844 phone they are cards whose labels are
 * neither cut nor broken inside a word, with no label standing bare; a 255-character name without a space is cut with its whole text on hover and focus; a
 * hidden column comes back and the choice survives a reload. Screenshots for review go to
 * LISTS_SHOTS (default /tmp/lists-shots).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Locale } from '../../packages/contract/src/constants.ts';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, requestsSettled } from '../harness.ts';
import { cutOff } from '../support/layout.ts';
import { seedActivatedLicense } from '../support/licensing-seed.ts';
import { text } from '../support/messages.ts';

const LOCALES: Locale[] = ['de', 'en', 'es', 'fr', 'it'];
const BROWSER_LOCALE: Record<Locale, string> = { de: 'de-DE', en: 'en-US', es: 'es-ES', fr: 'fr-FR', it: 'it-IT' };
const SHOTS = process.env.LISTS_SHOTS ?? '/tmp/lists-shots';
const ROWS = 15;
/** A name of 255 characters without a space, as a careless import makes them. */
const LONG = 'Lizenzverwaltungsprogrammierschnittstellendokumentation'.repeat(5).slice(0, 255);
const LONG_100 = LONG.slice(0, 100);

/** The admin lists, each with the rows the journey seeds into it. */
const LISTS = [
  { name: 'tans', path: '/tans' },
  { name: 'users', path: '/users' },
  { name: 'products', path: '/products' },
  { name: 'features', path: '/features' },
  { name: 'policies', path: '/license-policies' },
  { name: 'api-tokens', path: '/account/api-tokens' },
  { name: 'webhooks', path: '/tools/webhooks' },
  { name: 'shop-connections', path: '/tools/shop-connections' },
  { name: 'licenses', path: '/licenses' },
];

interface Fit {
  tableWidth: number;
  containerWidth: number;
  pageWidth: number;
  viewportWidth: number;
  rowsInView: number;
  overlaps: string[];
  cutHeaders: string[];
}

/** How the page's table sits in the window, without scrolling the page (run in the page: the e2e project has no DOM types). */
const MEASURE_TABLE = `(() => {
  const table = document.querySelector('main table');
  const rows = Array.from(table.querySelectorAll('tbody tr'));
  const overlaps = [];
  for (const row of rows) {
    const cells = Array.from(row.children).map((cell) => cell.getBoundingClientRect());
    for (let index = 1; index < cells.length; index++) if (cells[index].left < cells[index - 1].right - 0.5) overlaps.push(row.textContent.slice(0, 30) + ' #' + index);
  }
  return {
    tableWidth: table.scrollWidth,
    containerWidth: table.parentElement.clientWidth,
    pageWidth: document.documentElement.scrollWidth,
    viewportWidth: window.innerWidth,
    rowsInView: rows.filter((row) => { const box = row.getBoundingClientRect(); return box.top >= 0 && box.bottom <= window.innerHeight; }).length,
    overlaps,
    cutHeaders: Array.from(table.querySelectorAll('th')).filter((cell) => cell.scrollWidth > cell.clientWidth + 1).map((cell) => cell.textContent),
  };
})()`;

const measureTable = (page: Page) => page.evaluate<Fit>(MEASURE_TABLE);

/**
 * On a phone: the list's cards; the labels or titles in them wider than their box; the labels whose
 * longest word is wider than their box, so that it broke in the middle ("Erscheinungsda / tum"); and
 * the labels with nothing beside them (a field with nothing to show is left out of the card).
 */
const MEASURE_CARDS = `(() => {
  const cards = document.querySelectorAll('main [data-layout=cards] li');
  const labels = Array.from(document.querySelectorAll('main [data-layout=cards] li [data-card-label]'));
  const cut = Array.from(document.querySelectorAll('main [data-layout=cards] li [data-card-label], main [data-layout=cards] li > div'))
    .filter((element) => element.scrollWidth > element.clientWidth + 1)
    .map((element) => element.textContent.slice(0, 40));
  const broken = [...new Set(labels.filter((label) => {
    const longest = label.textContent.split(/[\\s-]+/).reduce((a, b) => (b.length > a.length ? b : a), '');
    const probe = document.createElement('span');
    probe.style.whiteSpace = 'nowrap';
    probe.textContent = longest;
    label.appendChild(probe);
    const width = probe.getBoundingClientRect().width;
    probe.remove();
    return width > label.clientWidth + 1;
  }).map((label) => label.textContent))];
  const bare = [...new Set(labels.filter((label) => {
    const value = label.nextElementSibling;
    return value && !value.textContent.trim() && !value.querySelector('img, svg, input');
  }).map((label) => label.textContent))];
  return { cards: cards.length, tables: document.querySelectorAll('main table').length, cut, broken, bare, pageWidth: document.documentElement.scrollWidth, viewportWidth: window.innerWidth };
})()`;

const measureCards = (page: Page) =>
  page.evaluate<{ cards: number; tables: number; cut: string[]; broken: string[]; bare: string[]; pageWidth: number; viewportWidth: number }>(MEASURE_CARDS);

async function shot(page: Page, name: string, fullPage = false) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage });
}

describeJourney('lists that fit the window (issue 38)', () => {
  const setup = journeySetup();

  // The rows, through the API; a test, since the login's wait polls (expect.poll runs only inside one).
  it('an administrator has 15 rows in every list, with long German names and a 255-character one', async () => {
    const distributor = createAccount(setup.server, 'vertriebspartner-mit-langem-namen@e2e.test', 'DISTRIBUTOR');
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    const post = async (url: string, data: unknown) => {
      const response = await page.request.post(url, { data });
      expect(response.status(), `${url}: ${await response.text()}`).toBe(201);
      return (await response.json()) as { id: number };
    };
    const users = (await (await page.request.get(`/api/users?filter=${encodeURIComponent(distributor.email)}`)).json()) as { items: { id: number }[] };
    const distributorId = users.items[0].id;
    expect((await page.request.put(`/api/users/${distributorId}`, { data: { company: `Vertriebsgesellschaft ${LONG}`.slice(0, 255) } })).status()).toBe(200);

    const policy = await post('/api/license-policies', {
      name: LONG,
      type: 'FLOATING',
      publicName: { de: 'Gleitende Netzwerklizenz für Schulungseinrichtungen', en: 'Floating network license for training centres' },
      licenseMaxValidDays: 30,
      refetchIntervalSeconds: 3600,
      refetchBeforeExpirySeconds: 900,
      maxDifferentMachinesCount: 4,
      maxDifferentMachinesIntervalHours: 48,
      freeUpdatesPeriodDays: 366,
    });
    const product = await post('/api/products', { name: LONG, version: '2026.1-Langzeitunterstützung', releaseDate: '2026-01-15', defaultLicensePolicyId: policy.id });
    expect((await page.request.post(`/api/tans?count=${ROWS}`, {
      data: { productId: product.id, licensePolicyId: policy.id, licenseCount: 5, distributorId, freeUpdatesUntil: '2027-12-31', tags: ['Sonderaktion-Fachhandel-2026', 'Messe:Frankfurt', LONG.slice(0, 50)], notes: LONG },
    })).status()).toBe(201);
    for (let index = 1; index < ROWS; index++) {
      await post('/api/users', {
        email: `kundin-${index}-mit-einer-sehr-langen-adresse@beispiel-unternehmen.e2e.test`,
        firstName: index === 1 ? LONG : `Hildegard-Maximiliane ${index}`,
        lastName: 'Müller-Lüdenscheidt',
        company: index === 1 ? LONG : `Ingenieurgesellschaft für Softwarelizenzierung ${index} mbH`,
        country: 'de',
        accessRole: 'USER',
      });
      await post('/api/products', { name: `Lizenzverwaltungssoftware Professional ${index}`, version: `${index}.0`, releaseDate: '2026-01-15', defaultLicensePolicyId: policy.id });
      await post('/api/features', { name: index === 1 ? LONG_100.replace(/[^A-Za-z0-9]/g, 'x') : `dokumentenverwaltung:export-${index}`, localizedDescription: { de: `Dokumentenexport in Unternehmensformate ${index}`, en: `Document export ${index}` } });
      await post('/api/license-policies', {
        name: `RICHTLINIE_SCHULUNG_${index}`,
        type: 'PERPETUAL',
        publicName: { de: `Dauerlizenz für Schulungsrechner ${index}`, en: `Perpetual training license ${index}` },
        licenseMaxValidDays: 365,
        refetchIntervalSeconds: 3600,
        refetchBeforeExpirySeconds: 900,
        maxDifferentMachinesCount: 2,
        maxDifferentMachinesIntervalHours: 48,
        freeUpdatesPeriodDays: 366,
      });
      await post('/api/api-tokens', { name: index === 1 ? LONG_100 : `Buchhaltungsschnittstelle Warenwirtschaft ${index}` });
      await post('/api/webhook-endpoints', { url: `http://127.0.0.1:9/${index === 1 ? LONG.slice(0, 200) : `ereignisse-${index}`}`, events: ['license.created', 'tan.updated'], description: `Warenwirtschaftssystem ${index}` });
      await post('/api/shop-connections', { provider: 'stripe', name: index === 1 ? LONG_100 : `Onlineshop Fachhandel ${index}`, secret: 'shop-secret-0123456789', mappings: [{ externalId: `price_${index}`, productId: product.id }] });
    }
    const customer = createAccount(setup.server, 'kundin-mit-lizenzen@e2e.test', 'USER');
    for (let index = 0; index < ROWS; index++) {
      await seedActivatedLicense(setup.server, { email: customer.email, productId: product.id, machineId: index === 0 ? LONG : `ARBEITSPLATZRECHNER-BUCHHALTUNG-${index}`, freeUpdatesUntil: '2027-06-30' });
    }
    await context.close();
  });

  for (const locale of LOCALES) {
    it(`at 1366×768 in ${locale} every list fits its width and shows 12 rows`, async () => {
      const context = await newContext(setup.browser, setup.server, { locale: BROWSER_LOCALE[locale], viewport: { width: 1366, height: 768 } });
      const page = await context.newPage();
      await login(page, ADMIN.email, ADMIN.password);
      for (const list of LISTS) {
        await page.goto(list.path);
        await expect.poll(() => page.locator('main table tbody tr').count(), { message: list.path }).toBeGreaterThanOrEqual(12);
        await requestsSettled(page);
        const fit = await measureTable(page);
        if (locale === 'de' || locale === 'en') await shot(page, `${locale}-${list.name}-1366`);
        expect({ list: list.path, locale, ...fit }).toMatchObject({ list: list.path, locale, overlaps: [], cutHeaders: [] });
        expect(fit.tableWidth, `${list.path} ${locale}: the table is wider than its container`).toBeLessThanOrEqual(fit.containerWidth);
        expect(fit.pageWidth, `${list.path} ${locale}: the page scrolls sideways`).toBeLessThanOrEqual(fit.viewportWidth);
        expect(fit.rowsInView, `${list.path} ${locale}: rows in view`).toBeGreaterThanOrEqual(12);
        if (list.name === 'tans') expect(await tagBadgesCutBare(page), `${locale}: tags cut without "…" or past their cell`).toEqual([]);
        // The first tag keeps room for about ten characters; the others wait behind "+N" (issue 49).
        if (list.name === 'tans') expect(await narrowestCutFirstTag(page), `${locale}: a row's first tag cut to a stub`).toBeGreaterThanOrEqual(72);
      }
      await context.close();
    });
  }

  for (const locale of LOCALES) {
    it(`on a 390×844 phone in ${locale} every list is cards with nothing cut`, async () => {
      const context = await newContext(setup.browser, setup.server, { locale: BROWSER_LOCALE[locale], viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      await login(page, ADMIN.email, ADMIN.password);
      for (const list of LISTS) {
        await page.goto(list.path);
        await expect.poll(() => page.locator('main [data-layout=cards] li').count(), { message: list.path }).toBeGreaterThanOrEqual(12);
        await requestsSettled(page);
        const cards = await measureCards(page);
        if (locale === 'de' || locale === 'en') await shot(page, `${locale}-${list.name}-390`);
        expect({ list: list.path, locale, tables: cards.tables, cut: cards.cut, broken: cards.broken, bare: cards.bare }).toEqual({ list: list.path, locale, tables: 0, cut: [], broken: [], bare: [] });
        expect(cards.pageWidth, `${list.path} ${locale}: the page scrolls sideways`).toBeLessThanOrEqual(cards.viewportWidth);
        expect({ list: list.path, cut: await cutOff(page, 'main') }).toEqual({ list: list.path, cut: [] });
      }
      await context.close();
    });
  }

  it('the change log is compact: a line or two an entry, every field on request', async () => {
    for (const [locale, width, height] of [['de', 1366, 768], ['en', 390, 844]] as const) {
      const context = await newContext(setup.browser, setup.server, { locale: BROWSER_LOCALE[locale], viewport: { width, height } });
      const page = await context.newPage();
      await login(page, ADMIN.email, ADMIN.password);
      await page.goto('/changes/Tan');
      const entries = page.getByTestId('change-entry');
      await expect.poll(() => entries.count()).toBeGreaterThanOrEqual(15);
      await requestsSettled(page);
      // 15 created TANs with every field made a page several screens tall; now about one line each.
      const heights = await entries.evaluateAll((all) => all.map((entry) => entry.getBoundingClientRect().height));
      expect(Math.max(...heights), `${locale}: the tallest entry`).toBeLessThanOrEqual(width > 500 ? 90 : 200);
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await shot(page, `${locale}-change-log-${width}`);
      const first = entries.first();
      expect(await first.locator('tbody tr').count()).toBe(0);
      await first.getByTestId('change-details').click();
      await expect.poll(() => first.locator('tbody tr').count()).toBeGreaterThan(5);
      expect(await first.getByTestId('change-details').getAttribute('aria-expanded')).toBe('true');
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await shot(page, `${locale}-change-log-open-${width}`);
      await context.close();
    }
  });

  it('a cut name shows whole on keyboard focus; a hidden column comes back and the choice survives a reload', async () => {
    const context = await newContext(setup.browser, setup.server, { viewport: { width: 1366, height: 768 } });
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    await page.goto('/tans');
    const table = page.getByTestId('tan-table');
    const tagsHeader = table.getByRole('columnheader', { name: text('en', 'tans.tags'), exact: true });
    await expect.poll(() => tagsHeader.isVisible()).toBe(true);

    // The product's 255 characters: cut in the cell, whole in the tooltip that keyboard focus opens.
    const cut = table.locator('[data-truncated]').filter({ hasText: LONG }).first();
    await cut.focus();
    await expect.poll(() => page.getByRole('tooltip').textContent()).toContain(LONG);
    await shot(page, 'en-tans-tooltip-1366');

    const columns = page.getByRole('button', { name: text('en', 'table.columns') });
    await columns.click();
    await page.getByRole('checkbox', { name: text('en', 'tans.tags') }).click();
    await expect.poll(() => tagsHeader.count()).toBe(0);
    await expect.poll(() => page.getByRole('checkbox', { name: text('en', 'tans.tags') }).isChecked()).toBe(false);
    await page.reload();
    await expect.poll(() => table.locator('tbody tr').count()).toBeGreaterThan(0);
    expect(await tagsHeader.count()).toBe(0);

    // Shown again from the menu, and still there after the next reload; the notes, hidden at first, too.
    await columns.click();
    await page.getByRole('checkbox', { name: text('en', 'tans.tags') }).click();
    await page.getByRole('checkbox', { name: text('en', 'tans.notes') }).click();
    await expect.poll(() => tagsHeader.isVisible()).toBe(true);
    await page.reload();
    await expect.poll(() => tagsHeader.isVisible()).toBe(true);
    await expect.poll(() => table.getByRole('columnheader', { name: text('en', 'tans.notes'), exact: true }).isVisible()).toBe(true);
    const fit = await measureTable(page);
    expect(fit.tableWidth).toBeLessThanOrEqual(fit.containerWidth);
    await context.close();
  });
});

/**
 * The TAN list's tag badges that a row's too many or too long tags cut without an ellipsis (a badge
 * centres its text, so a plain cut lost both ends: "orthwin"), or that reach past their cell.
 */
async function tagBadgesCutBare(page: Page): Promise<string[]> {
  return page.locator('main table tbody td .mantine-Badge-root').evaluateAll((badges) =>
    badges
      .filter((badge) => {
        const cell = badge.closest('td')!.getBoundingClientRect();
        const box = badge.getBoundingClientRect();
        // text-overflow draws its "…" only in a block container: Mantine's badge is a grid.
        const style = (globalThis as unknown as { getComputedStyle(element: unknown): { textOverflow: string; display: string } }).getComputedStyle(badge);
        const cut = badge.scrollWidth > badge.clientWidth && !(style.textOverflow === 'ellipsis' && ['block', 'inline-block'].includes(style.display));
        return cut || box.right > cell.right + 1;
      })
      .map((badge) => badge.textContent ?? ''),
  );
}

/** The width of the narrowest first tag of a row that is cut (whole ones count as wide enough). */
async function narrowestCutFirstTag(page: Page): Promise<number> {
  const widths = await page.locator('main table tbody td .mantine-Group-root').evaluateAll((groups) =>
    groups.flatMap((group) => {
      const first = group.querySelector('.mantine-Badge-root');
      if (!first) return [];
      return [first.scrollWidth > first.clientWidth ? first.getBoundingClientRect().width : Number.POSITIVE_INFINITY];
    }),
  );
  return Math.min(Number.POSITIVE_INFINITY, ...widths);
}
