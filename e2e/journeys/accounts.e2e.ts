import fs from 'node:fs';
import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { LIST_FILTER_MAX_LENGTH } from '@lm/contract';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';
import { linkFromMail, mailsTo } from '../mailbox.ts';

async function fillRegistration(page: Page, email: string, password: string, optIn = false): Promise<void> {
  await page.goto('/register');
  const form = page.getByTestId('register-form');
  await form.getByLabel(/^e-mail address/i).fill(email);
  await form.getByLabel(/^password/i).fill(password);
  await form.getByLabel(/^confirmation/i).fill(password);
  if (optIn) await form.getByLabel(/news and offers/i).check();
  await form.getByRole('button', { name: 'Create account' }).click();
}

async function loginFails(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel(/e-mail/i).first().fill(email);
  await page.getByLabel(/password/i).first().fill(password);
  await page.getByRole('button', { name: 'Log in' }).last().click();
  await expect.poll(() => page.getByTestId('login-error').textContent()).toBe('Login Failed');
}

describeJourney('accounts: registration, password, e-mail change, closing, administration, export', () => {
  const setup = journeySetup();

  it('registers, opens the link from the mail, and logs in', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    const email = 'newcomer@e2e.test';
    await fillRegistration(page, email, 'my-secret-1');
    await page.getByTestId('registration-pending').waitFor();
    expect(await page.getByTestId('registration-pending').textContent()).toContain(email);
    await screenshot(page, 'accounts-registration-pending');

    // Logging in before confirming leads back to the pending screen.
    await page.goto('/login');
    await page.getByLabel(/e-mail/i).first().fill(email);
    await page.getByLabel(/password/i).first().fill('my-secret-1');
    await page.getByRole('button', { name: 'Log in' }).last().click();
    await expect.poll(() => page.url()).toContain('/register/confirm?email=');

    await page.goto(await linkFromMail(setup.server, email, '/register/confirm'));
    await page.getByTestId('registration-complete').waitFor();
    await screenshot(page, 'accounts-registration-complete');
    await login(page, email, 'my-secret-1');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/');
    await page.getByTestId('account-menu').waitFor();
    await context.close();
  });

  it('a confirmation link opened again says the account is confirmed; a broken one offers to resend the mail', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    const email = 'twice@e2e.test';
    await fillRegistration(page, email, 'my-secret-1');
    const link = await linkFromMail(setup.server, email, '/register/confirm');
    await page.goto(link);
    await page.getByTestId('registration-complete').waitFor();
    await page.goto(link);
    await page.getByTestId('registration-already-confirmed').waitFor();
    expect(await page.getByTestId('registration-already-confirmed').textContent()).toContain('Your registration was confirmed already');
    await screenshot(page, 'accounts-registration-already-confirmed');
    await page.getByTestId('registration-already-confirmed').getByRole('link', { name: 'Log in' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/login');

    // A link cut short (no address, a token that never was): the person types the address to get a new mail.
    const pending = 'pending-resend@e2e.test';
    await fillRegistration(page, pending, 'my-secret-1');
    await page.getByTestId('registration-pending').waitFor();
    await page.goto('/register/confirm?id=999999&token=' + 'x'.repeat(43));
    await page.getByTestId('registration-failed').waitFor();
    expect(await page.getByTestId('registration-failed').textContent()).toContain('Registration confirmation failed');
    await page.getByTestId('resend-confirmation').click();
    await page.getByText('Enter the e-mail address you registered with').waitFor();
    await page.getByLabel('The e-mail address you registered with').fill(pending);
    await page.getByTestId('resend-confirmation').click();
    await page.getByText(`We sent the confirmation mail to ${pending} again.`).waitFor();
    await expect.poll(() => mailsTo(setup.server, pending).length).toBe(2);
    await screenshot(page, 'accounts-confirmation-resend-by-address');
    await context.close();
  });

  it('forgot password → reset → log in with the new password', async () => {
    const account = createAccount(setup.server, 'forgetful@e2e.test', 'USER', 'old-password-1');
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await page.goto('/login');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Forgot password' }).waitFor();
    await page.getByLabel(/e-mail/i).fill(account.email);
    await page.getByRole('button', { name: 'Send link' }).click();
    await page.getByTestId('forgot-sent').waitFor();
    await screenshot(page, 'accounts-forgot-sent');

    await page.goto(await linkFromMail(setup.server, account.email, '/reset-password'));
    await page.getByLabel(/^new password/i).fill('new-password-2');
    await page.getByLabel(/^confirmation/i).fill('new-password-2');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/login');
    await loginFails(page, account.email, 'old-password-1');
    await login(page, account.email, 'new-password-2');
    await page.getByTestId('account-menu').waitFor();
    await context.close();
  });

  it('changes the e-mail address through the link mailed to the new address', async () => {
    const account = createAccount(setup.server, 'mover@e2e.test', 'USER');
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, account.email, account.password);
    await page.goto('/account/settings');
    await page.getByTestId('account-form').waitFor();
    // A customer may not edit the address directly: the field is locked, a button leads to the change page.
    const emailField = page.getByTestId('account-form').getByLabel(/^e-mail address/i);
    await expect.poll(() => emailField.isDisabled()).toBe(true);
    expect(await emailField.getAttribute('data-forbidden')).toBe('true');
    // What administrators note about a customer is not the customer's to read.
    expect(await page.getByTestId('account-form').getByLabel(/^notes/i).count()).toBe(0);
    await page.getByTestId('change-email-button').click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/account/change-email');
    await page.getByLabel(/new e-mail address/i).fill('moved@e2e.test');
    await page.getByRole('button', { name: 'Send confirmation link' }).click();
    await page.getByTestId('change-email-requested').waitFor();
    await screenshot(page, 'accounts-change-email-requested');

    await page.goto(await linkFromMail(setup.server, 'moved@e2e.test', '/account/change-email'));
    await page.getByTestId('change-email-complete').waitFor();
    await page.goto('/account/settings');
    await page.getByTestId('account-form').waitFor();
    expect(await page.getByTestId('account-form').getByLabel(/^e-mail address/i).inputValue()).toBe('moved@e2e.test');
    await page.getByTestId('account-menu').click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await loginFails(page, account.email, account.password);
    await login(page, 'moved@e2e.test', account.password);
    await context.close();
  });

  it('closes the account after two warnings and the repeated address; it cannot log in afterwards', async () => {
    const account = createAccount(setup.server, 'leaver@e2e.test', 'USER');
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await login(page, account.email, account.password);
    await page.goto('/account/settings');
    await page.getByTestId('account-form').waitFor();
    await page.getByTestId('close-account').click();
    await page.getByTestId('close-warning-1').waitFor();
    await page.getByRole('button', { name: 'I understand, continue' }).click();
    await page.getByTestId('close-warning-2').waitFor();
    const confirm = page.getByTestId('close-account-confirm');
    await page.getByLabel(/type your e-mail address/i).fill('someone-else@e2e.test');
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByLabel(/type your e-mail address/i).fill(account.email.toUpperCase());
    await screenshot(page, 'accounts-close-confirm');
    await confirm.click();
    await page.getByText('Your account has been closed.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    await page.getByRole('heading', { name: 'Log in to your account' }).waitFor();
    expect((await context.cookies()).some((cookie) => cookie.name === 'lm_session' && cookie.value)).toBe(false);
    await loginFails(page, account.email, account.password);
    await context.close();
  });

  it('an administrator creates a user (no mail) and confirms another person’s registration', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    // Someone registers and does not confirm.
    await fillRegistration(page, 'waiting@e2e.test', 'waiting-pass-1');
    await page.getByTestId('registration-pending').waitFor();

    await login(page, ADMIN.email, ADMIN.password);
    await page.goto('/users/create');
    const form = page.getByTestId('user-create-form');
    await form.getByLabel(/^e-mail address/i).fill('made-by-admin@e2e.test');
    await form.getByLabel(/first name/i).fill('Made');
    await form.getByLabel(/last name/i).fill('ByAdmin');
    await form.getByLabel(/company/i).fill('Admin Works');
    await form.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/users');
    await page.getByTestId('user-search').fill('made-by-admin');
    await expect.poll(() => page.getByTestId('user-count').textContent()).toBe('1 account');
    await expect.poll(() => page.getByTestId('user-table').textContent()).toContain('Admin Works');
    expect(mailsTo(setup.server, 'made-by-admin@e2e.test')).toHaveLength(0);
    // Deleting asks first, then the account is gone from the list.
    await page.getByTestId('delete-user').click();
    await page.getByTestId('confirm-delete-user').click();
    await expect.poll(() => page.getByTestId('user-count').textContent()).toBe('0 accounts');

    // A search longer than the server takes stops at its limit instead of ending in an error.
    await page.getByTestId('user-search').fill('x'.repeat(LIST_FILTER_MAX_LENGTH + 100));
    expect(await page.getByTestId('user-search').inputValue()).toHaveLength(LIST_FILTER_MAX_LENGTH);
    await expect.poll(() => page.getByTestId('user-count').textContent()).toBe('0 accounts');

    await page.getByTestId('user-search').fill('waiting@');
    await expect.poll(() => page.getByTestId('user-table').textContent()).toContain('waiting@e2e.test');
    expect(await page.getByTestId('user-count').textContent()).toBe('1 account');
    await screenshot(page, 'accounts-users-pending');
    await page.getByTestId('confirm-registration').click();
    await expect.poll(() => page.getByTestId('user-table').textContent()).toContain('Confirmed');
    expect(await page.getByTestId('user-licenses').getAttribute('href')).toMatch(/^\/users\/\d+\/licenses$/);

    await page.getByTestId('account-menu').click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await login(page, 'waiting@e2e.test', 'waiting-pass-1');
    await page.getByTestId('account-menu').waitFor();
    await context.close();
  });

  it('downloads the e-mail-consent CSV', async () => {
    const context = await newContext(setup.browser, setup.server);
    const page = await context.newPage();
    await fillRegistration(page, 'subscriber@e2e.test', 'subscriber-1', true);
    await page.goto(await linkFromMail(setup.server, 'subscriber@e2e.test', '/register/confirm'));
    await page.getByTestId('registration-complete').waitFor();

    await login(page, ADMIN.email, ADMIN.password);
    await page.goto('/export');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-consent').click()]);
    expect(download.suggestedFilename()).toMatch(/^email-consent-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = fs.readFileSync(await download.path());
    expect([...csv.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = csv.toString('utf8').slice(1).split('\r\n');
    expect(lines[0]).toBe('email,firstName,lastName,company,country,language,registeredAt');
    expect(lines.some((line) => line.startsWith('subscriber@e2e.test,'))).toBe(true);
    expect(lines.some((line) => line.startsWith('newcomer@e2e.test,'))).toBe(false);
    await context.close();
  });
});
