/**
 * Never a blank page (issue 38): a page whose script is gone after a deployment, lost to the network
 * or hangs, or a page that fails to render, leaves the navbar in place and says what to do (issue 49:
 * a new version or a retry, as it is); the app's own script failing leaves index.html's fallback; and the browser's language
 * list is walked in order on a first visit.
 */
import type { BrowserContext, Page, Route } from 'playwright-core';
import { expect, it } from 'vitest';
import { CHUNK_LOAD_TIMEOUT_S, type Locale } from '../../packages/contract/src/constants.ts';
import { ADMIN, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';
import { text } from '../support/messages.ts';

const DESKTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };

/** Opens a page of the main menu as a person would: from the navbar, or from the menu button on a phone. */
async function openFromMenu(page: Page, locale: Locale, labelKey: string): Promise<void> {
  const burger = page.getByRole('button', { name: text(locale, 'shell.openMenu') });
  if (await burger.isVisible()) await burger.click();
  await page.getByRole('navigation', { name: text(locale, 'nav.main') }).getByRole('link', { name: text(locale, labelKey), exact: true }).first().click();
}

/** The navbar is still there: the logo's home link in the header. */
async function navbarShown(page: Page, locale: Locale): Promise<boolean> {
  return page.getByRole('banner').getByRole('link', { name: new RegExp(text(locale, 'shell.home')) }).isVisible();
}

/** Sends a request for a page's script to a file the server no longer has, as after a deployment. */
function answerFromGoneFile(route: Route): Promise<void> {
  return route.continue({ url: route.request().url().replace(/\/assets\/([A-Za-z]+)-[^/]+\.js$/, '/assets/$1-gone.js') });
}

async function signedIn(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await login(page, ADMIN.email, ADMIN.password);
  return page;
}

/** A browser whose language list is `languages` (Playwright's locale option takes only one). */
async function browserWithLanguages(context: BrowserContext, languages: string[]): Promise<Page> {
  const page = await context.newPage();
  const session = await context.newCDPSession(page);
  const userAgent = await page.evaluate(() => navigator.userAgent);
  await session.send('Emulation.setUserAgentOverride', { userAgent, acceptLanguage: languages.join(',') });
  return page;
}

