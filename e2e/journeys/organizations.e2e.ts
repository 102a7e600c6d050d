/**
 * Organizations and named users (issue 50, DESIGN.md section 6f): an administrator makes a policy
 * of named users in its form; a customer (German browser) creates an organization, invites a colleague
 * by e-mail, the colleague accepts through the mail's link; the owner claims a named-user TAN and
 * assigns the colleague a seat, which the colleague sees, and takes it back. Nothing sticks out at
 * 1366 px or on a 390 px phone. Staff filter the TAN and license lists by the organization.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, createAccount, describeJourney, journeySetup, login, newContext, screenshot } from '../harness.ts';
import { pathFromMail } from '../mailbox.ts';
import { text } from '../support/messages.ts';

const OWNER = 'org-owner@e2e.test';
const COLLEAGUE = 'org-colleague@e2e.test';
const ORGANIZATION = 'Müller Maschinenbau GmbH';
const PRODUCT = 'Team Studio';
const POLICY = 'TEAM_NAMED_USERS';
const DESKTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };

async function call(page: Page, method: string, url: string, data?: object): Promise<any> {
  const response = await page.request.fetch(url, { method, data });
  expect(response.status(), `${method} ${url}: ${await response.text()}`).toBeLessThan(300);
  return response.status() === 204 ? null : response.json();
}

/** Whether the page is no wider than the window: nothing sticks out sideways. */
async function fitsWidth(page: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  return page.evaluate('({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })');
}

async function expectFits(page: Page, where: string): Promise<void> {
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    await page.waitForTimeout(200);
    const { scrollWidth, innerWidth } = await fitsWidth(page);
    expect(scrollWidth, `${where} at ${size.width} px`).toBeLessThanOrEqual(innerWidth);
  }
  await screenshot(page, `organizations/${where}-phone`);
  await page.setViewportSize(DESKTOP);
}

/** Picks an option of a Mantine select (its input found by `input`), typing to narrow it when asked. */
async function choose(page: Page, input: ReturnType<Page['locator']>, option: string | RegExp, typed?: string): Promise<void> {
  await input.click();
  if (typed) await input.fill(typed);
  await page.getByRole('option', { name: option }).first().click();
}

