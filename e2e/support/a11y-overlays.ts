/**
 * What a person can open on a page, for the accessibility journey: the dialogs behind named buttons
 * (create, edit, delete, revoke, extend, move…) and every popup a control announces with
 * `aria-haspopup` (menus, option lists, date pickers, popovers), each opened, checked by axe and
 * closed again with Escape, the way a keyboard user leaves it.
 */
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

export type Role = 'anonymous' | 'customer' | 'distributor' | 'administrator';

/**
 * `check` runs axe on what the page shows now and keeps what it finds under the given name; `fail`
 * keeps what could not be opened or closed, and brings the page back to its start.
 */
export interface Check {
  (where: string): Promise<void>;
  fail(where: string, error: unknown): Promise<void>;
}

/** What opens on top of a page: Mantine's modals, popovers and date pickers (dialog), menus and option lists. */
const OPEN = ':is([role=dialog], [role=alertdialog], [role=menu], [role=listbox]):visible';

/** A dialog behind a button of a page, for the roles that have the button. */
export interface Opener {
  route: string;
  roles: Role[];
  name: string;
  target: (page: Page) => Locator;
}

const SIGNED_IN: Role[] = ['customer', 'distributor', 'administrator'];
const STAFF: Role[] = ['distributor', 'administrator'];
const ADMIN: Role[] = ['administrator'];
const button = (name: string | RegExp) => (page: Page) => page.locator('main').getByRole('button', { name }).first();
/** A name in English or German: the screenshot review (SCREENSHOTS=de) walks the same dialogs in German. */
const named = (english: string, german: string, whole = false) => new RegExp(whole ? `^(${english}|${german})$` : `${english}|${german}`, 'i');
const testId = (id: string) => (page: Page) => page.getByTestId(id).first();

/** The dialogs of each page; `customerLicenses` is the administrator's view of the customer's licenses. */
export function openers(customerLicenses: string): Opener[] {
  const licenseCard = (route: string, roles: Role[], names: [string, string][]): Opener[] =>
    names.map(([name, german]) => ({ route, roles, name: `license ${name}`, target: (page: Page) => page.getByTestId('license-card').getByRole('button', { name: named(name, german, true) }).first() }));
  const changeMachine: [string, string] = ['Change machine', 'Rechner ändern'];
  const extend: [string, string] = ['Extend', 'Verlängern'];
  const remove: [string, string] = ['Delete', 'Löschen'];
  const edit = button(/^(Edit|Bearbeiten) /);
  const deleteRow = button(/^(Delete|Löschen) /);
  return [
    { route: '/account/settings', roles: SIGNED_IN, name: 'close account', target: testId('close-account') },
    { route: '/account/licenses', roles: SIGNED_IN, name: 'activate a license', target: button(named('Activate license', 'Lizenz aktivieren')) },
    { route: '/account/licenses', roles: SIGNED_IN, name: 'temporary license', target: button(named('Temporary', 'Temporär')) },
    ...licenseCard('/account/licenses', ['customer'], [changeMachine, extend, remove]),
    { route: '/account/api-tokens', roles: SIGNED_IN, name: 'new API token', target: testId('new-token') },
    { route: '/account/api-tokens', roles: SIGNED_IN, name: 'revoke API token', target: testId('revoke-token') },
    { route: '/users', roles: ADMIN, name: 'edit user', target: testId('edit-user') },
    { route: '/users', roles: ADMIN, name: 'delete user', target: testId('delete-user') },
    ...licenseCard(customerLicenses, ADMIN, [changeMachine, ['Move', 'Übertragen'], extend, ['Edit', 'Bearbeiten'], remove]),
    { route: '/products', roles: ADMIN, name: 'edit product', target: edit },
    { route: '/products', roles: ADMIN, name: 'delete product', target: deleteRow },
    { route: '/license-policies', roles: ADMIN, name: 'edit policy', target: edit },
    { route: '/features', roles: ADMIN, name: 'edit feature', target: edit },
    { route: '/features', roles: ADMIN, name: 'delete feature', target: deleteRow },
    { route: '/tans', roles: STAFF, name: 'edit TAN', target: (page) => page.getByTestId('tan-row').getByRole('button', { name: /^(Edit|Bearbeiten) / }).first() },
    { route: '/tans', roles: STAFF, name: 'revoke TAN', target: (page) => page.getByTestId('tan-row').getByRole('button', { name: /^(Revoke|Widerrufen) / }).first() },
    { route: '/licenses', roles: STAFF, name: 'license details', target: testId('license-details') },
    { route: '/tans', roles: STAFF, name: 'TAN activations', target: (page) => page.getByTestId('tan-row').getByRole('button', { name: /: (show the licen|Lizenz)/ }).first() },
    { route: '/tools/shop-connections', roles: ADMIN, name: 'connect a shop', target: testId('add-shop-connection') },
    { route: '/tools/shop-connections', roles: ADMIN, name: 'shop events', target: testId('open-events') },
    { route: '/tools/shop-connections', roles: ADMIN, name: 'edit shop connection', target: edit },
    { route: '/tools/shop-connections', roles: ADMIN, name: 'delete shop connection', target: deleteRow },
    { route: '/tools/webhooks', roles: STAFF, name: 'add webhook endpoint', target: testId('add-endpoint') },
    { route: '/tools/webhooks', roles: ADMIN, name: 'webhook delivery log', target: testId('open-log') },
    { route: '/tools/webhooks', roles: ADMIN, name: 'edit webhook endpoint', target: edit },
    { route: '/tools/webhooks', roles: ADMIN, name: 'new webhook secret', target: testId('rotate-secret') },
    { route: '/tools/webhooks', roles: ADMIN, name: 'delete webhook endpoint', target: deleteRow },
  ];
}