describeJourney('never a blank page, and every browser language', () => {
  const setup = journeySetup();

  for (const [viewport, locale] of [
    [DESKTOP, 'en'],
    [PHONE, 'de'],
  ] as const) {
    it(`a page script answered 404 after a deployment shows the reload alert under the navbar (${viewport.width} px, ${locale})`, async () => {
      const context = await newContext(setup.browser, setup.server, { locale, viewport });
      const page = await signedIn(context);
      const gone = page.waitForResponse((response) => /\/assets\/UserListPage-gone\.js$/.test(response.url()));
      await page.route('**/assets/UserListPage-*.js', answerFromGoneFile);
      // The deployment that removed the file: the server now names another build.
      await page.route('**/version.json', (route) => route.fulfill({ json: { hash: 'e2e-next-build' } }));
      await openFromMenu(page, locale, 'nav.users');
      expect((await gone).status()).toBe(404);

      const alert = page.getByTestId('reload-alert');
      await expect.poll(() => alert.isVisible()).toBe(true);
      await expect.poll(() => alert.textContent()).toContain(text(locale, 'shell.newVersionText'));
      expect(await navbarShown(page, locale)).toBe(true);
      await screenshot(page, `resilience-chunk-404-${locale}-${viewport.width}`);

      // The rest of the app still works, and the alert stays until the reload.
      await openFromMenu(page, locale, 'nav.statistics');
      await expect.poll(() => new URL(page.url()).pathname).toBe('/statistics');
      await expect.poll(() => page.getByRole('heading', { level: 1 }).isVisible()).toBe(true);
      expect(await alert.isVisible()).toBe(true);
      await alert.getByRole('button', { name: text(locale, 'shell.reload') }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).isVisible()).toBe(true);
      expect(await alert.count()).toBe(0);
      await context.close();
    });
  }

  it('a page script that hangs is given up after the spec’s timeout, with the reload alert under the navbar', async () => {
    const context = await newContext(setup.browser, setup.server, { viewport: DESKTOP });
    const page = await context.newPage();
    // The page's own clock, so that the app's chunk timeout passes without waiting two minutes.
    await page.clock.install();
    await login(page, ADMIN.email, ADMIN.password);
    const requested = page.waitForRequest('**/assets/StatisticsPage-*.js');
    await page.route('**/assets/StatisticsPage-*.js', () => undefined);
    await openFromMenu(page, 'en', 'nav.statistics');
    await requested;
    expect(await page.getByTestId('reload-alert').count()).toBe(0);

    await page.clock.fastForward(CHUNK_LOAD_TIMEOUT_S * 1000);
    await expect.poll(() => page.getByTestId('reload-alert').isVisible()).toBe(true);
    // The same build is still served: no "new version", a retry.
    expect(await page.getByTestId('reload-alert').getAttribute('data-reason')).toBe('load-failed');
    expect(await navbarShown(page, 'en')).toBe(true);
    await screenshot(page, 'resilience-chunk-hang-en-1366');
    await context.close();
  });

  it('a page script lost to the network says it could not be loaded and offers a retry, not "a new version" (390 px, de)', async () => {
    const context = await newContext(setup.browser, setup.server, { locale: 'de', viewport: PHONE });
    const page = await signedIn(context);
    await page.route('**/assets/UserListPage-*.js', (route) => route.abort('internetdisconnected'));
    await openFromMenu(page, 'de', 'nav.users');
    const alert = page.getByTestId('reload-alert');
    await expect.poll(() => alert.isVisible()).toBe(true);
    expect(await alert.getAttribute('data-reason')).toBe('load-failed');
    expect(await alert.textContent()).toContain(text('de', 'chunkLoad.text'));
    expect(await alert.getByRole('button', { name: text('de', 'chunkLoad.retry') }).isVisible()).toBe(true);
    await context.close();
  });

  it('an app script that does not load at all leaves no white page: index.html says so in the person’s language, and the retry loads the app', async () => {
    const context = await newContext(setup.browser, setup.server, { locale: 'de', viewport: PHONE });
    const page = await context.newPage();
    await page.route('**/assets/index-*.js', (route) => route.abort('internetdisconnected'));
    await page.goto('/login');
    const fallback = page.locator('#load-failed');
    await expect.poll(() => fallback.isVisible()).toBe(true);
    expect(await fallback.getByRole('heading', { level: 1 }).textContent()).toBe(text('de', 'chunkLoad.bootTitle'));
    expect(await fallback.textContent()).toContain(text('de', 'chunkLoad.text'));
    await screenshot(page, 'resilience-entry-script-failed-de-390');
    await page.unroute('**/assets/index-*.js');
    await fallback.getByRole('button', { name: text('de', 'chunkLoad.retry') }).click();
    await expect.poll(() => page.getByRole('heading', { name: text('de', 'auth.loginTitle') }).isVisible()).toBe(true);
    expect(await fallback.count()).toBe(0);
    await context.close();
  });

  for (const [viewport, locale] of [
    [DESKTOP, 'de'],
    [PHONE, 'en'],
  ] as const) {
    it(`a page that fails to render says so in the person's language, reports it and offers a reload and the way home (${viewport.width} px, ${locale})`, async () => {
      const context = await newContext(setup.browser, setup.server, { locale, viewport });
      const page = await signedIn(context);
      await page.route('**/assets/NotFoundPage-*.js', (route) =>
        route.fulfill({ contentType: 'text/javascript', body: "export default function BrokenPage() { throw new Error('e2e: this page fails to render'); }" }),
      );
      const reported = page.waitForRequest((request) => request.url().endsWith('/api/client-errors') && request.method() === 'POST');
      await page.goto('/no-such-page');

      const failure = page.getByTestId('render-error');
      await expect.poll(() => failure.isVisible()).toBe(true);
      expect(await failure.getByRole('heading', { level: 1 }).textContent()).toBe(text(locale, 'shell.errorTitle'));
      expect(await failure.textContent()).toContain(text(locale, 'shell.errorText'));
      expect(await navbarShown(page, locale)).toBe(true);
      const report = (await reported).postDataJSON() as { message: string; stack?: string; url: string };
      expect(report.message).toBe('e2e: this page fails to render');
      expect(report.url).toMatch(/\/no-such-page$/);
      expect(report.stack).toContain('BrokenPage');
      await screenshot(page, `resilience-render-error-${locale}-${viewport.width}`);

      expect(await failure.getByRole('button', { name: text(locale, 'shell.reload') }).isVisible()).toBe(true);
      await failure.getByRole('link', { name: text(locale, 'notFound.home') }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/');
      await expect.poll(() => failure.count()).toBe(0);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).isVisible()).toBe(true);
      await context.close();
    });
  }

  for (const [languages, locale] of [
    [['ja', 'it'], 'it'],
    [['nl', 'de', 'en'], 'de'],
    [['pt-BR', 'es-ES', 'fr'], 'es'],
    [['ja', 'zh-CN'], 'en'],
  ] as const) {
    it(`a first visit with browser languages [${languages.join(', ')}] speaks ${locale}`, async () => {
      const context = await newContext(setup.browser, setup.server, { locale: languages[0] });
      const page = await browserWithLanguages(context, [...languages]);
      await page.goto('/login');
      await expect.poll(() => page.getByRole('heading', { name: text(locale, 'auth.loginTitle') }).isVisible()).toBe(true);
      expect(await page.locator('html').getAttribute('lang')).toBe(locale);
      await context.close();
    });
  }

  it('the language chosen before (its cookie) wins over the browser languages', async () => {
    const context = await newContext(setup.browser, setup.server, { locale: 'de' });
    await context.addCookies([{ name: 'i18next', value: 'fr', url: setup.server.url }]);
    const page = await browserWithLanguages(context, ['nl', 'de', 'en']);
    await page.goto('/login');
    await expect.poll(() => page.getByRole('heading', { name: text('fr', 'auth.loginTitle') }).isVisible()).toBe(true);
    await context.close();
  });
});
