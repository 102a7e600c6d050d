import { describe, expect, it } from 'vitest';
import { abilityFor, asSubject as tag, createAbility, packAbilityRules, rulesFor, unpackAbilityRules, withoutUnviewableFields, type AbilityUser, type SubjectName } from './ability.ts';

/** A record tagged with its subject type, typed as the ability takes it (as the server does). */
const asSubject = (type: Exclude<SubjectName, 'all'>, record: Record<string, unknown>) => tag(type, record);

const customer: AbilityUser = { id: 10, accessRole: 'USER' };
const distributor: AbilityUser = { id: 20, accessRole: 'DISTRIBUTOR' };
const admin: AbilityUser = { id: 1, accessRole: 'ADMIN' };

describe('CASL rules', () => {
  describe('anonymous', () => {
    it('may do nothing', () => {
      const ability = abilityFor(null);
      expect(rulesFor(null)).toEqual([]);
      expect(ability.can('view', 'License')).toBe(false);
      expect(ability.can('view-list', 'Product')).toBe(false);
      expect(ability.can('update', 'Setting')).toBe(false);
    });
  });

  describe('USER', () => {
    const ability = abilityFor(customer);

    it('can view its own License but not another account\'s', () => {
      expect(ability.can('view', asSubject('License', { ownerId: customer.id }))).toBe(true);
      expect(ability.can('view', asSubject('License', { ownerId: 99 }))).toBe(false);
      for (const action of ['create', 'update', 'download'] as const) {
        expect(ability.can(action, asSubject('License', { ownerId: customer.id }))).toBe(true);
        expect(ability.can(action, asSubject('License', { ownerId: 99 }))).toBe(false);
      }
    });

    it('can update only the machine and owner of its own License, not set its end date, revoke or make it permanent', () => {
      const own = asSubject('License', { ownerId: customer.id, kind: 'TAN' });
      for (const field of ['machineId', 'ownerId']) expect(ability.can('update', own, field), field).toBe(true);
      for (const field of ['validUntil', 'revoked', 'permanent']) expect(ability.can('update', own, field), field).toBe(false);
      expect(ability.can('extend', own)).toBe(true);
      expect(ability.can('extend', asSubject('License', { ownerId: 99 }))).toBe(false);
      expect(ability.can('update', asSubject('License', { ownerId: 99 }), 'machineId')).toBe(false);
    });

    it('cannot view-list License (the list of other accounts\' licenses)', () => {
      expect(ability.can('view-list', 'License')).toBe(false);
      expect(ability.can('view-list', asSubject('License', { ownerId: customer.id, distributorId: customer.id }))).toBe(false);
    });

    it('can delete only its own temporary licenses', () => {
      expect(ability.can('delete', asSubject('License', { ownerId: customer.id, kind: 'TEMPORARY' }))).toBe(true);
      expect(ability.can('delete', asSubject('License', { ownerId: customer.id, kind: 'TAN' }))).toBe(false);
      expect(ability.can('delete', asSubject('License', { ownerId: 99, kind: 'TEMPORARY' }))).toBe(false);
    });

    it('can update its own name and address, not email, notes or accessRole', () => {
      const self = asSubject('User', { id: customer.id });
      for (const field of ['firstName', 'lastName', 'company', 'address', 'zip', 'city', 'country', 'phone', 'optInEmail']) {
        expect(ability.can('update', self, field), field).toBe(true);
      }
      for (const field of ['email', 'notes', 'accessRole', 'confirmed']) expect(ability.can('update', self, field), field).toBe(false);
      expect(ability.can('update', asSubject('User', { id: 99 }), 'firstName')).toBe(false);
      expect(ability.can('view', self)).toBe(true);
      expect(ability.can('view', self, 'city')).toBe(true);
      expect(ability.can('view', self, 'notes')).toBe(false);
      expect(withoutUnviewableFields(ability, 'User', { id: customer.id, city: 'Bonn', notes: 'pays late' })).toEqual({ id: customer.id, city: 'Bonn' });
      expect(withoutUnviewableFields(abilityFor({ id: 1, accessRole: 'ADMIN' }), 'User', { id: customer.id, notes: 'pays late' })).toEqual({ id: customer.id, notes: 'pays late' });
      expect(ability.can('view', asSubject('User', { id: 99 }))).toBe(false);
      expect(ability.can('view-list', 'User')).toBe(false);
    });

    it('has nothing on products, TANs, statistics, settings, exports and change logs', () => {
      for (const subject of ['Product', 'Feature', 'LicensePolicy', 'Tan'] as const) expect(ability.can('view-list', subject)).toBe(false);
      expect(ability.can('view-chart', 'Statistics')).toBe(false);
      expect(ability.can('view-chart', 'Statistics', 'Tans.Activated.all')).toBe(false);
      expect(ability.can('update', 'Setting')).toBe(false);
      expect(ability.can('view-export', 'Export')).toBe(false);
      expect(ability.can('view-change-log', 'User')).toBe(false);
      expect(ability.can('create-anylic-download', 'License')).toBe(false);
    });
  });

  describe('DISTRIBUTOR', () => {
    const ability = abilityFor(distributor);

    it('can view-list Tan only with its own distributorId', () => {
      expect(ability.can('view-list', asSubject('Tan', { distributorId: distributor.id }))).toBe(true);
      expect(ability.can('view-list', asSubject('Tan', { distributorId: 99 }))).toBe(false);
      expect(ability.can('view-list', asSubject('Tan', { distributorId: null }))).toBe(false);
      // The list query gets the condition to filter by.
      expect(ability.rulesFor('view-list', 'Tan').map((rule) => rule.conditions)).toEqual([{ distributorId: distributor.id }]);
    });

    it('can create and update its own TANs, not delete them or touch others', () => {
      expect(ability.can('create', asSubject('Tan', { distributorId: distributor.id }))).toBe(true);
      expect(ability.can('update', asSubject('Tan', { distributorId: distributor.id }))).toBe(true);
      expect(ability.can('update', asSubject('Tan', { distributorId: 99 }))).toBe(false);
      expect(ability.can('delete', asSubject('Tan', { distributorId: distributor.id }))).toBe(false);
    });

    it('can view-list licenses of its TANs and its own, not others', () => {
      expect(ability.can('view-list', asSubject('License', { ownerId: 5, distributorId: distributor.id }))).toBe(true);
      expect(ability.can('view-list', asSubject('License', { ownerId: 5, distributorId: 99 }))).toBe(false);
      expect(ability.can('view', asSubject('License', { ownerId: distributor.id, distributorId: null }))).toBe(true);
    });

    it('can view-list products, features and policies but not change them', () => {
      for (const subject of ['Product', 'Feature', 'LicensePolicy'] as const) {
        expect(ability.can('view-list', subject)).toBe(true);
        expect(ability.can('view', subject)).toBe(true);
        expect(ability.can('create', subject)).toBe(false);
        expect(ability.can('update', subject)).toBe(false);
        expect(ability.can('delete', subject)).toBe(false);
      }
    });

    it('can view-chart only the Tans.Activated.** and Tans.Overage.** fields (the server counts its own TANs only)', () => {
      expect(ability.can('view-chart', 'Statistics', 'Tans.Activated.total')).toBe(true);
      expect(ability.can('view-chart', 'Statistics', 'Tans.Activated.byProduct.7')).toBe(true);
      expect(ability.can('view-chart', 'Statistics', 'Tans.Overage.grants')).toBe(true);
      expect(ability.can('view-chart', 'Statistics', 'Tans.Overage.tans')).toBe(true);
      for (const field of ['Tans.FreeUpdatesExpired.total', 'Licenses.Trial.total', 'Users.New.total', 'Users.Active.total', 'Machines.Active.total', 'Releases.Downloads.downloads', 'Tans.Other']) {
        expect(ability.can('view-chart', 'Statistics', field), field).toBe(false);
      }
    });

    it('has no administrator rights', () => {
      expect(ability.can('view-list', 'User')).toBe(false);
      expect(ability.can('update', 'Setting')).toBe(false);
      expect(ability.can('create-anylic-download', 'License')).toBe(false);
      expect(ability.can('view-change-log', 'Tan')).toBe(false);
      expect(ability.can('view-export', 'Export')).toBe(false);
      expect(ability.can('confirm-registration', 'User')).toBe(false);
    });
  });

  describe('ADMIN', () => {
    const ability = abilityFor(admin);

    it('can manage all: every action on every subject and field', () => {
      expect(ability.can('manage', 'all')).toBe(true);
      expect(ability.can('view-list', 'License')).toBe(true);
      expect(ability.can('delete', asSubject('License', { ownerId: 99, kind: 'TAN' }))).toBe(true);
      expect(ability.can('update', asSubject('User', { id: 99 }), 'accessRole')).toBe(true);
      expect(ability.can('view-list', asSubject('Tan', { distributorId: 99 }))).toBe(true);
      expect(ability.can('view-chart', 'Statistics', 'Machines.Active.total')).toBe(true);
      expect(ability.can('create-anylic-download', 'License')).toBe(true);
      expect(ability.can('view-change-log', 'LicensePolicy')).toBe(true);
      expect(ability.can('view-export', 'Export')).toBe(true);
      expect(ability.can('update', 'Setting')).toBe(true);
    });
  });

  describe('packing for the session endpoint', () => {
    it('unpacks to an ability that decides like the original', () => {
      for (const user of [customer, distributor, admin]) {
        const rules = rulesFor(user);
        const packed = JSON.parse(JSON.stringify(packAbilityRules(rules)));
        const unpacked = createAbility(unpackAbilityRules(packed));
        const original = abilityFor(user);
        const checks: [Parameters<typeof original.can>[0], Parameters<typeof original.can>[1], string?][] = [
          ['view', asSubject('License', { ownerId: user.id })],
          ['view', asSubject('License', { ownerId: 99 })],
          ['view-list', asSubject('Tan', { distributorId: user.id })],
          ['view-chart', 'Statistics', 'Tans.Activated.total'],
          ['view-chart', 'Statistics', 'Users.New.total'],
          ['update', asSubject('User', { id: user.id }), 'email'],
          ['update', 'Setting'],
        ];
        for (const [action, subject, field] of checks) expect(unpacked.can(action, subject, field)).toBe(original.can(action, subject, field));
      }
    });
  });
});
