/**
 * Every PUT keeps the fields its body leaves out (a shop that only revokes a TAN must not clear its
 * tags, notes and free-updates date), clears a field sent as null, and still validates the record as
 * a whole.
 */
import { describe, expect, it } from 'vitest';
import { callersOfEachRole, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { daysFromToday, uniqueName } from './invariants-support.ts';

describeBothDatabases('PUT keeps the fields left out', (t) => {
  const { admin } = callersOfEachRole(t);

  async function policy() {
    const body = {
      name: uniqueName('KEEP_POLICY'),
      type: 'PERPETUAL',
      publicName: { en: 'Kept name', de: 'Behaltener Name' },
      licenseMaxValidDays: 30,
      refetchIntervalSeconds: 3600,
      refetchBeforeExpirySeconds: 900,
      maxDifferentMachinesCount: 4,
      maxDifferentMachinesIntervalHours: 48,
      freeUpdatesPeriodDays: 366,
      notes: 'policy notes',
    };
    const response = await admin.post('/api/license-policies', { body });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  async function feature(name = uniqueName('keep')) {
    const response = await admin.post('/api/features', { body: { name, localizedDescription: { en: 'Kept' }, hidden: true, notes: 'feature notes' } });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  async function product() {
    const [one, policyId] = [await feature(), (await policy()).id];
    const body = {
      name: uniqueName('Keep'),
      version: '1.0',
      active: false,
      trialDays: 14,
      repeatTrialAfterMonths: 6,
      ignoreTrialsBefore: '2025-01-01',
      releaseDate: '2025-02-02',
      features: [one.name],
      defaultLicensePolicyId: policyId,
      downloadLinks: [{ type: 'win', url: 'https://example.com/setup.exe' }],
      notes: 'product notes',
    };
    const response = await admin.post('/api/products', { body });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  const unchanged = (before: Record<string, unknown>, after: Record<string, unknown>, changed: string[]) => {
    const strip = (record: Record<string, unknown>) => Object.fromEntries(Object.entries(record).filter(([key]) => ![...changed, 'updatedAt'].includes(key)));
    expect(strip(after)).toEqual(strip(before));
  };

  it('TANs: revoking keeps tags, notes, free-updates date, policy and distributor; null clears notes', async () => {
    const distributor = await loggedIn(t.app, 'DISTRIBUTOR');
    const created = await admin.post('/api/tans', {
      body: { productId: (await product()).id, licensePolicyId: (await policy()).id, licenseCount: 3, distributorId: distributor.id, freeUpdatesUntil: daysFromToday(90), tags: ['fair:2026', 'partner'], notes: 'tan notes' },
    });
    const [before] = created.json().items;
    const revoked = await admin.put(`/api/tans/${before.id}`, { body: { revoked: true } });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json().revoked).toBe(true);
    unchanged(before, revoked.json(), ['revoked']);
    const cleared = await admin.put(`/api/tans/${before.id}`, { body: { notes: null, freeUpdatesUntil: null } });
    expect(cleared.json()).toMatchObject({ notes: null, freeUpdatesUntil: null, tags: ['fair:2026', 'partner'], revoked: true });
    expectError(await admin.put(`/api/tans/${before.id}`, { body: { licenseCount: 0 } }), 400, 'ERR_VALIDATION');
  });

  it('products: a new name keeps features, links, trials, dates and notes', async () => {
    const before = await product();
    const after = await admin.put(`/api/products/${before.id}`, { body: { name: `${before.name}-renamed` } });
    expect(after.statusCode, after.body).toBe(200);
    unchanged(before, after.json(), ['name', 'formattedName']);
    expect((await admin.put(`/api/products/${before.id}`, { body: { notes: null } })).json()).toMatchObject({ notes: null, downloadLinks: before.downloadLinks });
    expectError(await admin.put(`/api/products/${before.id}`, { body: { name: ' padded ' } }), 400, 'ERR_VALIDATION');
  });

  it('features: hiding keeps descriptions, expansions and notes', async () => {
    const target = await feature();
    const before = (await admin.put(`/api/features/${(await feature()).id}`, { body: { expandToFeatures: [target.name] } })).json();
    const after = await admin.put(`/api/features/${before.id}`, { body: { hidden: false } });
    expect(after.statusCode, after.body).toBe(200);
    unchanged(before, after.json(), ['hidden']);
    expect(after.json().expandToFeatures).toEqual([target.name]);
  });

  it('license policies: a new machine limit keeps public names, periods and notes; the rules across fields still hold', async () => {
    const before = await policy();
    const after = await admin.put(`/api/license-policies/${before.id}`, { body: { maxDifferentMachinesCount: 9 } });
    expect(after.statusCode, after.body).toBe(200);
    unchanged(before, after.json(), ['maxDifferentMachinesCount']);
    expectError(await admin.put(`/api/license-policies/${before.id}`, { body: { type: 'INDEFINITE' } }), 400, 'ERR_VALIDATION');
  });

  describe('licenses', () => {
    it('making one permanent keeps revoked and valid until', async () => {
      const owner = await loggedIn(t.app, 'USER');
      const productId = (await product()).id;
      await admin.put(`/api/products/${productId}`, { body: { active: true } });
      const [tan] = (await admin.post('/api/tans', { body: { productId, licenseCount: 1 } })).json().items;
      const activated = await t.app.inject({ method: 'POST', url: '/api/licenses/activate', headers: { cookie: owner.cookie }, payload: { tan: tan.code, machineId: 'KEEP-1' } });
      const license = activated.json();
      expect((await admin.put(`/api/licenses/${license.id}`, { body: { validUntil: daysFromToday(30) } })).json()).toMatchObject({ validUntil: daysFromToday(30), revoked: false });
      const after = await admin.put(`/api/licenses/${license.id}`, { body: { permanent: true } });
      expect(after.json()).toMatchObject({ permanent: true, validUntil: daysFromToday(30), revoked: false });
    });
  });
});
