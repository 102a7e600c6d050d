import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Locale } from '../../packages/contract/src/constants.ts';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, requestsSettled, screenshot } from '../harness.ts';
import { linkFromMail, mailsTo } from '../mailbox.ts';
import { cutOff, outsideOf } from '../support/layout.ts';
import { TECHNICAL_TEXT, text } from '../support/messages.ts';

/** What browsers send: a region tag, not the bare language. */
const BROWSER_LOCALE: Record<Locale, string> = { de: 'de-DE', en: 'en-US', es: 'es-ES', fr: 'fr-FR', it: 'it-IT' };

interface WrongInput {
  name: string;
  route: string;
  account?: 'customer' | 'administrator';
  /** Fills the form wrongly and submits it. */
  enter: (page: Page, locale: Locale) => Promise<void>;
}

/** A field's label as the page shows it: the text, maybe followed by the required mark. */
const label = (locale: Locale, key: string) => new RegExp(`^${text(locale, key).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
const field = (page: Page, locale: Locale, key: string) => page.getByLabel(label(locale, key)).first();
/** Submits the page's form (its own submit button, whatever it is called). */
const submit = (page: Page) => page.locator('main form button[type="submit"]').last().click();

/** Every form, with input each of its rules refuses. */
const FORMS: WrongInput[] = [
  { name: 'login, empty', route: '/login', enter: (page) => submit(page) },
  {
    name: 'registration: e-mail abc, short password, other confirmation',
    route: '/register',
    enter: async (page, l) => {
      const form = page.getByTestId('register-form');
      await form.getByLabel(label(l, 'accounts.email')).fill('abc');
      await form.getByLabel(label(l, 'auth.password')).fill('abc');
      await form.getByLabel(text(l, 'accounts.passwordConfirm')).fill('abd');
      await form.getByRole('button', { name: text(l, 'accounts.register') }).click();
    },
  },
  {
    name: 'registration: an address without domain',
    route: '/register',
    enter: async (page, l) => {
      const form = page.getByTestId('register-form');
      await form.getByLabel(label(l, 'accounts.email')).fill('abcd@x');
      await form.getByRole('button', { name: text(l, 'accounts.register') }).click();
    },
  },
  {
    name: 'forgot password',
    route: '/forgot-password',
    enter: async (page, l) => {
      await field(page, l, 'accounts.email').fill('abc');
      await submit(page);
    },
  },
  {
    name: 'reset password',
    route: '/reset-password?email=a%40e2e.test&token=x',
    enter: async (page, l) => {
      await field(page, l, 'accounts.reset.newPassword').fill('abc');
      await field(page, l, 'accounts.passwordConfirm').fill('abd');
      await submit(page);
    },
  },
  {
    name: 'change e-mail',
    route: '/account/change-email',
    account: 'customer',
    enter: async (page, l) => {
      await field(page, l, 'accounts.changeEmail.newEmail').fill('a@b');
      await submit(page);
    },
  },
  {
    name: 'account settings: names emptied',
    route: '/account/settings',
    account: 'customer',
    enter: async (page, l) => {
      await field(page, l, 'users.fields.firstName').fill('');
      await field(page, l, 'users.fields.lastName').fill('x'.repeat(256));
      await submit(page);
    },
  },
  {
    name: 'new user',
    route: '/users/create',
    account: 'administrator',
    enter: async (page, l) => {
      await field(page, l, 'users.fields.email').fill('abc');
      await submit(page);
    },
  },
  {
    name: 'new feature: characters',
    route: '/features/create',
    account: 'administrator',
    enter: async (page, l) => {
      await field(page, l, 'catalogue.feature.name').fill('bad name!');
      await submit(page);
    },
  },
  {
    name: 'new product: outer spaces, no version, bad tag',
    route: '/products/create',
    account: 'administrator',
    enter: async (page, l) => {
      await field(page, l, 'catalogue.product.name').fill(' Studio');
      const features = field(page, l, 'catalogue.product.features');
      await features.fill('bad!tag');
      await submit(page);
    },
  },
  {
    name: 'new policy: short name, 0 machines',
    route: '/license-policies/create',
    account: 'administrator',
    enter: async (page, l) => {
      await field(page, l, 'catalogue.policy.name').fill('abc');
      await field(page, l, 'catalogue.policy.maxDifferentMachinesCount').fill('0');
      await field(page, l, 'catalogue.policy.name').click();
      await submit(page);
    },
  },
  {
    name: 'new TAN: count 0',
    route: '/tans/create',
    account: 'administrator',
    enter: async (page, l) => {
      await field(page, l, 'tans.licenseCount').fill('0');
      await submit(page);
    },
  },
  {
    name: 'settings: maximum license count 0',
    route: '/settings',
    account: 'administrator',
    enter: async (page, l) => {
      await field(page, l, 'settings.limits.tanMaxLicenseCount').fill('0');
      await page.locator('[data-setting="tan.maxLicenseCount"]').press('Tab');
      const section = page.locator('.mantine-Paper-root', { has: page.locator('[data-setting="tan.maxLicenseCount"]') });
      await section.getByRole('button', { name: text(l, 'common.save'), exact: true }).click();
    },
  },
  { name: 'ANY-Lic link, empty', route: '/tools/create-anylic', account: 'administrator', enter: (page) => submit(page) },
  {
    name: 'activate a license: unknown TAN form, machine with a space',
    route: '/account/licenses',
    account: 'customer',
    enter: async (page, l) => {
      await page.getByRole('button', { name: text(l, 'licenses.activate') }).first().click();
      const dialog = page.getByRole('dialog', { name: text(l, 'licenses.activateTitle') });
      await dialog.getByLabel(text(l, 'licenses.tanCode')).fill('abc');
      await dialog.getByLabel(text(l, 'licenses.machineId')).fill('my pc');
      await dialog.getByRole('button', { name: text(l, 'licenses.activate') }).click();
    },
  },
];

/** The error texts a form shows: under its fields, and in alerts. */
async function shownErrors(page: Page, form: string): Promise<string[]> {
  await expect.poll(() => page.locator('.mantine-InputWrapper-error, .mantine-TagsInput-error').count(), { message: `no error shown: ${form}` }).toBeGreaterThan(0);
  return (await page.locator('.mantine-InputWrapper-error, .mantine-TagsInput-error, [role="alert"]').allTextContents()).map((each) => each.trim()).filter(Boolean);
}

describeJourney('the interface speaks the person’s language: errors, locale, formats', () => {
  const setup = journeySetup();

  it('every form refuses wrong input with plain, translated messages in all five languages', async () => {
    const customer = createAccount(setup.server, 'forms-customer@e2e.test', 'USER');
    const english = new Map<string, string[]>();
    for (const locale of ['en', 'de', 'es', 'fr', 'it'] as Locale[]) {
      const contexts = {
        anonymous: await newContext(setup.browser, setup.server, { locale: BROWSER_LOCALE[locale] }),
        customer: await newContext(setup.browser, setup.server, { locale: BROWSER_LOCALE[locale] }),
        administrator: await newContext(setup.browser, setup.server, { locale: BROWSER_LOCALE[locale] }),
      };
      const pages = { anonymous: await contexts.anonymous.newPage(), customer: await contexts.customer.newPage(), administrator: await contexts.administrator.newPage() };
      await login(pages.customer, customer.email, customer.password);
      await login(pages.administrator, ADMIN.email, ADMIN.password);
      for (const form of FORMS) {
        const page = pages[form.account ?? 'anonymous'];
        await page.goto(form.route);
        await expect.poll(() => page.locator('h1').count()).toBe(1);
        await form.enter(page, locale);
        const errors = await shownErrors(page, `${locale} ${form.name}`);
        for (const error of errors) expect(error, `${locale} ${form.name}`).not.toMatch(TECHNICAL_TEXT);
        if (locale === 'en') english.set(form.name, errors);
        // Untranslated: a message word for word as in English (a TAN format example may stay as it is).
        else for (const error of errors) expect(english.get(form.name), `${locale} ${form.name}: "${error}" is English`).not.toContain(error);
        if (locale === 'de' || locale === 'fr') await screenshot(page, `interface-form-errors-${locale}-${form.name.split(':')[0].replace(/\W+/g, '-')}`);
      }
      for (const context of Object.values(contexts)) await context.close();
    }
  });

  it('a region-tagged browser language means that language everywhere: page, html lang, cookie, API calls, mails, the stored account language', async () => {
    for (const [browserLocale, locale] of [
      ['de-AT', 'de'],
      ['es-ES', 'es'],
    ] as const) {
      const context = await newContext(setup.browser, setup.server, { locale: browserLocale });
      const page = await context.newPage();
      const languages: string[] = [];
      page.on('request', (request) => request.url().includes('/api/') && languages.push(request.headers()['accept-language']));
      await page.goto('/register');
      await expect.poll(() => page.getByRole('heading', { name: text(locale, 'accounts.registerTitle') }).isVisible()).toBe(true);
      expect(await page.evaluate('document.documentElement.lang')).toBe(locale);
      expect((await context.cookies()).find((cookie) => cookie.name === 'i18next')?.value).toBe(locale);

      const email = `region-${locale}@e2e.test`;
      const form = page.getByTestId('register-form');
      await form.getByLabel(label(locale, 'accounts.email')).fill(email);
      await form.getByLabel(label(locale, 'auth.password')).fill('secret-pass-1');
      await form.getByLabel(text(locale, 'accounts.passwordConfirm')).fill('secret-pass-1');
      await form.getByLabel(text(locale, 'accounts.optInEmail')).check();
      await form.getByRole('button', { name: text(locale, 'accounts.register') }).click();
      await page.getByTestId('registration-pending').waitFor();
      expect(new Set(languages)).toEqual(new Set([locale]));
      await expect.poll(() => mailsTo(setup.server, email).length).toBe(1);
      expect(mailsTo(setup.server, email)[0]).toMatch(locale === 'de' ? /Subject: .*(Best=C3=A4tigen|Bestätigen)/ : /Subject: .*Confirme su registro/);
      await page.goto(await linkFromMail(setup.server, email, '/register/confirm'));
      await page.getByTestId('registration-complete').waitFor();
      await context.close();
    }
    // The account's language as the consent export shows it.
    const admin = await (await newContext(setup.browser, setup.server)).newPage();
    await login(admin, ADMIN.email, ADMIN.password);
    const csv = await (await admin.request.get('/api/users/export/email-consent')).text();
    expect(csv.split('\n').find((line) => line.includes('region-de@e2e.test'))).toMatch(/,de,/);
    expect(csv.split('\n').find((line) => line.includes('region-es@e2e.test'))).toMatch(/,es,/);

    const unknown = await newContext(setup.browser, setup.server, { locale: 'pt-BR' });
    const page = await unknown.newPage();
    await page.goto('/');
    await expect.poll(() => page.getByRole('heading', { name: 'Log in to your account' }).isVisible()).toBe(true);
    expect(await page.evaluate('document.documentElement.lang')).toBe('en');
    await unknown.close();
  });

  it('numbers, dates and the change log read as the interface language writes them', async () => {
    const context = await newContext(setup.browser, setup.server, { locale: 'de-DE' });
    const page = await context.newPage();
    await login(page, ADMIN.email, ADMIN.password);
    const policies = (await (await page.request.get('/api/license-policies?limit=100')).json()) as { items: { id: number; name: string }[] };
    const policy = policies.items.find((item) => item.name === 'SINGLE_HOST_INDEFINITE')!;
    const product = (await (await page.request.post('/api/products', { data: { name: 'Format Studio', version: '1.0', releaseDate: '2025-12-01', defaultLicensePolicyId: policy.id } })).json()) as { id: number };
    expect((await page.request.post('/api/tans?count=1050', { data: { productId: product.id, licenseCount: 1 } })).status()).toBe(201);

    await page.goto('/tans');
    await expect.poll(() => page.getByText('1.050 TANs').isVisible()).toBe(true);

    await page.goto('/products');
    const row = page.getByRole('row').filter({ hasText: 'Format Studio' });
    await expect.poll(() => row.getByText('01.12.2025').isVisible()).toBe(true);
    // German words are long: none of the table's texts is cut off (the "Aktiv" badge was "AKT…").
    expect(await cutOff(page, 'table')).toEqual([]);
    // On a phone the table scrolls sideways and its columns are as narrow as they can be.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => cutOff(page, 'table')).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 800 });
    // The date picker shows the day the way the table does.
    await row.getByRole('button', { name: new RegExp(text('de', 'common.edit')) }).click();
    await expect.poll(() => page.getByRole('dialog').getByLabel(text('de', 'catalogue.product.releaseDate')).inputValue()).toBe('01.12.2025');
    await screenshot(page, 'interface-product-dialog-de');
    await page.keyboard.press('Escape');

    // A change of an account: German field names and values, not firstName and true.
    const user = createAccount(setup.server, 'changes@e2e.test', 'USER');
    const found = (await (await page.request.get(`/api/users?filter=${encodeURIComponent(user.email)}`)).json()) as { items: { id: number }[] };
    expect((await page.request.put(`/api/users/${found.items[0].id}`, { data: { firstName: 'Grete', optInEmail: true, country: 'AT' } })).status()).toBe(200);
    await page.goto('/changes/User');
    const entry = page.getByTestId('change-entry').filter({ hasText: 'Grete' }).first();
    await expect.poll(() => entry.getByText('Vorname', { exact: true }).isVisible()).toBe(true);
    expect(await entry.getByText('E-Mail-Einwilligung', { exact: true }).count()).toBe(1);
    expect(await entry.getByText('Österreich').count()).toBeGreaterThan(0);
    const shown = await entry.textContent();
    expect(shown).not.toMatch(/firstName|optInEmail|\btrue\b|\bfalse\b/);
    await screenshot(page, 'interface-change-log-de');
    await context.close();
  });

  it('on a phone no text of an administrator\'s pages is cut off or sticks out, in the languages with the longest words', async () => {
    const pages = ['/', '/account/security', '/account/api-tokens', '/users', '/products', '/products/compare', '/products/matrix', '/license-policies', '/tans', '/features', '/statistics', '/settings', '/tools/webhooks'];
    // The narrowest phones in use (320 px) and a common one (390 px).
    for (const [locale, width] of [['de', 320], ['fr', 390]] as const) {
      const context = await newContext(setup.browser, setup.server, { locale: BROWSER_LOCALE[locale], viewport: { width, height: 844 } });
      const page = await context.newPage();
      await login(page, ADMIN.email, ADMIN.password);
      for (const path of pages) {
        await page.goto(path);
        await requestsSettled(page);
        // A button's or segmented control's label wraps, a badge keeps its word, a field fits its
        // card ("Configurer la connexion en deux ét", "Tous les comptes", "AKT…").
        await expect.poll(async () => ({ locale, path, cutOff: await cutOff(page, 'body') })).toEqual({ locale, path, cutOff: [] });
      }
      await screenshot(page, `interface-phone-${locale}`);
      await context.close();
    }
  });

  it('the header holds an administrator\'s menus in one row at every width, in German', async () => {
    // An administrator with a name (the first one has none until they enter it, and shows as the address).
    const admin = createAccount(setup.server, 'header-admin@e2e.test', 'ADMIN');
    const context = await newContext(setup.browser, setup.server, { locale: 'de-DE' });
    const page = await context.newPage();
    await login(page, admin.email, admin.password);
    // From 992 to 1,199 px the six menus wrapped onto a second row, out of the header.
    for (const width of [992, 1100, 1199, 1200, 1280, 1440]) {
      await page.setViewportSize({ width, height: 800 });
      const outside = await outsideOf(page, 'header');
      expect({ width, outside }).toEqual({ width, outside: [] });
      expect(await cutOff(page, 'header')).toEqual([]);
    }
    // Where the header shows only the icon, the dropdown is headed by the name, then the address.
    await page.setViewportSize({ width: 1280, height: 800 });
    const name = (await page.getByTestId('account-menu').getAttribute('aria-label'))!.split(' – ')[0];
    expect(name).toMatch(/Administrator/);
    await page.getByTestId('account-menu').click();
    const heading = page.getByTestId('account-menu-heading');
    await heading.waitFor();
    expect((await heading.innerText()).split('\n').filter(Boolean)).toEqual([name, admin.email]);
    await context.close();
  });
});
