import * as OTPAuth from 'otpauth';
import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';
import { describeViolations, seriousViolations } from '../support/axe.ts';
import { cutOff } from '../support/layout.ts';

/** The code an authenticator app shows for the secret, `steps` periods of 30 s from now. */
const codeOf = (secret: string, steps = 0) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + steps * 30_000 });

/** Sets up two-factor sign-in on /account/security; answers the secret and the recovery codes shown. */
async function enrol(page: Page): Promise<{ secret: string; recoveryCodes: string[] }> {
  await page.getByTestId('two-factor-start').click();
  const secret = (await page.getByTestId('two-factor-secret').getAttribute('data-secret'))!;
  await page.getByTestId('two-factor-code').locator('input').first().click();
  await page.keyboard.type(codeOf(secret));
  await page.getByTestId('two-factor-confirm').click();
  await page.getByTestId('recovery-codes').waitFor();
  const recoveryCodes = await page.getByTestId('recovery-code').allTextContents();
  return { secret, recoveryCodes };
}

/** The login form's two steps: password, then the code. */
async function loginWithCode(page: Page, email: string, password: string, code: string): Promise<void> {
  await page.goto('/login');
  await page.locator('main input[type=email]').first().fill(email);
  await page.locator('main input[type=password]').first().fill(password);
  await page.locator('main form button[type=submit]').first().click();
  await page.getByTestId('login-code').fill(code);
  await page.locator('main form button[type=submit]').first().click();
  await expect.poll(() => new URL(page.url()).pathname).not.toBe('/login');
}

