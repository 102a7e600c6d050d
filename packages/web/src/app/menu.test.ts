import { describe, expect, it } from 'vitest';
import { abilityFor, type Role } from '@lm/contract';
import { accountMenuLinks, visibleMenu, type MenuEntry } from './menu.ts';

const labels = (entries: MenuEntry[]) => entries.flatMap((entry) => ('links' in entry ? [entry.labelKey, ...entry.links.map((link) => link.to)] : [entry.to]));
const menuOf = (role: Role | null) => labels(visibleMenu(abilityFor(role ? { id: 7, accessRole: role } : null), role !== null));

describe('the navbar by role', () => {
  it('shows nothing but what needs no login to visitors', () => {
    expect(menuOf(null)).toEqual([]);
  });

  it('shows customers only their licenses, downloads and organizations', () => {
    expect(menuOf('USER')).toEqual(['/account/licenses', '/account/downloads', '/organizations']);
  });

  it('shows distributors their TANs, the catalogue lists and their statistics, but no users or tools beyond lists', () => {
    const menu = menuOf('DISTRIBUTOR');
    expect(menu).toEqual(expect.arrayContaining(['/account/licenses', '/tans', '/tans/create', '/products', '/statistics', '/features', '/license-policies']));
    expect(menu).not.toContain('/users');
    expect(menu).not.toContain('/products/create');
    expect(menu).not.toContain('/settings');
    expect(menu).not.toContain('/tools/create-anylic');
    expect(menu.some((path) => path.startsWith('/changes/'))).toBe(false);
    // Webhooks for their own TANs (their endpoints receive only those events).
    expect(menu).toContain('/tools/webhooks');
  });

  it('moves a staff member\'s downloads and organizations from the header to the account menu', () => {
    const accountLinks = (role: Role) => accountMenuLinks(abilityFor({ id: 7, accessRole: role }), true).map((link) => link.to);
    expect(accountLinks('USER')).toEqual([]);
    for (const role of ['DISTRIBUTOR', 'ADMIN'] as const) {
      expect(accountLinks(role)).toEqual(['/account/downloads', '/organizations']);
      expect(menuOf(role)).not.toContain('/account/downloads');
      expect(menuOf(role)).not.toContain('/organizations');
      expect(menuOf(role)).toContain('/account/licenses');
    }
  });

  it('says "Manage features" only to those who may change them', () => {
    const featuresLink = (role: Role) =>
      visibleMenu(abilityFor({ id: 7, accessRole: role }), true)
        .flatMap((entry) => ('links' in entry ? entry.links : [entry]))
        .find((link) => link.to === '/features')?.labelKey;
    expect(featuresLink('ADMIN')).toBe('nav.features');
    expect(featuresLink('DISTRIBUTOR')).toBe('nav.featuresViewOnly');
  });

  it('shows administrators every item, with the change logs of all seven models', () => {
    const menu = menuOf('ADMIN');
    expect(menu).toEqual(expect.arrayContaining(['/users', '/products/create', '/products/matrix', '/products/compare', '/settings', '/export', '/tools/create-anylic']));
    expect(menu.filter((path) => path.startsWith('/changes/'))).toHaveLength(7);
    expect(menu).toContain('/tools/webhooks');
  });
});