describeJourney('organizations: invite, accept, a named-user seat assigned and taken back; staff filter by organization', () => {
  const setup = journeySetup();
  let admin: Page;
  let owner: Page;
  let colleague: Page;
  const contexts: BrowserContext[] = [];
  let organizationId: number;
  let tanCode: string;
  let productId: number;

  beforeAll(async () => {
    createAccount(setup.server, OWNER, 'USER');
    createAccount(setup.server, COLLEAGUE, 'USER');
    const open = async (locale: string) => {
      const context = await newContext(setup.browser, setup.server, { locale, viewport: DESKTOP });
      contexts.push(context);
      return context.newPage();
    };
    admin = await open('en-US');
    owner = await open('de-DE');
    colleague = await open('de-DE');
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
  });

  it('an administrator makes a policy of named users in its form, and a product and TAN with it', async () => {
    await login(admin, ADMIN.email, ADMIN.password);
    await admin.goto('/license-policies/create');
    const form = admin.getByTestId('policy-form');
    // The first field is the name (its label also begins the public name's).
    await form.locator('input').first().fill(POLICY);
    await form.getByLabel(text('en', 'catalogue.policy.publicNameText')).first().fill('Team licence');
    await expect.poll(() => form.getByLabel(text('en', 'catalogue.policy.machinesPerUser')).count()).toBe(0);
    await choose(admin, admin.getByTestId('policy-seat-mode'), text('en', 'catalogue.policy.seatModes.USER'));
    await form.getByLabel(text('en', 'catalogue.policy.machinesPerUser')).fill('3');
    await form.getByLabel(text('en', 'catalogue.policy.seatReassignHours')).fill('0');
    await form.locator('button[type=submit]').click();
    await expect.poll(() => new URL(admin.url()).pathname).toBe('/license-policies');

    const policies = (await call(admin, 'GET', `/api/license-policies?limit=100&filter=${POLICY}`)) as { items: { id: number; name: string; seatMode: string; machinesPerUser: number }[] };
    const policy = policies.items.find((item) => item.name === POLICY)!;
    expect(policy).toMatchObject({ seatMode: 'USER', machinesPerUser: 3 });
    const product = (await call(admin, 'POST', '/api/products', { name: PRODUCT, version: '1.0', releaseDate: '2025-01-01', defaultLicensePolicyId: policy.id })) as { id: number };
    productId = product.id;
    const tans = (await call(admin, 'POST', '/api/tans?count=1', { productId, licensePolicyId: policy.id, licenseCount: 3 })) as { items: { code: string }[] };
    tanCode = tans.items[0].code;
  });

  it('the owner creates the organization and invites a colleague, who accepts through the link', async () => {
    await login(owner, OWNER, 'secret-pass-1');
    await login(colleague, COLLEAGUE, 'secret-pass-1');
    await owner.goto('/organizations');
    // None yet: the page says so, and what to do, rather than showing an empty table.
    await owner.getByTestId('list-empty').waitFor();
    expect(await owner.getByTestId('list-empty').textContent()).toBe(text('de', 'organizations.none'));
    expect(await owner.getByTestId('organizations').count()).toBe(0);
    const form = owner.getByTestId('organization-form');
    await form.locator('input').first().fill(ORGANIZATION);
    await form.locator('button[type=submit]').click();
    await owner.getByTestId('organization-link').filter({ hasText: ORGANIZATION }).click();
    await expect.poll(() => new URL(owner.url()).pathname).toMatch(/^\/organizations\/\d+$/);
    organizationId = Number(new URL(owner.url()).pathname.split('/').pop());
    await expectFits(owner, 'organization');

    const invite = owner.getByTestId('invite-form');
    await invite.locator('input[type=email]').fill(COLLEAGUE);
    await invite.locator('button[type=submit]').click();
    await owner.getByTestId('invitations').filter({ hasText: COLLEAGUE }).waitFor();

    const link = await pathFromMail(setup.server, COLLEAGUE, '/invitations/');
    await colleague.goto(link);
    await colleague.getByText(ORGANIZATION).first().waitFor();
    await expectFits(colleague, 'invitation');
    await colleague.getByTestId('accept-invitation').click();
    await expect.poll(() => new URL(colleague.url()).pathname).toBe(`/organizations/${organizationId}`);
    await owner.reload();
    await expect.poll(() => owner.getByTestId('member-row').count()).toBe(2);
  });

  it('the owner claims the named-user TAN and assigns the colleague a seat; the colleague sees it; the seat is taken back', async () => {
    await owner.getByRole('tab').nth(1).click();
    const claim = owner.getByTestId('claim-form');
    await claim.locator('input').fill(tanCode);
    await claim.locator('button[type=submit]').click();
    await owner.getByTestId('organization-tans').getByText(PRODUCT).waitFor();

    const members = (await call(owner, 'GET', `/api/organizations/${organizationId}/members`)) as { items: { email: string; name: string }[] };
    const colleagueName = members.items.find((member) => member.email === COLLEAGUE)!.name;
    const assign = owner.getByTestId('assign-form');
    await choose(owner, assign.locator('input:not([type=hidden])').nth(0), new RegExp(PRODUCT));
    await choose(owner, assign.locator('input:not([type=hidden])').nth(1), colleagueName);
    await assign.locator('button[type=submit]').click();
    await owner.getByTestId('seat-row').filter({ hasText: colleagueName }).waitFor();
    await expectFits(owner, 'seats-owner');

    await colleague.goto(`/organizations/${organizationId}`);
    await colleague.getByRole('tab').nth(1).click();
    await colleague.getByTestId('seat-row').filter({ hasText: PRODUCT }).waitFor();
    await expectFits(colleague, 'seats-colleague');

    await owner.getByTestId('seat-row').filter({ hasText: colleagueName }).getByRole('button').click();
    await expect.poll(() => owner.getByTestId('seat-row').count()).toBe(0);
    await colleague.reload();
    await colleague.getByRole('tab').nth(1).click();
    await colleague.getByTestId('seats').waitFor();
    await expect.poll(() => colleague.getByTestId('seat-row').count()).toBe(0);
  });

  it('staff filter the TANs and licenses by the organization', async () => {
    // A license of the organization: the owner activates a TAN of machines and moves the license to it.
    const policies = (await call(admin, 'GET', '/api/license-policies?limit=100')) as { items: { id: number; name: string }[] };
    const single = policies.items.find((item) => item.name === 'SINGLE_HOST_INDEFINITE')!;
    const other = (await call(admin, 'POST', '/api/tans?count=2', { productId, licensePolicyId: single.id, licenseCount: 1 })) as { items: { code: string }[] };
    const license = (await call(owner, 'POST', '/api/licenses/activate', { tan: other.items[0].code, machineId: 'ORG-MACHINE-1' })) as { id: number };
    await call(owner, 'POST', `/api/organizations/${organizationId}/licenses`, { licenseId: license.id });
    await call(owner, 'POST', '/api/licenses/activate', { tan: other.items[1].code, machineId: 'OWN-MACHINE-2' });

    await admin.goto('/tans');
    await admin.getByTestId('tan-row').first().waitFor();
    expect(await admin.getByTestId('tan-row').count()).toBe(3);
    await choose(admin, admin.getByTestId('organization-filter'), ORGANIZATION, 'Müller');
    await expect.poll(() => admin.getByTestId('tan-row').count()).toBe(1);
    expect(await admin.getByTestId('tan-row').textContent()).toContain(tanCode.slice(0, 4));

    await admin.goto('/licenses');
    await admin.getByTestId('license-row').first().waitFor();
    expect(await admin.getByTestId('license-row').count()).toBe(2);
    await choose(admin, admin.getByTestId('organization-filter'), ORGANIZATION, 'Müller');
    await expect.poll(() => admin.getByTestId('license-row').count()).toBe(1);
    expect(await admin.getByTestId('license-row').textContent()).toContain('ORG-MACHINE-1');
    await expectFits(admin, 'licenses-filtered');
  });
});
