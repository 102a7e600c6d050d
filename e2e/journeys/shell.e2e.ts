import { expect, it } from 'vitest';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';

describeJourney('the shell: login, menus by role, guards and locale', () => {
  const setup = journeySetup();

  it('the first administrator logs in, sees the admin menu and logs out', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await page.goto('/');
    await expect.poll(() => page.getByRole('heading', { name: 'Log in to your account' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByRole('heading', { name: 'Create a new account' }).isVisible()).toBe(true);
    await screenshot(page, 'shell-home-logged-out');

    await login(page, ADMIN.email, ADMIN.password);
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    for (const item of ['My licenses', 'Users', 'Products', 'TANs', 'Statistics', 'Tools']) {
      await expect.poll(() => nav.getByText(item, { exact: true }).isVisible()).toBe(true);
    }
    await nav.getByText('Tools', { exact: true }).click();
    await expect.poll(() => page.getByRole('menuitem', { name: 'Settings' }).isVisible()).toBe(true);
    await screenshot(page, 'shell-admin-menu');
    await page.keyboard.press('Escape');

    await page.getByTestId('account-menu').click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Log in to your account' }).isVisible()).toBe(true);
    expect((await context.cookies()).some((cookie) => cookie.name === 'lm_session')).toBe(false);
    await context.close();
  });

  it('a customer sees only its own menu and is sent home from admin pages', async () => {
    const customer = createAccount(setup.server, 'customer@e2e.test', 'USER');
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, customer.email, customer.password);
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    await expect.poll(() => nav.getByText('My licenses', { exact: true }).isVisible()).toBe(true);
    for (const item of ['Users', 'Products', 'TANs', 'Statistics', 'Tools']) {
      expect(await nav.getByText(item, { exact: true }).count()).toBe(0);
    }
    await page.goto('/users');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/');
    await page.goto('/settings');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/');
    // The optional segment of my licenses is the literal 'offline'; anything else is the plain list.
    await page.goto('/account/licenses/offline');
    await expect.poll(() => page.getByRole('heading', { level: 1, name: 'Licenses for offline machines' }).isVisible()).toBe(true);
    await page.goto('/account/licenses/xyz');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/account/licenses');
    await context.close();
  });

  it('a protected URL while logged out goes to /login with a returnUrl and back there after login', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await page.goto('/users/create');
    await expect.poll(() => page.url()).toContain('/login?returnUrl=%2Fusers%2Fcreate');
    await page.getByLabel(/e-mail/i).first().fill(ADMIN.email);
    await page.getByLabel(/password/i).first().fill('wrong-password');
    await page.getByRole('button', { name: 'Log in' }).last().click();
    await expect.poll(() => page.getByTestId('login-error').textContent()).toBe('Login Failed');
    await page.getByLabel(/password/i).first().fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).last().click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/users/create');
    await context.close();
  });

  it('switching the locale changes the texts and survives a reload', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await page.goto('/login');
    await expect.poll(() => page.getByRole('heading', { name: 'Log in to your account' }).isVisible()).toBe(true);
    await page.getByTestId('locale-switcher').selectOption('de');
    await expect.poll(() => page.getByRole('heading', { name: 'Bei Ihrem Konto anmelden' }).isVisible()).toBe(true);
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { name: 'Bei Ihrem Konto anmelden' }).isVisible()).toBe(true);
    expect((await context.cookies()).find((cookie) => cookie.name === 'i18next')?.value).toBe('de');
    await page.getByTestId('locale-switcher').selectOption('it');
    await expect.poll(() => page.getByRole('heading', { name: 'Accedi al tuo account' }).isVisible()).toBe(true);
    await context.close();
  });

  it('the setup.browser language picks the locale on a first visit, and a phone-width page has a menu button', async () => {
    const context = await newContext(setup.browser, setup.server, { locale: 'fr-FR', viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto('/');
    await expect.poll(() => page.getByRole('heading', { name: 'Connectez-vous à votre compte' }).isVisible()).toBe(true);
    await screenshot(page, 'shell-phone-logged-out');
    await page.getByLabel(/e-mail/i).first().fill(ADMIN.email);
    await page.locator('input[type=password]').first().fill(ADMIN.password);
    await page.getByRole('button', { name: 'Se connecter' }).last().click();
    await expect.poll(() => page.getByRole('button', { name: 'Ouvrir le menu' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Ouvrir le menu' }).click();
    await expect.poll(() => page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Utilisateurs', exact: true }).isVisible()).toBe(true);
    await screenshot(page, 'shell-phone-menu');
    await context.close();
  });

  it('a person whose system asks for less motion gets the phone menu and the account menu without sliding or fading', async () => {
    /** How long the phone menu slides and the account menu fades in, as the browser has them (CSS transition-duration). */
    const durationOf = (element: unknown) =>
      (globalThis as unknown as { getComputedStyle(element: unknown): { transitionDuration: string } }).getComputedStyle(element).transitionDuration;
    const motionOf = async (reducedMotion: 'reduce' | 'no-preference') => {
      const context = await newContext(setup.browser, setup.server, { viewport: { width: 390, height: 844 }, reducedMotion });
      const page = await context.newPage();
      await login(page, ADMIN.email, ADMIN.password);
      await page.getByRole('button', { name: 'Open the menu' }).click();
      await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link').first().waitFor();
      const navbar = await page.locator('.mantine-AppShell-navbar').evaluate(durationOf);
      await page.getByRole('button', { name: 'Open the menu' }).click();
      await page.locator('header [aria-haspopup="menu"]').last().click();
      const menu = page.getByRole('menu');
      await menu.waitFor();
      const dropdown = await menu.evaluate(durationOf);
      await context.close();
      return { navbar, dropdown };
    };
    expect(await motionOf('reduce')).toEqual({ navbar: '0s', dropdown: '0s' });
    const moving = await motionOf('no-preference');
    expect(moving.navbar).not.toBe('0s');
    expect(moving.dropdown).not.toBe('0s');
  });
});
