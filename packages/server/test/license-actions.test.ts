import { beforeAll, describe, expect, it } from 'vitest';
import { client, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { activate, createTans, insertPolicy, insertProduct, isoDaysFromToday, machine, uniqueName, type Client } from './licensing-test-data.ts';

describeBothDatabases('licenses: actions', (t) => {
  let admin: Client;
  let productId: number;
  const customer = async () => {
    const user = await loggedIn(t.app, 'USER');
    return { ...user, api: client(t.app, user.cookie) };
  };
  const tanLicense = async (owner: Client, machineId = machine(), body: { productId?: number; licensePolicyId?: number; freeUpdatesUntil?: string } = {}) => {
    const [tan] = await createTans(admin, { productId, ...body });
    const response = await activate(owner, tan.code, machineId);
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };
  const trial = async (owner: Client, days = 5, trialDays: number | null = 365) => {
    const product = await insertProduct(t.app, { trialDays });
    const response = await owner.post('/api/licenses/temporary', { body: { productId: product.id, machineId: machine(), validUntil: isoDaysFromToday(days) } });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };
  const activatedDaysAgo = async (id: number, days: number) => {
    await t.app.ctx.db.updateTable('licenses').set({ created_at: new Date(Date.now() - days * 86_400_000).toISOString() }).where('id', '=', id).execute();
  };
  const changeLog = (id: number) => t.app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', 'License').where('record_id', '=', id).orderBy('id').execute();

  beforeAll(async () => {
    admin = client(t.app, (await loggedIn(t.app, 'ADMIN')).cookie);
    productId = (await insertProduct(t.app)).id;
  });

  describe('POST /api/licenses/{id}/extend', () => {
    it('extends a trial by days, weeks and months from its end', async () => {
      const { api } = await customer();
      expect((await admin.put('/api/settings/license.temporaryMaxDays', { body: { value: 120 } })).statusCode).toBe(204);
      const license = await trial(api, 5);
      expect((await api.post(`/api/licenses/${license.id}/extend`, { body: { amount: 3, unit: 'days' } })).json().validUntil).toBe(isoDaysFromToday(8));
      expect((await api.post(`/api/licenses/${license.id}/extend`, { body: { amount: 2, unit: 'weeks' } })).json().validUntil).toBe(isoDaysFromToday(22));
      expect((await api.post(`/api/licenses/${license.id}/extend`, { body: { amount: 1, unit: 'months' } })).json().validUntil).toBe(isoDaysFromToday(53));
      expect((await changeLog(license.id)).map((row) => row.operation)).toEqual(['insert', 'update', 'update', 'update']);
      expect((await admin.delete('/api/settings/license.temporaryMaxDays')).statusCode).toBe(204);
    });

    it("refuses past the configured maximum: 'You cannot extend the license this far into the future'", async () => {
      const { api } = await customer();
      const license = await trial(api, 25);
      const body = expectError(await api.post(`/api/licenses/${license.id}/extend`, { body: { amount: 1, unit: 'weeks' } }), 422, 'ERR_EXTEND_TOO_FAR');
      expect(body.message).toBe('You cannot extend the license this far into the future');
      expect((await api.get(`/api/licenses/${license.id}`)).json().validUntil).toBe(isoDaysFromToday(25));
    });

    it("refuses past the product's trial days, which bound a trial within the configured maximum", async () => {
      const { api } = await customer();
      const license = await trial(api, 10, 14);
      expect((await api.post(`/api/licenses/${license.id}/extend`, { body: { amount: 4, unit: 'days' } })).json().validUntil).toBe(isoDaysFromToday(14));
      const body = expectError(await api.post(`/api/licenses/${license.id}/extend`, { body: { amount: 1, unit: 'days' } }), 422, 'ERR_EXTEND_TOO_FAR');
      expect(body.params).toMatchObject({ latest: isoDaysFromToday(14), max: 14 });
    });

    it("refuses a TAN license, another account's license and bad bodies", async () => {
      const { api } = await customer();
      const full = await tanLicense(api);
      expectError(await api.post(`/api/licenses/${full.id}/extend`, { body: { amount: 1, unit: 'days' } }), 422, 'ERR_NOT_TEMPORARY');
      const license = await trial(api);
      expectError(await (await customer()).api.post(`/api/licenses/${license.id}/extend`, { body: { amount: 1, unit: 'days' } }), 404, 'ERR_NOT_FOUND');
      for (const body of [{}, { amount: 0, unit: 'days' }, { amount: 1, unit: 'years' }, { amount: '1', unit: 'days' }]) {
        expectError(await api.post(`/api/licenses/${license.id}/extend`, { body }), 400, 'ERR_VALIDATION');
      }
    });
  });

  describe('PUT /api/licenses/{id}/machine', () => {
    it('moves the license to another machine, with a change-log row', async () => {
      const { api } = await customer();
      const license = await tanLicense(api, 'OLD-BOX');
      const response = await api.put(`/api/licenses/${license.id}/machine`, { body: { machineId: 'NEW-BOX' } });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().machineId).toBe('NEW-BOX');
      const update = (await changeLog(license.id)).at(-1)!;
      expect(JSON.parse(update.old_values!).machineId).toBe('OLD-BOX');
      expect(JSON.parse(update.new_values!).machineId).toBe('NEW-BOX');
      // The old machine is free for the product again.
      expect((await tanLicense((await customer()).api, 'OLD-BOX')).machineId).toBe('OLD-BOX');
    });

    it('refuses the machine the license is on already, saying so on the field, and writes nothing', async () => {
      const { api } = await customer();
      const license = await tanLicense(api, 'SAME-BOX');
      const before = (await changeLog(license.id)).length;
      const body = expectError(await api.put(`/api/licenses/${license.id}/machine`, { body: { machineId: ' SAME-BOX ' }, headers: { 'accept-language': 'de' } }), 400, 'ERR_VALIDATION');
      expect(body.details).toEqual([expect.objectContaining({ path: 'machineId', code: 'currentMachine', message: 'Die Lizenz ist bereits an diesen Rechner gebunden' })]);
      expect(await changeLog(license.id)).toHaveLength(before);
    });

    it('refuses a machine that holds a license for the product', async () => {
      const { api } = await customer();
      const first = await tanLicense(api, 'TAKEN-1');
      await tanLicense(api, 'TAKEN-2');
      const body = expectError(await api.put(`/api/licenses/${first.id}/machine`, { body: { machineId: 'TAKEN-2' } }), 409, 'ERR_MACHINE_ID_USED');
      expect(body.message).toBe('Machine-ID already used for a license');
    });

    it('refuses a machine past the window with the numbers of the message, and lets an earlier machine return', async () => {
      const policyId = await insertPolicy(t.app, { maxDifferentMachinesCount: 3, maxDifferentMachinesIntervalHours: 720 });
      const { api } = await customer();
      const license = await tanLicense(api, 'HOP-1', { licensePolicyId: policyId });
      for (const machineId of ['HOP-2', 'HOP-3']) expect((await api.put(`/api/licenses/${license.id}/machine`, { body: { machineId } })).statusCode).toBe(200);
      const body = expectError(await api.put(`/api/licenses/${license.id}/machine`, { body: { machineId: 'HOP-4' } }), 422, 'ERR_TOO_MANY_MACHINES');
      expect(body.message).toBe('You have already used this license on 3 different machines within the last 30 days or 720 hours');
      expect(body).toMatchObject({ params: { count: 3, days: 30, hours: 720 } });
      expect((await api.put(`/api/licenses/${license.id}/machine`, { body: { machineId: 'HOP-1' } })).json().machineId).toBe('HOP-1');
    });

    it('sets the machine of a temporary license', async () => {
      const { api } = await customer();
      const license = await trial(api);
      expect((await api.put(`/api/licenses/${license.id}/machine`, { body: { machineId: 'TRIAL-NEW' } })).json().machineId).toBe('TRIAL-NEW');
    });

    it("makes a trial moved to another machine that machine's trial: no second one there, and none moved onto a machine that had its own", async () => {
      const product = await insertProduct(t.app, { trialDays: 30 });
      const trialOn = (api: Client, machineId: string) => api.post('/api/licenses/temporary', { body: { productId: product.id, machineId, validUntil: isoDaysFromToday(5) } });
      const moveTo = (api: Client, id: number, machineId: string) => api.put(`/api/licenses/${id}/machine`, { body: { machineId } });
      const [a, b, c] = [machine(), machine(), machine()];
      const first = await customer();
      const license = (await trialOn(first.api, a)).json();
      expect((await moveTo(first.api, license.id, b)).statusCode).toBe(200);
      // Back to a machine it was on, and on again: still the one trial.
      expect((await moveTo(first.api, license.id, a)).statusCode).toBe(200);
      expect((await moveTo(first.api, license.id, b)).statusCode).toBe(200);
      expect((await first.api.delete(`/api/licenses/${license.id}`)).statusCode).toBe(204);
      for (const used of [a, b]) expectError(await trialOn((await customer()).api, used), 422, 'ERR_TRIAL_USED');

      const second = await customer();
      const other = (await trialOn(second.api, c)).json();
      expectError(await moveTo(second.api, other.id, a), 422, 'ERR_TRIAL_USED');
      expect((await second.api.get(`/api/licenses/${other.id}`)).json().machineId).toBe(c);
    });

    it("refuses another account's license, a revoked one and bad bodies", async () => {
      const { api } = await customer();
      const license = await tanLicense(api);
      expectError(await (await customer()).api.put(`/api/licenses/${license.id}/machine`, { body: { machineId: machine() } }), 404, 'ERR_NOT_FOUND');
      expectError(await api.put(`/api/licenses/${license.id}/machine`, { body: { machineId: '' } }), 400, 'ERR_VALIDATION');
      await admin.put(`/api/licenses/${license.id}`, { body: { revoked: true, validUntil: null, permanent: false } });
      expectError(await api.put(`/api/licenses/${license.id}/machine`, { body: { machineId: machine() } }), 422, 'ERR_LICENSE_REVOKED');
    });
  });

  describe('POST /api/licenses/{id}/move', () => {
    it('hands the license to another confirmed account, which then sees it', async () => {
      const from = await customer();
      const to = await customer();
      const license = await tanLicense(from.api);
      const response = await from.api.post(`/api/licenses/${license.id}/move`, { body: { email: to.email.toUpperCase() } });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().ownerId).toBe(to.id);
      expect((await to.api.get('/api/licenses')).json().items.map((item: { id: number }) => item.id)).toContain(license.id);
      expect((await from.api.get('/api/licenses')).json().items.map((item: { id: number }) => item.id)).not.toContain(license.id);
      expectError(await from.api.get(`/api/licenses/${license.id}`), 404, 'ERR_NOT_FOUND');
    });

    it('refuses an unknown or unconfirmed address, the current owner and bad addresses', async () => {
      const from = await customer();
      const license = await tanLicense(from.api);
      expectError(await from.api.post(`/api/licenses/${license.id}/move`, { body: { email: `${uniqueName('nobody')}@example.com` } }), 422, 'ERR_UNKNOWN_ACCOUNT');
      const pending = await customer();
      await t.app.ctx.db.updateTable('users').set({ confirmed: false }).where('id', '=', pending.id).execute();
      expectError(await from.api.post(`/api/licenses/${license.id}/move`, { body: { email: pending.email } }), 422, 'ERR_UNKNOWN_ACCOUNT');
      // A closed account keeps a placeholder address: nothing can be handed to it.
      const closed = await customer();
      expect((await admin.delete(`/api/users/${closed.id}`)).statusCode).toBe(204);
      const { email: placeholder } = await t.app.ctx.db.selectFrom('users').select('email').where('id', '=', closed.id).executeTakeFirstOrThrow();
      expectError(await from.api.post(`/api/licenses/${license.id}/move`, { body: { email: placeholder } }), 422, 'ERR_UNKNOWN_ACCOUNT');
      expect((await from.api.get(`/api/licenses/${license.id}`)).json().ownerId).toBe(from.id);
      expectError(await from.api.post(`/api/licenses/${license.id}/move`, { body: { email: from.email } }), 400, 'ERR_VALIDATION');
      expectError(await from.api.post(`/api/licenses/${license.id}/move`, { body: { email: 'not-an-address' } }), 400, 'ERR_VALIDATION');
    });

    it("refuses to move another account's license", async () => {
      const owner = await customer();
      const thief = await customer();
      const license = await tanLicense(owner.api);
      expectError(await thief.api.post(`/api/licenses/${license.id}/move`, { body: { email: thief.email } }), 404, 'ERR_NOT_FOUND');
      expect((await owner.api.get(`/api/licenses/${license.id}`)).json().ownerId).toBe(owner.id);
    });
  });

  describe('DELETE /api/licenses/{id}', () => {
    it('lets a customer delete a temporary license, not a TAN license', async () => {
      const { api } = await customer();
      const temporary = await trial(api);
      expect((await api.delete(`/api/licenses/${temporary.id}`)).statusCode).toBe(204);
      expectError(await api.get(`/api/licenses/${temporary.id}`), 404, 'ERR_NOT_FOUND');
      expect((await changeLog(temporary.id)).map((row) => row.operation)).toEqual(['insert', 'delete']);
      const full = await tanLicense(api);
      expectError(await api.delete(`/api/licenses/${full.id}`), 403, 'ERR_FORBIDDEN');
    });

    it("lets administrators delete any license; another customer gets 404", async () => {
      const { api } = await customer();
      const full = await tanLicense(api);
      const temporary = await trial(api);
      expectError(await (await customer()).api.delete(`/api/licenses/${temporary.id}`), 404, 'ERR_NOT_FOUND');
      expect((await admin.delete(`/api/licenses/${full.id}`)).statusCode).toBe(204);
      expectError(await admin.delete(`/api/licenses/${full.id}`), 404, 'ERR_NOT_FOUND');
    });
  });

  describe('PUT /api/licenses/{id}', () => {
    it('lets administrators revoke, set validity and make permanent', async () => {
      const { api } = await customer();
      const license = await tanLicense(api);
      const response = await admin.put(`/api/licenses/${license.id}`, { body: { revoked: true, validUntil: '2030-01-31', permanent: true } });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ revoked: true, validUntil: '2030-01-31', permanent: true });
      expectError(await admin.put(`/api/licenses/${license.id}`, { body: { revoked: 'yes', validUntil: null, permanent: false } }), 400, 'ERR_VALIDATION');
    });

    it('refuses the owner and others', async () => {
      const { api } = await customer();
      const license = await tanLicense(api);
      expectError(await api.put(`/api/licenses/${license.id}`, { body: { revoked: false, validUntil: '2099-01-01', permanent: true } }), 403, 'ERR_FORBIDDEN');
      expectError(await (await customer()).api.put(`/api/licenses/${license.id}`, { body: { revoked: true, validUntil: null, permanent: false } }), 404, 'ERR_NOT_FOUND');
      expect((await api.get(`/api/licenses/${license.id}`)).json()).toMatchObject({ permanent: false, revoked: false });
    });

    it("refuses a distributor the licenses of its TANs, even with nothing to change, and writes nothing for fields sent as they are", async () => {
      const distributor = client(t.app, (await loggedIn(t.app, 'DISTRIBUTOR')).cookie);
      const [tan] = await createTans(distributor, { productId });
      const { api } = await customer();
      const license = (await activate(api, tan.code, machine())).json();
      expect((await distributor.get(`/api/licenses/${license.id}`)).statusCode).toBe(200);
      const before = await changeLog(license.id);

      expectError(await distributor.put(`/api/licenses/${license.id}`, { body: {} }), 403, 'ERR_FORBIDDEN');
      expectError(await distributor.put(`/api/licenses/${license.id}`, { body: { revoked: true } }), 403, 'ERR_FORBIDDEN');
      const same = await admin.put(`/api/licenses/${license.id}`, { body: { revoked: false, validUntil: license.validUntil, permanent: license.permanent } });
      expect(same.statusCode, same.body).toBe(200);
      expect((await admin.put(`/api/licenses/${license.id}`, { body: {} })).statusCode).toBe(200);

      expect(await changeLog(license.id)).toEqual(before);
      expect((await admin.get(`/api/licenses/${license.id}`)).json().updatedAt).toBe(license.updatedAt);
    });

    it("refuses an owner's end date: a trial runs longer only through extend, within its trial days, and a revoked one not at all", async () => {
      const { api } = await customer();
      const license = await trial(api, 5, 14);
      for (const validUntil of [null, '2099-12-31', isoDaysFromToday(10)]) {
        expectError(await api.put(`/api/licenses/${license.id}`, { body: { validUntil } }), 403, 'ERR_FORBIDDEN');
      }
      await admin.put(`/api/licenses/${license.id}`, { body: { revoked: true } });
      expectError(await api.put(`/api/licenses/${license.id}`, { body: { validUntil: null } }), 403, 'ERR_FORBIDDEN');
      expect((await api.get(`/api/licenses/${license.id}`)).json()).toMatchObject({ validUntil: license.validUntil, revoked: true });
      expect((await changeLog(license.id)).filter((row) => row.operation === 'update')).toHaveLength(1);
    });
  });

  describe('POST /api/licenses/{id}/upgrade', () => {
    it('offers and takes the free upgrade to the next major version; the old license is marked upgraded', async () => {
      const name = uniqueName('Studio');
      const v1 = (await insertProduct(t.app, { name, version: '1.2', releaseDate: '2025-01-01' })).id;
      const v2 = (await insertProduct(t.app, { name, version: '2.0', releaseDate: isoDaysFromToday(-5) })).id;
      const v3 = (await insertProduct(t.app, { name, version: '3.0', releaseDate: isoDaysFromToday(-2) })).id;
      await insertProduct(t.app, { name, version: '4.0', releaseDate: isoDaysFromToday(5) });
      const { api } = await customer();
      const license = await tanLicense(api, 'UPGRADE-BOX', { productId: v1, freeUpdatesUntil: isoDaysFromToday(20) });
      // The TAN names its free-updates date and was issued today, after 2.0 came out: 2.0 is what
      // the customer did not buy, not a free update.
      expect(license).toMatchObject({ freeUpgrade: null, freeUpdatesState: 'expiring' });
      expectError(await api.post(`/api/licenses/${license.id}/upgrade`), 422, 'ERR_NO_FREE_UPGRADE');
      // Issued ten days ago, before 2.0, and activated only today: 2.0 is within what was sold.
      await t.app.ctx.db.updateTable('tans').set({ created_at: new Date(Date.now() - 10 * 86_400_000).toISOString() }).where('id', '=', license.tanId).execute();
      expect((await api.get(`/api/licenses/${license.id}`)).json()).toMatchObject({ freeUpgrade: { productId: v2, productName: `${name} 2.0` } });

      const response = await api.post(`/api/licenses/${license.id}/upgrade`);
      expect(response.statusCode, response.body).toBe(201);
      const upgraded = response.json();
      expect(upgraded).toMatchObject({ productId: v2, machineId: 'UPGRADE-BOX', kind: 'TAN', tanId: license.tanId, freeUpdatesUntil: isoDaysFromToday(20), upgradedToId: null });
      // The new license continues the free-updates period that began ten days ago: 3.0 came out within it.
      expect(upgraded.freeUpgrade).toMatchObject({ productId: v3 });
      const old = (await api.get(`/api/licenses/${license.id}`)).json();
      expect(old).toMatchObject({ upgradedToId: upgraded.id, freeUpgrade: null });
      expectError(await api.post(`/api/licenses/${license.id}/upgrade`), 409, 'ERR_LICENSE_UPGRADED');
      expectError(await api.put(`/api/licenses/${license.id}/machine`, { body: { machineId: machine() } }), 409, 'ERR_LICENSE_UPGRADED');
      expect((await api.get('/api/licenses', { query: { offline: 'true' } })).json().items.map((item: { id: number }) => item.id)).toEqual([upgraded.id]);
    });

    it("counts a policy's free-updates period from the activation", async () => {
      const name = uniqueName('Policy period');
      const v1 = (await insertProduct(t.app, { name, version: '1.0', releaseDate: '2025-01-01' })).id;
      const v2 = (await insertProduct(t.app, { name, version: '2.0', releaseDate: isoDaysFromToday(-5) })).id;
      const { api } = await customer();
      const license = await tanLicense(api, machine(), { productId: v1, licensePolicyId: await insertPolicy(t.app, { freeUpdatesPeriodDays: 100 }) });
      expect(license).toMatchObject({ freeUpdatesUntil: isoDaysFromToday(100), freeUpgrade: null });
      await activatedDaysAgo(license.id, 10);
      expect((await api.get(`/api/licenses/${license.id}`)).json()).toMatchObject({ freeUpgrade: { productId: v2 } });
    });

    it('upgrades while the TAN is given from one distributor to another, without either waiting for the other for good', async () => {
      const name = uniqueName('Handover');
      const v1 = (await insertProduct(t.app, { name, version: '1.0', releaseDate: '2025-01-01' })).id;
      await insertProduct(t.app, { name, version: '2.0', releaseDate: isoDaysFromToday(-5) });
      const distributors = [await loggedIn(t.app, 'DISTRIBUTOR'), await loggedIn(t.app, 'DISTRIBUTOR')];
      const [tan] = await createTans(admin, { productId: v1, licenseCount: 10, freeUpdatesUntil: isoDaysFromToday(20), distributorId: distributors[0].id });
      await t.app.ctx.db.updateTable('tans').set({ created_at: new Date(Date.now() - 10 * 86_400_000).toISOString() }).where('id', '=', tan.id).execute();
      const { id: ownerId, api } = await customer();
      const licenses: number[] = [];
      for (let index = 0; index < 10; index++) licenses.push((await activate(api, tan.code)).json().id);

      // Each upgrade locks its license and then reads the TAN; each change of the TAN's distributor
      // locks the TAN and then changes its licenses. Taken in opposite orders, PostgreSQL ends one
      // of two such transactions as a deadlock.
      const responses = await Promise.all(
        licenses.flatMap((id, index) => [
          api.post(`/api/licenses/${id}/upgrade`),
          admin.put(`/api/tans/${tan.id}`, { body: { distributorId: distributors[(index + 1) % 2].id } }),
        ]),
      );
      expect(responses.map((response) => response.statusCode)).toEqual(licenses.flatMap(() => [201, 200]));
      const final = (await admin.get(`/api/tans/${tan.id}`)).json().distributorId as number;
      const seen = (await client(t.app, distributors.find((d) => d.id === final)!.cookie).get('/api/licenses', { query: { userId: String(ownerId), limit: '100' } })).json();
      expect(seen.totalCount).toBe(20);
    });

    it('refuses without a covered newer version, and for another account', async () => {
      const { api } = await customer();
      const license = await tanLicense(api);
      expectError(await api.post(`/api/licenses/${license.id}/upgrade`), 422, 'ERR_NO_FREE_UPGRADE');
      expectError(await (await customer()).api.post(`/api/licenses/${license.id}/upgrade`), 404, 'ERR_NOT_FOUND');
    });
  });

  describe('rate limit of failed activations', () => {
    it('pauses an account after ten failed activations, and an address after thirty', async () => {
      const limited = await t.newApp({ config: { rateLimits: true } });
      const accounts = await Promise.all(Array.from({ length: 4 }, () => loggedIn(limited, 'USER')));
      const [first] = accounts.map((account) => client(limited, account.cookie));
      for (let i = 0; i < 10; i++) expectError(await activate(first, 'abcd-efgh-jkmn'), 422, 'ERR_INVALID_LICENSE');
      expectError(await activate(first, 'abcd-efgh-jkmn'), 429, 'ERR_RATE_LIMITED');
      // The address has 10 failures; two more accounts bring it to 30.
      for (const account of accounts.slice(1, 3)) {
        const caller = client(limited, account.cookie);
        for (let i = 0; i < 10; i++) expectError(await activate(caller, 'abcd-efgh-jkmn'), 422, 'ERR_INVALID_LICENSE');
      }
      expectError(await activate(client(limited, accounts[3].cookie), 'abcd-efgh-jkmn'), 429, 'ERR_RATE_LIMITED');
      // Another address is not affected.
      const elsewhere = await limited.inject({
        method: 'POST',
        url: '/api/licenses/activate',
        remoteAddress: '203.0.113.9',
        headers: { cookie: accounts[3].cookie },
        payload: { tan: 'abcd-efgh-jkmn', machineId: 'm' },
      });
      expectError(elsewhere, 422, 'ERR_INVALID_LICENSE');
    });
  });
});
