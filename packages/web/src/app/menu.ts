import { CHANGE_LOG_MODELS, type Action, type AppAbility, type SubjectName } from '@lm/contract';

export interface MenuLink {
  labelKey: string;
  to: string;
  ability?: [Action, SubjectName];
  /** Needs only a login. */
  login?: boolean;
  /** The label for those who may look but not create ("Features" rather than "Manage features"). */
  viewOnlyLabelKey?: string;
  /**
   * The person's own things beside their licenses: in the header for customers, in the account
   * menu for staff, whose header has no room left for them (German, from 992 px).
   */
  personal?: boolean;
}

export interface MenuGroup {
  labelKey: string;
  links: MenuLink[];
}

export type MenuEntry = MenuLink | MenuGroup;

const changeLogPaths: Record<(typeof CHANGE_LOG_MODELS)[number], string> = {
  User: 'nav.changes.User',
  Product: 'nav.changes.Product',
  Tan: 'nav.changes.Tan',
  License: 'nav.changes.License',
  Feature: 'nav.changes.Feature',
  LicensePolicy: 'nav.changes.LicensePolicy',
  Organization: 'nav.changes.Organization',
};

/**
 * The navbar of spec section 2, each item shown only if the ability allows it. The change logs open
 * sorted by timestamp, descending (spec section 2).
 */
export const MENU: MenuEntry[] = [
  { labelKey: 'nav.myLicenses', to: '/account/licenses', login: true },
  { labelKey: 'releases.downloadsMenu', to: '/account/downloads', login: true, personal: true },
  { labelKey: 'organizations.menu', to: '/organizations', login: true, personal: true },
  { labelKey: 'nav.users', to: '/users', ability: ['view-list', 'User'] },
  { labelKey: 'nav.licenses', to: '/licenses', ability: ['view-list', 'License'] },
  {
    labelKey: 'nav.products',
    links: [
      { labelKey: 'nav.productList', to: '/products', ability: ['view-list', 'Product'] },
      { labelKey: 'nav.productCreate', to: '/products/create', ability: ['create', 'Product'] },
      { labelKey: 'nav.productMatrix', to: '/products/matrix', ability: ['view-list', 'Product'] },
      { labelKey: 'nav.productCompare', to: '/products/compare', ability: ['view-list', 'Product'] },
      { labelKey: 'releases.menu', to: '/releases', ability: ['view-list', 'Release'] },
    ],
  },
  {
    labelKey: 'nav.tans',
    links: [
      { labelKey: 'nav.tanList', to: '/tans', ability: ['view-list', 'Tan'] },
      { labelKey: 'nav.tanCreate', to: '/tans/create', ability: ['create', 'Tan'] },
    ],
  },
  { labelKey: 'nav.statistics', to: '/statistics', ability: ['view-chart', 'Statistics'] },
  {
    labelKey: 'nav.tools',
    links: [
      { labelKey: 'nav.createAnyLic', to: '/tools/create-anylic', ability: ['create-anylic-download', 'License'] },
      ...CHANGE_LOG_MODELS.map((model): MenuLink => ({ labelKey: changeLogPaths[model], to: `/changes/${model}?sort=-timestamp`, ability: ['view-change-log', model] })),
      { labelKey: 'nav.features', viewOnlyLabelKey: 'nav.featuresViewOnly', to: '/features', ability: ['view-list', 'Feature'] },
      { labelKey: 'nav.licensePolicies', to: '/license-policies', ability: ['view-list', 'LicensePolicy'] },
      { labelKey: 'licenseEvents.menu', to: '/tools/license-events', ability: ['view-list', 'License'] },
      { labelKey: 'nav.export', to: '/export', ability: ['view-export', 'Export'] },
      { labelKey: 'nav.settings', to: '/settings', ability: ['update', 'Setting'] },
      { labelKey: 'webhooks.menu', to: '/tools/webhooks', ability: ['view-list', 'WebhookEndpoint'] },
      { labelKey: 'shop.menu', to: '/tools/shop-connections', ability: ['update', 'Setting'] },
      { labelKey: 'shop.orders.menu', to: '/tools/shop-orders', ability: ['update', 'Setting'] },
    ],
  },
];

function allowed(link: MenuLink, ability: AppAbility, signedIn: boolean): boolean {
  if (link.login) return signedIn;
  return link.ability ? ability.can(link.ability[0], link.ability[1]) : true;
}

/** A link as this user reads it: "Manage" only for those who may. */
function labelled(link: MenuLink, ability: AppAbility): MenuLink {
  return link.viewOnlyLabelKey && link.ability && !ability.can('create', link.ability[1]) ? { ...link, labelKey: link.viewOnlyLabelKey } : link;
}

/** The menu as this user may see it: forbidden links dropped, empty groups too. */
function permittedMenu(ability: AppAbility, signedIn: boolean): MenuEntry[] {
  return MENU.flatMap((entry): MenuEntry[] => {
    if ('links' in entry) {
      const links = entry.links.filter((link) => allowed(link, ability, signedIn)).map((link) => labelled(link, ability));
      return links.length ? [{ ...entry, links }] : [];
    }
    return allowed(entry, ability, signedIn) ? [entry] : [];
  });
}

/** Whether the header carries staff menus (anything beyond what a login alone opens). */
const isStaffMenu = (entries: MenuEntry[]) => entries.some((entry) => 'links' in entry || entry.ability);

/** The header's navigation for this user; a staff member's personal links move to the account menu. */
export function visibleMenu(ability: AppAbility, signedIn: boolean): MenuEntry[] {
  const entries = permittedMenu(ability, signedIn);
  return isStaffMenu(entries) ? entries.filter((entry) => 'links' in entry || !entry.personal) : entries;
}

/** The personal links the account menu offers: a staff member's (a customer has them in the header). */
export function accountMenuLinks(ability: AppAbility, signedIn: boolean): MenuLink[] {
  const entries = permittedMenu(ability, signedIn);
  return isStaffMenu(entries) ? entries.filter((entry): entry is MenuLink => !('links' in entry) && Boolean(entry.personal)) : [];
}
