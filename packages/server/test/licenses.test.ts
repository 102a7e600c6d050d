import { beforeAll, describe, expect, it } from 'vitest';
import { formatTanCode } from '@lm/contract/tan';
import { client, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { activate, createTans, insertPolicy, insertProduct, isoDaysFromToday, machine, type Client } from './licensing-test-data.ts';

describeBothDatabases('licenses: activation, temporary licenses, lists', (t) => {
  let admin: Client;
  let productId: number;
  const customer = async () => {
    const user = await loggedIn(t.app, 'USER');
    return { ...user, api: client(t.app, user.cookie) };
  };

  beforeAll(async () => {
    admin = client(t.app, (await loggedIn(t.app, 'ADMIN')).cookie);
    productId = (await insertProduct(t.app)).id;
  });

  describe('POST /api/licenses/activate', () => {
    it('binds a new license from a TAN to the machine, for the caller, with a change-log row', async () => {
      const policyId = await insertPolicy(t.app, { freeUpdatesPeriodDays: 100 });
      const [tan] = await createTans(admin, { productId, licensePolicyId: policyId, licenseCount: 2 });
      const { id: ownerId, api } = await customer();
      const response = await activate(api, formatTanCode(tan.code).toUpperCase(), 'MACHINE-1');
      expect(response.statusCode, response.body).toBe(201);
      const license = response.json();
      expect(license).toMatchObject({
        kind: 'TAN',
        ownerId,
        productId,
        licensePolicyId: policyId,
        tanId: tan.id,
        tanCode: tan.code,
        machineId: 'MACHINE-1',
        validUntil: null,
        permanent: false,
        revoked: false,
        freeUpdatesUntil: isoDaysFromToday(100),
        freeUpdatesState: 'active',
        upgradedToId: null,
        freeUpgrade: null,
      });
      const log = await t.app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', 'License').where('record_id', '=', license.id).execute();
      expect(log.map((row) => row.operation)).toEqual(['insert']);
      expect((await admin.get(`/api/tans/${tan.id}`)).json().activatedCount).toBe(1);
    });

    it("takes the TAN's free-updates date and the product's default policy", async () => {
      const policyId = await insertPolicy(t.app);
      const product = (await insertProduct(t.app, { defaultLicensePolicyId: policyId })).id;
      const [tan] = await createTans(admin, { productId: product, freeUpdatesUntil: '2030-12-31' });
      const license = (await activate((await customer()).api, tan.code)).json();
      expect(license).toMatchObject({ licensePolicyId: policyId, freeUpdatesUntil: '2030-12-31' });
    });

    it("refuses an unknown, revoked or used-up TAN and an inactive product with 'Invalid license (activation failed)'", async () => {
      const { api } = await customer();
      const unknown = expectError(await activate(api, 'abcd-efgh-jkmn'), 422, 'ERR_INVALID_LICENSE');
      expect(unknown.message).toBe('Invalid license (activation failed)');

      const [usedUp] = await createTans(admin, { productId, licenseCount: 1 });
      expect((await activate(api, usedUp.code)).statusCode).toBe(201);
      expectError(await activate(api, usedUp.code), 422, 'ERR_INVALID_LICENSE');

      const [revoked] = await createTans(admin, { productId });
      await admin.put(`/api/tans/${revoked.id}`, { body: { productId, licenseCount: 1, revoked: true } });
      expectError(await activate(api, revoked.code), 422, 'ERR_INVALID_LICENSE');

      const inactive = (await insertProduct(t.app, { active: false })).id;
      const [ofInactive] = await createTans(admin, { productId: inactive });
      expectError(await activate(api, ofInactive.code), 422, 'ERR_INVALID_LICENSE');
      expect((await admin.get(`/api/tans/${ofInactive.id}`)).json().activatedCount).toBe(0);
    });

    it("refuses a machine that already holds a license for the product: 'Machine-ID already used for a license'", async () => {
      const [tan] = await createTans(admin, { productId, licenseCount: 3 });
      const first = await customer();
      const second = await customer();
      expect((await activate(first.api, tan.code, 'SHARED-MACHINE')).statusCode).toBe(201);
      const refused = expectError(await activate(second.api, tan.code, 'SHARED-MACHINE'), 409, 'ERR_MACHINE_ID_USED');
      expect(refused.message).toBe('Machine-ID already used for a license');
      expect((await admin.get(`/api/tans/${tan.id}`)).json().activatedCount).toBe(1);
      // Another product on the same machine is fine.
      const other = (await insertProduct(t.app)).id;
      const [otherTan] = await createTans(admin, { productId: other });
      expect((await activate(second.api, otherTan.code, 'SHARED-MACHINE')).statusCode).toBe(201);
    });

    it('refuses past the different-machines window of the TAN with the count, days and hours', async () => {
      const policyId = await insertPolicy(t.app, { maxDifferentMachinesCount: 2, maxDifferentMachinesIntervalHours: 48 });
      const [tan] = await createTans(admin, { productId, licensePolicyId: policyId, licenseCount: 2 });
      const { api } = await customer();
      const license = (await activate(api, tan.code, 'W-1')).json();
      expect((await api.put(`/api/licenses/${license.id}/machine`, { body: { machineId: 'W-2' } })).statusCode).toBe(200);
      // The TAN has been on W-1 and W-2 within 48 hours: a second license on W-3 would be a third machine.
      const body = expectError(await activate(api, tan.code, 'W-3'), 422, 'ERR_TOO_MANY_MACHINES');
      expect(body.message).toBe('You have already used this license on 2 different machines within the last 2 days or 48 hours');
      expect((await api.get('/api/licenses')).statusCode).toBe(200);
      expect((await admin.get(`/api/tans/${tan.id}`)).json().activatedCount).toBe(1);
    });

    it('validates the body and needs a login', async () => {
      const { api } = await customer();
      for (const body of [{}, { tan: '', machineId: 'm' }, { tan: 'abcd-efgh-jkmn', machineId: '' }, { tan: 'abcd-efgh-jkmn', machineId: 'with space' }, { tan: 'x'.repeat(200), machineId: 'm' }]) {
        expectError(await api.post('/api/licenses/activate', { body }), 400, 'ERR_VALIDATION');
      }
      expectError(await client(t.app).post('/api/licenses/activate', { body: { tan: 'abcd-efgh-jkmn', machineId: 'm' } }), 401, 'ERR_UNAUTHENTICATED');
    });

    it('never binds a license to `*`, the machine of ANY-Lic files: its file would work on every machine', async () => {
      const trialProduct = await insertProduct(t.app, { trialDays: 30 });
      const [tan] = await createTans(admin, { productId });
      const { api } = await customer();
      const refusedAsAnyMachine = (response: Parameters<typeof expectError>[0]) =>
        expect(expectError(response, 400, 'ERR_VALIDATION').details).toEqual([expect.objectContaining({ path: 'machineId', code: 'machineIdAnyMachine' })]);
      refusedAsAnyMachine(await activate(api, tan.code, '*'));
      refusedAsAnyMachine(await api.post('/api/licenses/temporary', { body: { productId: trialProduct.id, machineId: ' * ', validUntil: isoDaysFromToday(5) } }));
      const license = (await activate(api, tan.code, machine())).json();
      refusedAsAnyMachine(await api.put(`/api/licenses/${license.id}/machine`, { body: { machineId: '*' } }));
      refusedAsAnyMachine(await client(t.app).post('/api/client/v1/license', { body: { machineId: '*', product: 'Any' } }));
      expect((await api.get(`/api/licenses/${license.id}`)).json().machineId).toBe(license.machineId);
      expect(await t.app.ctx.db.selectFrom('licenses').select('id').where('machine_id', '=', '*').execute()).toEqual([]);
    });
  });

  describe('POST /api/licenses/temporary', () => {
    it('adds a temporary license valid until the chosen date, and lists the trial products', async () => {
      const trialProduct = await insertProduct(t.app, { trialDays: 21 });
      const { id: ownerId, api } = await customer();
      const options = (await api.get('/api/licenses/temporary-options')).json();
      expect(options.maxDays).toBe(30);
      expect(options.products).toContainEqual({ id: trialProduct.id, name: trialProduct.name, version: '1.0', formattedName: `${trialProduct.name} 1.0`, trialDays: 21 });
      // The product's 21 trial days bound the validity, within the configured 30.
      const beyondTrial = expectError(await api.post('/api/licenses/temporary', { body: { productId: trialProduct.id, machineId: 'TRIAL-1', validUntil: isoDaysFromToday(22) } }), 400, 'ERR_VALIDATION');
      expect(beyondTrial.details).toEqual([expect.objectContaining({ path: 'validUntil', code: 'maxDaysAhead', params: expect.objectContaining({ count: 21 }) })]);
      const validUntil = isoDaysFromToday(21);
      const response = await api.post('/api/licenses/temporary', { body: { productId: trialProduct.id, machineId: 'TRIAL-1', validUntil } });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json()).toMatchObject({ kind: 'TEMPORARY', ownerId, productId: trialProduct.id, machineId: 'TRIAL-1', validUntil, tanId: null, freeUpdatesUntil: null });
    });

    it('refuses a validity past the configured maximum or in the past', async () => {
      const { api } = await customer();
      const productId = (await insertProduct(t.app, { trialDays: 365 })).id;
      const tooFar = expectError(await api.post('/api/licenses/temporary', { body: { productId, machineId: machine(), validUntil: isoDaysFromToday(31) } }), 400, 'ERR_VALIDATION');
      expect(tooFar.details?.[0].path).toBe('validUntil');
      expectError(await api.post('/api/licenses/temporary', { body: { productId, machineId: machine(), validUntil: isoDaysFromToday(-1) } }), 400, 'ERR_VALIDATION');
      expect((await admin.put('/api/settings/license.temporaryMaxDays', { body: { value: 60 } })).statusCode).toBe(204);
      expect((await api.post('/api/licenses/temporary', { body: { productId, machineId: machine(), validUntil: isoDaysFromToday(60) } })).statusCode).toBe(201);
      expect((await api.get('/api/licenses/temporary-options')).json().maxDays).toBe(60);
      expect((await admin.delete('/api/settings/license.temporaryMaxDays')).statusCode).toBe(204);
    });

    it('allows one per product and machine, even after deleting it, unless the product repeats trials', async () => {
      const once = (await insertProduct(t.app)).id;
      const { api } = await customer();
      const body = { productId: once, machineId: 'ONCE', validUntil: isoDaysFromToday(5) };
      const first = (await api.post('/api/licenses/temporary', { body })).json();
      const again = expectError(await api.post('/api/licenses/temporary', { body }), 422, 'ERR_TRIAL_USED');
      expect(again.message).toBe('This computer has already had a temporary license for this product');
      expect((await api.delete(`/api/licenses/${first.id}`)).statusCode).toBe(204);
      expectError(await api.post('/api/licenses/temporary', { body }), 422, 'ERR_TRIAL_USED');
      // Another account on the same machine does not get a new trial either.
      expectError(await (await customer()).api.post('/api/licenses/temporary', { body }), 422, 'ERR_TRIAL_USED');
    });

    it('repeats a trial after repeatTrialAfterMonths and ignores trials before ignoreTrialsBefore', async () => {
      const repeating = (await insertProduct(t.app, { repeatTrialAfterMonths: 2 })).id;
      const ignoring = (await insertProduct(t.app, { ignoreTrialsBefore: isoDaysFromToday(-10) })).id;
      const { id: ownerId, api } = await customer();
      const longAgo = new Date(Date.now() - 70 * 86_400_000).toISOString();
      await t.app.ctx.db
        .insertInto('license_trials')
        .values([
          { product_id: repeating, machine_id: 'REPEAT', owner_id: ownerId, license_id: null, started_at: longAgo },
          { product_id: ignoring, machine_id: 'IGNORE', owner_id: ownerId, license_id: null, started_at: new Date(Date.now() - 20 * 86_400_000).toISOString() },
        ])
        .execute();
      expect((await api.post('/api/licenses/temporary', { body: { productId: repeating, machineId: 'REPEAT', validUntil: isoDaysFromToday(3) } })).statusCode).toBe(201);
      expect((await api.post('/api/licenses/temporary', { body: { productId: ignoring, machineId: 'IGNORE', validUntil: isoDaysFromToday(3) } })).statusCode).toBe(201);
      const recent = (await insertProduct(t.app, { repeatTrialAfterMonths: 2 })).id;
      await t.app.ctx.db
        .insertInto('license_trials')
        .values({ product_id: recent, machine_id: 'RECENT', owner_id: ownerId, license_id: null, started_at: new Date(Date.now() - 10 * 86_400_000).toISOString() })
        .execute();
      const refused = expectError(await api.post('/api/licenses/temporary', { body: { productId: recent, machineId: 'RECENT', validUntil: isoDaysFromToday(3) } }), 422, 'ERR_TRIAL_USED');
      expect(refused.params).toEqual({ nextTrialFrom: expect.any(String) });
    });

    it('refuses a machine holding a TAN license of the product, an inactive or unknown product, and bad bodies', async () => {
      const [tan] = await createTans(admin, { productId });
      const { api } = await customer();
      await activate(api, tan.code, 'HAS-FULL');
      expectError(await api.post('/api/licenses/temporary', { body: { productId, machineId: 'HAS-FULL', validUntil: isoDaysFromToday(3) } }), 409, 'ERR_MACHINE_ID_USED');
      const inactive = (await insertProduct(t.app, { active: false })).id;
      expectError(await api.post('/api/licenses/temporary', { body: { productId: inactive, machineId: machine(), validUntil: isoDaysFromToday(3) } }), 422, 'ERR_TRIAL_NOT_ALLOWED');
      const noTrials = (await insertProduct(t.app, { trialDays: null })).id;
      expectError(await api.post('/api/licenses/temporary', { body: { productId: noTrials, machineId: machine(), validUntil: isoDaysFromToday(3) } }), 422, 'ERR_TRIAL_NOT_ALLOWED');
      const offered = (await api.get('/api/licenses/temporary-options')).json().products.map((product: { id: number }) => product.id);
      expect(offered).not.toContain(noTrials);
      expect(offered).not.toContain(inactive);
      expectError(await api.post('/api/licenses/temporary', { body: { productId: 999999, machineId: machine(), validUntil: isoDaysFromToday(3) } }), 400, 'ERR_VALIDATION');
      for (const body of [{}, { productId, machineId: 'm' }, { productId, machineId: 'm', validUntil: 'tomorrow' }, { productId, validUntil: isoDaysFromToday(3) }]) {
        expectError(await api.post('/api/licenses/temporary', { body }), 400, 'ERR_VALIDATION');
      }
      expectError(await client(t.app).post('/api/licenses/temporary', { body: { productId, machineId: 'm', validUntil: isoDaysFromToday(3) } }), 401, 'ERR_UNAUTHENTICATED');
      expectError(await client(t.app).get('/api/licenses/temporary-options'), 401, 'ERR_UNAUTHENTICATED');
    });

    it('lets a trial stand beside a TAN activation on the same machine', async () => {
      const { api } = await customer();
      expect((await api.post('/api/licenses/temporary', { body: { productId, machineId: 'TRY-THEN-BUY', validUntil: isoDaysFromToday(3) } })).statusCode).toBe(201);
      const [tan] = await createTans(admin, { productId });
      expect((await activate(api, tan.code, 'TRY-THEN-BUY')).statusCode).toBe(201);
    });
  });

  describe('GET /api/licenses', () => {
    it("lists the caller's own licenses only, searchable by machine id and TAN with or without dashes", async () => {
      const owner = await customer();
      const stranger = await customer();
      const tans = await createTans(admin, { productId }, 3);
      await activate(owner.api, tans[0].code, 'Alpha-Box');
      await activate(owner.api, tans[1].code, 'beta-box');
      await activate(stranger.api, tans[2].code, 'alpha-other');

      const own = (await owner.api.get('/api/licenses')).json();
      expect(own.totalCount).toBe(2);
      expect(own.items.map((item: { machineId: string }) => item.machineId)).toEqual(['beta-box', 'Alpha-Box']);
      expect((await owner.api.get('/api/licenses', { query: { filter: 'ALPHA' } })).json().items.map((item: { machineId: string }) => item.machineId)).toEqual(['Alpha-Box']);
      const byTan = (await owner.api.get('/api/licenses', { query: { filter: formatTanCode(tans[1].code).toUpperCase() } })).json();
      expect(byTan.items.map((item: { machineId: string }) => item.machineId)).toEqual(['beta-box']);
      expect((await owner.api.get('/api/licenses', { query: { filter: tans[1].code.slice(3, 9) } })).json().totalCount).toBe(1);
      expect((await owner.api.get('/api/licenses', { query: { filter: '100%_' } })).json().totalCount).toBe(0);
      expect((await owner.api.get('/api/licenses', { query: { sort: 'machineId' } })).json().items[0].machineId).toBe('Alpha-Box');
      expectError(await owner.api.get('/api/licenses', { query: { sort: 'ownerId' } }), 400, 'ERR_VALIDATION');
      expectError(await client(t.app).get('/api/licenses'), 401, 'ERR_UNAUTHENTICATED');
    });

    it('offline: only licenses usable now (not revoked, upgraded or ended)', async () => {
      const owner = await customer();
      const [tan] = await createTans(admin, { productId, licenseCount: 2 });
      const live = (await activate(owner.api, tan.code)).json();
      const revoked = (await activate(owner.api, tan.code)).json();
      await admin.put(`/api/licenses/${revoked.id}`, { body: { revoked: true, validUntil: null, permanent: false } });
      const trial = (await owner.api.post('/api/licenses/temporary', { body: { productId: (await insertProduct(t.app)).id, machineId: machine(), validUntil: isoDaysFromToday(2) } })).json();
      await t.app.ctx.db.updateTable('licenses').set({ valid_until: isoDaysFromToday(-1) }).where('id', '=', trial.id).execute();
      const offline = (await owner.api.get('/api/licenses', { query: { offline: 'true' } })).json();
      expect(offline.items.map((item: { id: number }) => item.id)).toEqual([live.id]);
      expect((await owner.api.get('/api/licenses')).json().totalCount).toBe(3);
    });

    it("gives administrators another account's licenses; customers are refused", async () => {
      const owner = await customer();
      const [tan] = await createTans(admin, { productId });
      const license = (await activate(owner.api, tan.code)).json();
      const listed = (await admin.get('/api/licenses', { query: { userId: String(owner.id) } })).json();
      expect(listed).toMatchObject({ totalCount: 1, items: [{ id: license.id, ownerEmail: owner.email }] });
      const other = await customer();
      expectError(await other.api.get('/api/licenses', { query: { userId: String(owner.id) } }), 403, 'ERR_FORBIDDEN');
      expectError(await other.api.get('/api/licenses', { query: { tanId: String(tan.id) } }), 403, 'ERR_FORBIDDEN');
      expect((await owner.api.get('/api/licenses', { query: { userId: String(owner.id) } })).json().totalCount).toBe(1);
    });

    it('gives distributors the licenses from their TANs, by account or by TAN, and nothing else', async () => {
      const dist = await loggedIn(t.app, 'DISTRIBUTOR');
      const distributor = client(t.app, dist.cookie);
      const owner = await customer();
      const [ownTan] = await createTans(distributor, { productId });
      const [foreignTan] = await createTans(admin, { productId });
      const fromOwn = (await activate(owner.api, ownTan.code)).json();
      const fromForeign = (await activate(owner.api, foreignTan.code)).json();

      const byAccount = (await distributor.get('/api/licenses', { query: { userId: String(owner.id) } })).json();
      expect(byAccount.items.map((item: { id: number }) => item.id)).toEqual([fromOwn.id]);
      const byTan = (await distributor.get('/api/licenses', { query: { tanId: String(ownTan.id) } })).json();
      expect(byTan.items.map((item: { id: number }) => item.id)).toEqual([fromOwn.id]);
      // A TAN it may not open is not found here either, like GET /tans/{id}.
      expectError(await distributor.get('/api/licenses', { query: { tanId: String(foreignTan.id) } }), 404, 'ERR_NOT_FOUND');
      expectError(await distributor.get(`/api/tans/${foreignTan.id}`), 404, 'ERR_NOT_FOUND');
      expectError(await admin.get('/api/licenses', { query: { tanId: '999999' } }), 404, 'ERR_NOT_FOUND');
      // Another account without licenses of its TANs: nothing, as for each of those licenses alone.
      expect((await distributor.get('/api/licenses', { query: { userId: String((await customer()).id) } })).json()).toEqual({ items: [], totalCount: 0, totalCountExact: true, nextCursor: null });
      expect((await distributor.get(`/api/licenses/${fromOwn.id}`)).statusCode).toBe(200);
      expectError(await distributor.get(`/api/licenses/${fromForeign.id}`), 404, 'ERR_NOT_FOUND');
      // Seeing is not changing.
      expectError(await distributor.put(`/api/licenses/${fromOwn.id}/machine`, { body: { machineId: machine() } }), 403, 'ERR_FORBIDDEN');
      expectError(await distributor.delete(`/api/licenses/${fromOwn.id}`), 403, 'ERR_FORBIDDEN');
    });

    it('moves the licenses of a TAN given to another distributor into its lists, also those activated while it was given', async () => {
      const first = await loggedIn(t.app, 'DISTRIBUTOR');
      const second = await loggedIn(t.app, 'DISTRIBUTOR');
      const owner = await customer();
      const [tan] = await createTans(admin, { productId, licenseCount: 20, distributorId: first.id });
      const listed = async (caller: Client | string, query: Record<string, string>) => {
        const response = await (typeof caller === 'string' ? client(t.app, caller) : caller).get('/api/licenses', { query: { limit: '100', ...query } });
        return response.statusCode === 200 ? (response.json().items as { id: number }[]).map((item) => item.id).sort((a, b) => a - b) : response.statusCode;
      };
      const before = (await activate(owner.api, tan.code)).json();
      expect(await listed(first.cookie, { userId: String(owner.id) })).toEqual([before.id]);

      const [given, ...activations] = await Promise.all([
        admin.put(`/api/tans/${tan.id}`, { body: { distributorId: second.id } }),
        ...Array.from({ length: 10 }, () => activate(owner.api, tan.code)),
      ]);
      expect(given.statusCode, given.body).toBe(200);
      expect(activations.map((response) => response.statusCode)).toEqual(Array(10).fill(201));
      const all = [before.id, ...activations.map((response) => response.json().id as number)].sort((a, b) => a - b);
      expect(await listed(second.cookie, { userId: String(owner.id) })).toEqual(all);
      expect(await listed(second.cookie, { tanId: String(tan.id) })).toEqual(all);
      expect(await listed(first.cookie, { userId: String(owner.id) })).toEqual([]);
      expect(await listed(first.cookie, { tanId: String(tan.id) })).toBe(404);

      // Taken from every distributor: the administrators' alone again.
      expect((await admin.put(`/api/tans/${tan.id}`, { body: { distributorId: null } })).statusCode).toBe(200);
      expect(await listed(second.cookie, { userId: String(owner.id) })).toEqual([]);
      expect(await listed(admin, { userId: String(owner.id) })).toEqual(all);
    });
  });

  describe('GET /api/licenses/{id}', () => {
    it('shows a license to its owner and administrators, to nobody else', async () => {
      const owner = await customer();
      const [tan] = await createTans(admin, { productId });
      const license = (await activate(owner.api, tan.code)).json();
      expect((await owner.api.get(`/api/licenses/${license.id}`)).json().id).toBe(license.id);
      expect((await admin.get(`/api/licenses/${license.id}`)).statusCode).toBe(200);
      expectError(await (await customer()).api.get(`/api/licenses/${license.id}`), 404, 'ERR_NOT_FOUND');
      expectError(await client(t.app).get(`/api/licenses/${license.id}`), 401, 'ERR_UNAUTHENTICATED');
      expectError(await owner.api.get('/api/licenses/0'), 400, 'ERR_VALIDATION');
    });
  });
});