describeJourney('sign-in security: two-factor sign-in, sessions, password', () => {
  const setup = journeySetup();

  it('enrols with an authenticator, logs out, and logs in with a code computed from the secret, then with a recovery code', async () => {
    const account = createAccount(setup.server, 'two-factor@e2e.test', 'USER');
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, account.email, account.password);
    await page.getByTestId('account-menu').click();
    await page.getByRole('menuitem', { name: 'Sign-in and sessions' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/account/security');
    await page.getByTestId('two-factor-start').waitFor();
    await screenshot(page, 'security-before');
    expect(describeViolations('/account/security', await seriousViolations(page))).toBe('');

    const { secret, recoveryCodes } = await enrol(page);
    expect(recoveryCodes).toHaveLength(10);
    await screenshot(page, 'security-recovery-codes');
    await page.getByTestId('recovery-codes-done').click();
    await page.getByTestId('two-factor-on').waitFor();
    expect(await page.getByTestId('recovery-codes-left').textContent()).toBe('10 recovery codes left');

    await page.getByTestId('account-menu').click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await expect.poll(() => page.getByTestId('account-menu').count()).toBe(0);

    // The password alone asks for the code; a wrong code is refused in plain words.
    await page.goto('/login');
    await page.locator('main input[type=email]').first().fill(account.email);
    await page.locator('main input[type=password]').first().fill(account.password);
    await page.locator('main form button[type=submit]').first().click();
    await page.getByTestId('login-code-step').waitFor();
    await screenshot(page, 'security-login-code-step');
    await page.getByTestId('login-code').fill('000000');
    await page.locator('main form button[type=submit]').first().click();
    await expect.poll(() => page.getByTestId('login-error').textContent()).toMatch(/not right/);
    await page.getByTestId('login-code').fill(codeOf(secret, 1));
    await page.locator('main form button[type=submit]').first().click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/');
    await page.getByTestId('account-menu').waitFor();

    // Another browser signs in with a recovery code; the first sees two sessions and ends the other.
    const other = await newContext(setup.browser, setup.server);
    const otherPage = await other.newPage();
    await loginWithCode(otherPage, account.email, account.password, recoveryCodes[0].toUpperCase());
    await page.goto('/account/security');
    await expect.poll(() => page.getByTestId('session-row').count()).toBe(2);
    expect(await page.getByTestId('recovery-codes-left').textContent()).toBe('9 recovery codes left');
    await screenshot(page, 'security-sessions');
    await page.getByTestId('end-other-sessions').click();
    await expect.poll(() => page.getByTestId('session-row').count()).toBe(1);
    await otherPage.goto('/account/licenses');
    await expect.poll(() => new URL(otherPage.url()).pathname).toBe('/login');
    await other.close();
    await context.close();

    // An administrator is offered a reset only for an account that has a second factor.
    const without = createAccount(setup.server, 'no-factor@e2e.test', 'USER');
    const adminContext = await newContext(setup.browser, setup.server);
    const admin = await adminContext.newPage();
    await login(admin, ADMIN.email, ADMIN.password);
    await admin.goto('/users');
    for (const [email, offered] of [[account.email, true], [without.email, false]] as const) {
      await admin.getByTestId('user-search').fill(email);
      await expect.poll(async () => (await admin.getByTestId('edit-user').count()) === 1 && (await admin.getByTestId('user-table').textContent())?.includes(email)).toBe(true);
      // The status is asked once the dialog opens: the button is judged after the answer.
      const status = admin.waitForResponse((response) => response.url().endsWith('/two-factor'));
      await admin.getByTestId('edit-user').click();
      await status;
      await expect.poll(() => admin.getByTestId('reset-two-factor').isVisible(), { message: email }).toBe(offered);
      await admin.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    }
    await adminContext.close();
  });

  it('shows the set-up on a phone in French, QR code and key readable, without accessibility violations', async () => {
    const account = createAccount(setup.server, 'telephone@e2e.test', 'USER');
    const context = await newContext(setup.browser, setup.server, { locale: 'fr-FR', viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await login(page, account.email, account.password);
    await page.goto('/account/security');
    await page.getByTestId('two-factor-start').click();
    await page.getByTestId('two-factor-secret').waitFor();
    await page.getByRole('img', { name: /code QR/i }).waitFor();
    expect(describeViolations('/account/security (fr, 390 px)', await seriousViolations(page))).toBe('');
    expect(await cutOff(page, 'main')).toEqual([]);
    await screenshot(page, 'security-enrolment-fr-phone');
    await context.close();
  });

  it('changes the password on the security page: a wrong current one is refused, the new one signs in', async () => {
    const account = createAccount(setup.server, 'new-password@e2e.test', 'USER');
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, account.email, account.password);
    await page.goto('/account/security');
    const form = page.getByTestId('password-change');
    await form.getByLabel('Current password').fill('not my password');
    await form.getByLabel('New password').fill('a-fresh-secret-2');
    await form.getByLabel('Confirmation').fill('a-fresh-secret-2');
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => form.getByText('The password is not right.').count()).toBe(1);
    await form.getByLabel('Current password').fill(account.password);
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByText('Your password was changed.', { exact: false }).count()).toBeGreaterThan(0);
    await page.getByTestId('account-menu').click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await login(page, account.email, 'a-fresh-secret-2');
    await context.close();
  });

  it('leads a distributor to set up two-factor sign-in when the settings require it, and opens the other pages afterwards', async () => {
    const admin = await newContext(setup.browser, setup.server);
    const adminPage = await admin.newPage();
    await login(adminPage, ADMIN.email, ADMIN.password);
    await adminPage.goto('/settings');
    const section = adminPage.getByTestId('settings-security');
    await section.getByLabel('Require two-factor sign-in for administrators and distributors').check();
    await section.getByRole('button', { name: /save/i }).click();
    await expect.poll(() => adminPage.getByText(/saved/i).count()).toBeGreaterThan(0);

    const seller = createAccount(setup.server, 'must-enrol@e2e.test', 'DISTRIBUTOR');
    const context = await newContext(setup.browser, setup.server, { locale: 'de-DE' });
    const page = await context.newPage();
    await login(page, seller.email, seller.password);
    await expect.poll(() => new URL(page.url()).pathname).toBe('/account/security');
    await page.getByTestId('two-factor-required').waitFor();
    await page.goto('/tans');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/account/security');
    // No menu leads elsewhere meanwhile: every page would come back here.
    expect(await page.getByRole('banner').getByText('Statistik', { exact: true }).count()).toBe(0);
    await screenshot(page, 'security-required-de');
    await enrol(page);
    await page.getByTestId('recovery-codes-done').click();
    await page.goto('/tans');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/tans');
    await expect.poll(() => page.getByRole('banner').getByText('Statistik', { exact: true }).isVisible()).toBe(true);
    await context.close();

    // The administrator, also required now, must set it up too; switch it off again for the other journeys.
    await adminPage.goto('/settings');
    await expect.poll(() => new URL(adminPage.url()).pathname).toBe('/account/security');
    await enrol(adminPage);
    await adminPage.getByTestId('recovery-codes-done').click();
    await adminPage.goto('/settings');
    await adminPage.getByTestId('settings-security').getByLabel('Require two-factor sign-in for administrators and distributors').uncheck();
    await adminPage.getByTestId('settings-security').getByRole('button', { name: /save/i }).click();
    await expect.poll(() => adminPage.getByText(/saved/i).count()).toBeGreaterThan(0);
    await admin.close();
  });
});