/** The little of the DOM the popup search reads in the page (the journeys' types have no DOM). */
interface DomElement {
  querySelectorAll(selector: string): Iterable<DomElement>;
  closest(selector: string): DomElement | null;
  matches(selector: string): boolean;
  parentElement: DomElement | null;
  firstElementChild: DomElement | null;
  getAttribute(name: string): string | null;
  checkVisibility(): boolean;
  dataset: Record<string, string | undefined>;
  labels?: ArrayLike<DomElement> | null;
  textContent: string | null;
  outerHTML: string;
}

/** Whether the field's list is open but hidden, having no options. */
function emptyList(field: unknown): boolean {
  const { document } = globalThis as unknown as { document: { getElementById(id: string): DomElement | null } };
  const id = (field as DomElement).getAttribute('aria-controls');
  const list = id ? document.getElementById(id) : null;
  return list !== null && !list.checkVisibility();
}

const openCount = (page: Page) => page.locator(OPEN).count();

/** Escape until only what was open before (the cookie banner) is left. */
async function closeTo(page: Page, before: number, where: string): Promise<void> {
  while ((await openCount(page)) > before) {
    const now = await openCount(page);
    await page.keyboard.press('Escape');
    // Away from a menu that opens on hover, which would open again under the pointer.
    await page.mouse.move(1, (page.viewportSize()?.height ?? 600) - 1);
    await expect.poll(() => openCount(page), { message: `${where}: still open after Escape` }).toBeLessThan(now);
  }
}

/**
 * Clicks `target`, waits for what it opens, checks it and what it offers in turn (the option lists
 * and date pickers of a dialog's form, with `nested`), then closes all of it. Returns how many overlays were checked.
 */
export async function openAndCheck(page: Page, target: Locator, where: string, check: Check, nested: boolean): Promise<number> {
  const before = await openCount(page);
  let checked = 0;
  try {
    await target.scrollIntoViewIfNeeded();
    await target.click();
    // A field whose options are all chosen opens an empty list, which Mantine keeps hidden: nothing to check.
    const state = async () => ((await openCount(page)) > before ? 'open' : (await target.evaluate(emptyList)) ? 'empty' : 'waiting');
    await expect.poll(state, { message: `${where}: nothing opened` }).not.toBe('waiting');
    if ((await state()) === 'empty') {
      // The field closes its list as it loses the focus (not by Tab: a searchable select opens on focus).
      await target.evaluate((field) => (field as { blur(): void }).blur());
      return checked;
    }
    await check(where);
    checked += 1;
    if (nested) checked += await checkPopups(page, page.locator(OPEN).last(), where, check, false);
    await closeTo(page, before, where);
  } catch (error) {
    await check.fail(where, error);
  }
  return checked;
}

/**
 * Every control inside `scope` that announces a popup: menus, option lists, date pickers, popovers.
 * Of a table only the first row's (the others repeat it); the header's only when asked (it is the same on every page).
 */
export async function checkPopups(page: Page, scope: Locator, where: string, check: Check, nested: boolean, header = false): Promise<number> {
  const marks = await scope.evaluate((root: unknown, withHeader: boolean) => {
    const { document } = globalThis as unknown as { document: { getElementById(id: string): DomElement | null; querySelector(selector: string): DomElement | null } };
    const found: string[] = [];
    for (const element of (root as DomElement).querySelectorAll('[aria-haspopup]:not([aria-haspopup=false]):not([disabled]):not([aria-disabled=true])')) {
      const row = element.closest('tbody tr, [data-testid=license-card]');
      if (row && row !== (row.matches('tr') ? row.parentElement?.firstElementChild : document.querySelector('[data-testid=license-card]'))) continue;
      if (!withHeader && element.closest('header')) continue;
      if (!element.checkVisibility()) continue;
      const mark = `popup-${Math.random().toString(36).slice(2)}`;
      element.dataset.a11yPopup = mark;
      const labelledBy = element.getAttribute('aria-labelledby')?.split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
      const label = element.getAttribute('aria-label') || labelledBy || element.labels?.[0]?.textContent || element.textContent || element.outerHTML;
      found.push(`${mark}|${label.trim().replace(/\s+/g, ' ').slice(0, 40)}`);
    }
    return found;
  }, header);
  let checked = 0;
  for (const entry of marks) {
    const [mark, label] = entry.split('|');
    const target = page.locator(`[data-a11y-popup="${mark}"]`);
    if (!(await target.count())) continue;
    checked += await openAndCheck(page, target, `${where} › popup "${label}"`, check, nested);
  }
  return checked;
}
