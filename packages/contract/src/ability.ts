/**
 * The permission model (DESIGN.md section 7) as one CASL definition. The server builds an ability
 * from these rules for every request and enforces it on route, record and field; the session
 * endpoint sends the same rules (packed) so that the web app can hide or disable what they deny.
 */
import {
  AbilityBuilder,
  createMongoAbility,
  fieldPatternMatcher,
  subject as tagSubject,
  type MongoAbility,
  type RawRuleOf,
} from '@casl/ability';
import { packRules, unpackRules, type PackRule } from '@casl/ability/extra';

export const ROLES = ['ADMIN', 'DISTRIBUTOR', 'USER'] as const;
export type Role = (typeof ROLES)[number];

export const ACTIONS = [
  'manage',
  'view',
  'view-list',
  'create',
  'update',
  'extend',
  'delete',
  'download',
  'confirm-registration',
  'view-chart',
  'create-anylic-download',
  'view-change-log',
  'view-export',
] as const;
export type Action = (typeof ACTIONS)[number];

export const SUBJECTS = [
  'User',
  'Product',
  'LicensePolicy',
  'Tan',
  'Feature',
  'License',
  'Setting',
  'Statistics',
  'Export',
  'ApiToken',
  'WebhookEndpoint',
  'Release',
  'Organization',
  'all',
] as const;
export type SubjectName = (typeof SUBJECTS)[number];

export type AppAbility = MongoAbility<[Action, SubjectName | Record<string, unknown>]>;
export type AppRule = RawRuleOf<AppAbility>;

/** The User fields every account may change on itself; email has its own confirmed flow. */
export const OWN_USER_FIELDS = [
  'firstName',
  'lastName',
  'company',
  'address',
  'address2',
  'zip',
  'city',
  'country',
  'phone',
  'fax',
  'optInEmail',
] as const;

/**
 * Fields only administrators see: the API leaves them out of every answer to anyone else (what an
 * administrator notes about a person, a product, a feature or a policy is for internal use).
 */
export const STAFF_ONLY_FIELDS = {
  User: ['notes'],
  Product: ['notes'],
  Feature: ['notes'],
  LicensePolicy: ['notes'],
} as const satisfies Partial<Record<SubjectName, readonly string[]>>;
export type SubjectWithStaffFields = keyof typeof STAFF_ONLY_FIELDS;

/**
 * The License fields an owner changes through the license actions: change machine, move. A trial's
 * end date is not among them: the owner only extends it within the product's trial days (the
 * `extend` action); setting any date, revoking and making permanent are for administrators.
 */
export const OWN_LICENSE_FIELDS = ['machineId', 'ownerId'] as const;

/** Field paths of the statistics chart rules (spec section 6). */
export const STATISTICS_FIELDS = {
  'tan-activations': 'Tans.Activated',
  'tan-free-updates-expired': 'Tans.FreeUpdatesExpired',
  'trial-licenses': 'Licenses.Trial',
  'new-users': 'Users.New',
  'active-users': 'Users.Active',
  'active-machines': 'Machines.Active',
  downloads: 'Releases.Downloads',
  overage: 'Tans.Overage',
} as const;

export interface AbilityUser {
  id: number;
  accessRole: Role;
}

export function rulesFor(user: AbilityUser | null): AppRule[] {
  const { can, cannot, rules } = new AbilityBuilder<AppAbility>(createMongoAbility);
  if (!user) return rules;

  if (user.accessRole === 'ADMIN') {
    can('manage', 'all');
    return rules;
  }

  // Every signed-in account: its own licenses and its own account.
  const own = { ownerId: user.id };
  can(['view', 'create', 'download'], 'License', own);
  can('update', 'License', [...OWN_LICENSE_FIELDS], own);
  can('extend', 'License', own);
  can('delete', 'License', { ownerId: user.id, kind: 'TEMPORARY' });
  can('view', 'User', { id: user.id });
  can('update', 'User', [...OWN_USER_FIELDS], { id: user.id });
  can('delete', 'User', { id: user.id });
  // API tokens act as their owner (DESIGN.md section 6b): anyone signed in makes them for themselves.
  can(['view-list', 'view', 'create', 'delete'], 'ApiToken', { ownerId: user.id });

  if (user.accessRole === 'DISTRIBUTOR') {
    const distributed = { distributorId: user.id };
    can(['view-list', 'view'], 'License', distributed);
    can(['view-list', 'view'], ['Product', 'Feature', 'LicensePolicy']);
    can(['view-list', 'view', 'create', 'update'], 'Tan', distributed);
    // The numbers of their own TANs (the route counts only those): activations, and the grants beyond
    // the count, whose monthly true-up they read per TAN already (DESIGN.md section 6g).
    can('view-chart', 'Statistics', [`${STATISTICS_FIELDS['tan-activations']}.**`, `${STATISTICS_FIELDS.overage}.**`]);
    // Webhooks for a reseller's own systems; they receive only what its rules let it view.
    can(['view-list', 'view', 'create', 'update', 'delete'], 'WebhookEndpoint', { ownerId: user.id });
  }
  // What administrators write for themselves stays with them.
  for (const [type, fields] of Object.entries(STAFF_ONLY_FIELDS)) cannot(['view', 'view-list'], type as SubjectWithStaffFields, [...fields]);
  return rules;
}

export function createAbility(rules: AppRule[]): AppAbility {
  return createMongoAbility<AppAbility>(rules, { fieldMatcher: fieldPatternMatcher });
}

export function abilityFor(user: AbilityUser | null): AppAbility {
  return createAbility(rulesFor(user));
}

export type PackedRules = PackRule<AppRule>[];

export function packAbilityRules(rules: AppRule[]): PackedRules {
  return packRules(rules);
}

export function unpackAbilityRules(packed: PackedRules): AppRule[] {
  return unpackRules(packed) as AppRule[];
}

/** The record without the fields the ability may not view (a customer's own account without notes). */
export function withoutUnviewableFields<T extends Record<string, unknown>>(ability: AppAbility, type: SubjectWithStaffFields, record: T): T {
  const hidden = STAFF_ONLY_FIELDS[type].filter((field) => field in record && !ability.can('view', asSubject(type, { ...record }), field));
  if (!hidden.length) return record;
  const visible: Record<string, unknown> = { ...record };
  for (const field of hidden) delete visible[field];
  return visible as T;
}

/** Tags a plain record with its subject type so that conditions apply to it. */
export function asSubject<T extends Record<string, unknown>>(type: Exclude<SubjectName, 'all'>, record: T) {
  return tagSubject(type, record);
}
