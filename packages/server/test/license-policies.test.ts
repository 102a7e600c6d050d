import { describe, expect, it } from 'vitest';
import { builtInPolicyId, changesOf, createPolicy, policyInput, uniqueName } from './catalogue-fixtures.ts';
import { callersOfEachRole, describeBothDatabases, expectError } from './harness.ts';

describeBothDatabases('license policies', (t) => {
  const { cookies, admin, user, distributor, anonymous } = callersOfEachRole(t);

  describe('POST /api/license-policies', () => {
    it('creates a policy, answers every field, and logs the insert', async () => {
      const body = policyInput({ type: 'FLOATING', freeUpdatesPeriodDays: 31, notes: 'for labs' });
      const response = await admin.post('/api/license-policies', { body });
      expect(response.statusCode, response.body).toBe(201);
      const created = response.json();
      expect(created).toMatchObject({ ...body, builtIn: false });
      const changes = await changesOf(t.app, 'LicensePolicy', created.id);
      expect(changes.map((row) => row.operation)).toEqual(['insert']);
      expect(JSON.parse(changes[0].new_values!)).toMatchObject({ name: body.name, type: 'FLOATING' });
    });

    it('accepts every option of the spec lists and "none" for free updates', async () => {
      for (const [refetch, interval, freeUpdates] of [
        [0, 12, null],
        [15 * 60, 24 * 14, 92],
        [365 * 86400, 1095 * 24, 1098],
      ] as const) {
        const body = policyInput({ refetchIntervalSeconds: refetch, refetchBeforeExpirySeconds: refetch, maxDifferentMachinesIntervalHours: interval, freeUpdatesPeriodDays: freeUpdates });
        expect((await admin.post('/api/license-policies', { body })).statusCode).toBe(201);
      }
    });

    const invalid: [string, Record<string, unknown>, string][] = [
      ['a name of 4 characters', { name: 'abcd' }, 'name'],
      ['a name of 256 characters', { name: 'x'.repeat(256) }, 'name'],
      ['no name', { name: undefined }, 'name'],
      ['a public name of 1 character', { publicName: { en: 'x' } }, 'publicName.en'],
      ['a public name entry without description', { publicName: { en: '  ' } }, 'publicName.en'],
      ['a public name of 256 characters', { publicName: { en: 'x'.repeat(256) } }, 'publicName.en'],
      ['a public name for an unknown locale', { publicName: { xx: 'Text' } }, 'publicName'],
      ['no type', { type: undefined }, 'type'],
      ['an unknown type', { type: 'FOREVER' }, 'type'],
      ['licenseMaxValidDays 0', { licenseMaxValidDays: 0 }, 'licenseMaxValidDays'],
      ['licenseMaxValidDays 1.5', { licenseMaxValidDays: 1.5 }, 'licenseMaxValidDays'],
      ['licenseMaxValidDays as text', { licenseMaxValidDays: '30' }, 'licenseMaxValidDays'],
      ['a refetch interval off the list', { refetchIntervalSeconds: 100 }, 'refetchIntervalSeconds'],
      ['no refetch interval', { refetchIntervalSeconds: undefined }, 'refetchIntervalSeconds'],
      ['a refetch-before-expiry off the list', { refetchBeforeExpirySeconds: 61 }, 'refetchBeforeExpirySeconds'],
      ['maxDifferentMachinesCount 0', { maxDifferentMachinesCount: 0 }, 'maxDifferentMachinesCount'],
      ['no machines interval', { maxDifferentMachinesIntervalHours: undefined }, 'maxDifferentMachinesIntervalHours'],
      ['a machines interval off the list', { maxDifferentMachinesIntervalHours: 25 }, 'maxDifferentMachinesIntervalHours'],
      ['a free-updates period off the list', { freeUpdatesPeriodDays: 365 }, 'freeUpdatesPeriodDays'],
      ['a fractional free-updates period', { freeUpdatesPeriodDays: 30.5 }, 'freeUpdatesPeriodDays'],
    ];
    it.each(invalid)('refuses %s with 400 ERR_VALIDATION on the field', async (_label, change, path) => {
      const error = expectError(await admin.post('/api/license-policies', { body: policyInput(change as never) }), 400, 'ERR_VALIDATION');
      expect(error.details?.map((detail) => detail.path)).toContain(path);
    });

    it("refuses refreshes as far apart as the file's validity, which would leave the program without a license in between", async () => {
      const floating = { type: 'FLOATING' as const, licenseMaxValidDays: 1 };
      const tooLate = expectError(await admin.post('/api/license-policies', { body: policyInput({ ...floating, refetchIntervalSeconds: 2 * 86400, refetchBeforeExpirySeconds: 86400 }), headers: { 'accept-language': 'de' } }), 400, 'ERR_VALIDATION');
      expect(tooLate.details).toEqual([
        { path: 'refetchIntervalSeconds', code: 'refetchBeyondValidity', message: 'Wählen Sie weniger als die Gültigkeit der Datei von 1 Tag', params: { count: 1 } },
        expect.objectContaining({ path: 'refetchBeforeExpirySeconds', code: 'refetchBeyondValidity' }),
      ]);
      const policy = await createPolicy(t.app, cookies.ADMIN, { ...floating, refetchIntervalSeconds: 15 * 60, refetchBeforeExpirySeconds: 3600 });
      // Shortening the validity under the refresh interval is refused too, on the interval.
      const shortened = expectError(await admin.put(`/api/license-policies/${policy.id}`, { body: { licenseMaxValidDays: 1, refetchIntervalSeconds: 86400 } }), 400, 'ERR_VALIDATION');
      expect(shortened.details?.map((detail) => detail.path)).toEqual(['refetchIntervalSeconds']);
      // A perpetual file does not expire: its refresh times are free.
      expect((await admin.post('/api/license-policies', { body: policyInput({ type: 'PERPETUAL', licenseMaxValidDays: 1, refetchIntervalSeconds: 30 * 86400 }) })).statusCode).toBe(201);
    });

    it('refuses choosing INDEFINITE: only PERPETUAL and FLOATING are selectable', async () => {
      const error = expectError(await admin.post('/api/license-policies', { body: policyInput({ type: 'INDEFINITE', publicName: {} }) }), 400, 'ERR_VALIDATION');
      expect(error.details?.[0].path).toBe('type');
    });

    it('refuses a duplicate name with 409 ERR_CONFLICT, built-in names included', async () => {
      const existing = await createPolicy(t.app, cookies.ADMIN);
      expectError(await admin.post('/api/license-policies', { body: policyInput({ name: existing.name }) }), 409, 'ERR_CONFLICT');
      expectError(await admin.post('/api/license-policies', { body: policyInput({ name: 'FLOATING_DEFAULT' }) }), 409, 'ERR_CONFLICT');
    });

    it('refuses customers and distributors with 403, anonymous callers with 401', async () => {
      for (const caller of [user, distributor]) expectError(await caller.post('/api/license-policies', { body: policyInput() }), 403, 'ERR_FORBIDDEN');
      expectError(await anonymous.post('/api/license-policies', { body: policyInput() }), 401, 'ERR_UNAUTHENTICATED');
    });
  });

  describe('GET /api/license-policies', () => {
    it('lists the built-in policies with their flag, INDEFINITE without a public name', async () => {
      const body = (await admin.get('/api/license-policies', { query: { filter: '_', limit: '1000' } })).json();
      const builtIn = body.items.filter((policy: { builtIn: boolean }) => policy.builtIn);
      expect(builtIn.map((policy: { name: string }) => policy.name).sort()).toEqual(['FLOATING_DEFAULT', 'SINGLE_HOST_INDEFINITE', 'SINGLE_HOST_PERPETUAL']);
      const indefinite = builtIn.find((policy: { type: string }) => policy.type === 'INDEFINITE');
      expect(indefinite.publicName).toEqual({});
    });

    it('filters by text and type, sorts, pages, and answers items and totalCount', async () => {
      const prefix = uniqueName('pol');
      await createPolicy(t.app, cookies.ADMIN, { name: `${prefix}-a`, type: 'FLOATING', licenseMaxValidDays: 5, refetchBeforeExpirySeconds: 86400 });
      await createPolicy(t.app, cookies.ADMIN, { name: `${prefix}-b`, type: 'PERPETUAL', licenseMaxValidDays: 9 });
      await createPolicy(t.app, cookies.ADMIN, { name: `${prefix}-c`, type: 'FLOATING', licenseMaxValidDays: 7, refetchBeforeExpirySeconds: 86400 });
      const all = (await admin.get('/api/license-policies', { query: { filter: prefix, sort: '-licenseMaxValidDays' } })).json();
      expect(all.totalCount).toBe(3);
      expect(all.items.map((policy: { name: string }) => policy.name)).toEqual([`${prefix}-b`, `${prefix}-c`, `${prefix}-a`]);
      const floating = (await admin.get('/api/license-policies', { query: { filter: prefix, type: 'FLOATING', limit: '1' } })).json();
      expect(floating.totalCount).toBe(2);
      expect(floating.items).toHaveLength(1);
      expectError(await admin.get('/api/license-policies', { query: { type: 'OTHER' } }), 400, 'ERR_VALIDATION');
      expectError(await admin.get('/api/license-policies', { query: { limit: '1001' } }), 400, 'ERR_VALIDATION');
    });

    it('finds a policy by its public name', async () => {
      const word = uniqueName('Lizenz');
      const policy = await createPolicy(t.app, cookies.ADMIN, { publicName: { de: word } });
      expect((await admin.get('/api/license-policies', { query: { filter: word } })).json().items.map((item: { id: number }) => item.id)).toEqual([policy.id]);
    });

    it('lets distributors list (for TAN forms); refuses customers with 403 and anonymous callers with 401', async () => {
      expect((await distributor.get('/api/license-policies')).statusCode).toBe(200);
      expectError(await user.get('/api/license-policies'), 403, 'ERR_FORBIDDEN');
      expectError(await anonymous.get('/api/license-policies'), 401, 'ERR_UNAUTHENTICATED');
    });
  });

  describe('GET /api/license-policies/{id}', () => {
    it('answers one policy, 404 for an unknown id, 403 for customers and 401 for anonymous callers', async () => {
      const policy = await createPolicy(t.app, cookies.ADMIN);
      expect((await distributor.get(`/api/license-policies/${policy.id}`)).json()).toMatchObject({ id: policy.id, name: policy.name });
      expectError(await admin.get('/api/license-policies/999999'), 404, 'ERR_NOT_FOUND');
      expectError(await admin.get('/api/license-policies/0'), 400, 'ERR_VALIDATION');
      expectError(await user.get(`/api/license-policies/${policy.id}`), 403, 'ERR_FORBIDDEN');
      expectError(await anonymous.get(`/api/license-policies/${policy.id}`), 401, 'ERR_UNAUTHENTICATED');
    });
  });

  describe('PUT /api/license-policies/{id}', () => {
    it('changes a policy and logs old and new values', async () => {
      const policy = await createPolicy(t.app, cookies.ADMIN);
      const body = policyInput({ name: uniqueName('changed'), type: 'FLOATING', publicName: { fr: 'Licence flottante' }, maxDifferentMachinesCount: 10 });
      const response = await admin.put(`/api/license-policies/${policy.id}`, { body });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ id: policy.id, name: body.name, type: 'FLOATING', publicName: { fr: 'Licence flottante' }, maxDifferentMachinesCount: 10 });
      const [, update] = await changesOf(t.app, 'LicensePolicy', policy.id);
      expect(JSON.parse(update.old_values!)).toMatchObject({ name: policy.name, type: 'PERPETUAL' });
      expect(JSON.parse(update.new_values!)).toMatchObject({ name: body.name, type: 'FLOATING' });
    });

    it('lets the built-in INDEFINITE policy keep its type, without a public name, and keep its name', async () => {
      const id = await builtInPolicyId(t.app, 'SINGLE_HOST_INDEFINITE');
      const current = (await admin.get(`/api/license-policies/${id}`)).json();
      const body = { ...policyInput({ name: current.name, type: 'INDEFINITE', publicName: {} }), licenseMaxValidDays: 45 };
      expect((await admin.put(`/api/license-policies/${id}`, { body })).json()).toMatchObject({ type: 'INDEFINITE', licenseMaxValidDays: 45, builtIn: true });
      const named = expectError(await admin.put(`/api/license-policies/${id}`, { body: { ...body, publicName: { en: 'Named' } } }), 400, 'ERR_VALIDATION');
      expect(named.details?.[0].path).toBe('publicName');
      expectError(await admin.put(`/api/license-policies/${id}`, { body: { ...body, type: 'PERPETUAL' } }), 400, 'ERR_VALIDATION');
      const renamed = expectError(await admin.put(`/api/license-policies/${id}`, { body: { ...body, name: 'SOMETHING_ELSE' } }), 400, 'ERR_VALIDATION');
      expect(renamed.details?.[0].path).toBe('name');
    });

    it('refuses turning a policy INDEFINITE, a taken name, invalid values and unknown ids', async () => {
      const policy = await createPolicy(t.app, cookies.ADMIN);
      const other = await createPolicy(t.app, cookies.ADMIN);
      expectError(await admin.put(`/api/license-policies/${policy.id}`, { body: policyInput({ name: policy.name, type: 'INDEFINITE', publicName: {} }) }), 400, 'ERR_VALIDATION');
      expectError(await admin.put(`/api/license-policies/${policy.id}`, { body: policyInput({ name: other.name }) }), 409, 'ERR_CONFLICT');
      expectError(await admin.put(`/api/license-policies/${policy.id}`, { body: policyInput({ licenseMaxValidDays: 0 }) }), 400, 'ERR_VALIDATION');
      expectError(await admin.put('/api/license-policies/999999', { body: policyInput() }), 404, 'ERR_NOT_FOUND');
    });

    it('refuses customers and distributors with 403, anonymous callers with 401', async () => {
      const policy = await createPolicy(t.app, cookies.ADMIN);
      const body = policyInput({ name: policy.name });
      for (const caller of [user, distributor]) expectError(await caller.put(`/api/license-policies/${policy.id}`, { body }), 403, 'ERR_FORBIDDEN');
      expectError(await anonymous.put(`/api/license-policies/${policy.id}`, { body }), 401, 'ERR_UNAUTHENTICATED');
    });
  });
});
