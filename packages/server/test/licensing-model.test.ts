/**
 * Licensing as software is sold (issue 37, DESIGN.md section 6): floating TANs whose count is seats
 * in use, borrowing, trials bounded from their start, suspension and subscription validity of TANs,
 * revoking a TAN with its licenses, and the staff's search over every license. Through the HTTP API
 * and the desktop protocol, on SQLite and PostgreSQL.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parseLicenseFile, verifyLicenseFile, type LicensePayload, type PublicKeyInfo } from '@lm/contract/license-file';
import { describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { daysFromToday, invariantsSetup, machine, outcomes, today } from './invariants-support.ts';

describeBothDatabases('licensing model', (t) => {
  const s = invariantsSetup(t);
  let keys: PublicKeyInfo[];
  beforeAll(async () => {
    keys = (await s.as(null).get('/api/client/v1/keys')).json().keys;
  });

  const fetchFile = (machineId: string, product: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    s.as(null).post('/api/client/v1/license', { body: { machineId, product, ...extra }, headers });
  const release = (machineId: string, product: string) => s.as(null).delete('/api/client/v1/license', { body: { machineId, product } });
  const payloadOf = (body: string): Promise<LicensePayload> => verifyLicenseFile(parseLicenseFile(body), keys);

  async function floatingSetup(seats: number, policy: { maxBorrowDays?: number } = {}) {
    const policyId = await s.policy({ type: 'FLOATING', maxDifferentMachinesCount: 100, ...policy });
    const product = await s.product({ policyId });
    const [tan] = await s.tans({ productId: product.id, licensePolicyId: policyId, licenseCount: seats });
    const owner = await s.customer();
    return { policyId, product, tan, owner };
  }

  async function activate(owner: { api: ReturnType<typeof s.as> }, code: string, machineId = machine()) {
    const response = await owner.api.post('/api/licenses/activate', { body: { tan: code, machineId } });
    expect(response.statusCode, response.body).toBe(201);
    return { id: response.json().id as number, machineId };
  }

  describe('floating TANs', () => {
    it('register any number of machines; licenseCount bounds the seats in use, and a released seat is taken by the next', async () => {
      const { product, tan, owner } = await floatingSetup(2);
      const machines = [];
      for (let i = 0; i < 5; i++) machines.push(await activate(owner, tan.code));
      expect((await s.admin.get(`/api/tans/${tan.id}`)).json()).toMatchObject({ licenseCount: 2, activatedCount: 5, policyType: 'FLOATING' });

      expect(outcomes([await fetchFile(machines[0].machineId, product.name), await fetchFile(machines[1].machineId, product.name)])).toEqual({ '200': 2 });
      expectError(await fetchFile(machines[2].machineId, product.name), 409, 'ERR_NO_SEAT');
      // A machine that holds its seat keeps it at each refresh.
      expect((await fetchFile(machines[0].machineId, product.name)).statusCode).toBe(200);

      expect((await release(machines[0].machineId, product.name)).statusCode).toBe(204);
      expect((await fetchFile(machines[2].machineId, product.name)).statusCode).toBe(200);
      expectError(await fetchFile(machines[0].machineId, product.name), 409, 'ERR_NO_SEAT');

      // The license card says who holds a seat now.
      const list = (await owner.api.get('/api/licenses', { query: { tanId: String(tan.id) } })).statusCode;
      expect(list).toBe(403);
      const licenses = (await s.admin.get('/api/licenses', { query: { tanId: String(tan.id), limit: '10' } })).json().items as { machineId: string; seat: unknown }[];
      const holders = licenses.filter((license) => license.seat !== null).map((license) => license.machineId);
      expect(holders.sort()).toEqual([machines[1].machineId, machines[2].machineId].sort());
    });

    it('are the only TANs whose activations the database lets pass the license count', async () => {
      const { tan } = await floatingSetup(1);
      await s.db().updateTable('tans').set({ activated_count: 7 }).where('id', '=', tan.id).execute();
      const product = await s.product();
      const [single] = await s.tans({ productId: product.id, licenseCount: 1 });
      await expect(s.db().updateTable('tans').set({ activated_count: 2 }).where('id', '=', single.id).execute()).rejects.toThrow(/tans_activations_within_count/);
    });

    it('may get fewer seats than machines joined, but a per-machine TAN may not go below its activations', async () => {
      const { tan, owner } = await floatingSetup(3);
      for (let i = 0; i < 3; i++) await activate(owner, tan.code);
      expect((await s.admin.put(`/api/tans/${tan.id}`, { body: { licenseCount: 1 } })).statusCode).toBe(200);

      const product = await s.product();
      const [single] = await s.tans({ productId: product.id, licenseCount: 2 });
      await activate(owner, single.code);
      await activate(owner, single.code);
      expectError(await owner.api.post('/api/licenses/activate', { body: { tan: single.code, machineId: machine() } }), 422, 'ERR_INVALID_LICENSE');
      expectError(await s.admin.put(`/api/tans/${single.id}`, { body: { licenseCount: 1 } }), 400, 'ERR_VALIDATION');
    });

    it('lend a seat for offline use up to the policy’s maxBorrowDays; it stays taken until returned', async () => {
      const { product, tan, owner } = await floatingSetup(1, { maxBorrowDays: 14 });
      const laptop = await activate(owner, tan.code);
      const desk = await activate(owner, tan.code);

      expectError(await fetchFile(laptop.machineId, product.name, { borrowDays: 15 }), 422, 'ERR_BORROW_NOT_ALLOWED');
      const borrowed = await fetchFile(laptop.machineId, product.name, { borrowDays: 10 });
      expect(borrowed.statusCode, borrowed.body).toBe(200);
      const payload = await payloadOf(borrowed.body);
      expect(payload.borrowedUntil).toBe(payload.expiresAt);
      const days = (Date.parse(payload.expiresAt!) - Date.parse(payload.issuedAt)) / 86_400_000;
      expect(days).toBeCloseTo(10, 5);

      // A refresh without borrowing while borrowed does not give the seat back early.
      expect((await fetchFile(laptop.machineId, product.name)).statusCode).toBe(200);
      expectError(await fetchFile(desk.machineId, product.name), 409, 'ERR_NO_SEAT');
      const card = (await owner.api.get(`/api/licenses/${laptop.id}`)).json();
      expect(card.seat.borrowedUntil).toBe(payload.borrowedUntil);

      // Returned early: the desk gets the seat.
      expect((await release(laptop.machineId, product.name)).statusCode).toBe(204);
      expect((await fetchFile(desk.machineId, product.name)).statusCode).toBe(200);
      expect((await owner.api.get(`/api/licenses/${laptop.id}`)).json().seat).toBeNull();
    });

    it('answer a borrow with a new borrowed file, never a 304, whatever If-None-Match names: a borrow is renewed from now', async () => {
      const { product, tan, owner } = await floatingSetup(1, { maxBorrowDays: 14 });
      const laptop = await activate(owner, tan.code);
      const short = await fetchFile(laptop.machineId, product.name);
      expect(short.statusCode, short.body).toBe(200);
      expect((await fetchFile(laptop.machineId, product.name, {}, { 'if-none-match': short.headers.etag as string })).statusCode).toBe(304);
      // The held short file's ETag with borrowDays: the borrowed file, not a 304 that would keep the short one.
      const borrowed = await fetchFile(laptop.machineId, product.name, { borrowDays: 10 }, { 'if-none-match': short.headers.etag as string });
      expect(borrowed.statusCode, borrowed.body).toBe(200);
      const first = await payloadOf(borrowed.body);
      expect(first.borrowedUntil).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 5));
      // The refresh of the borrowed file (its own ETag, borrowDays again): renewed, counted from now.
      const renewed = await fetchFile(laptop.machineId, product.name, { borrowDays: 10 }, { 'if-none-match': borrowed.headers.etag as string });
      expect(renewed.statusCode, renewed.body).toBe(200);
      const payload = await payloadOf(renewed.body);
      expect(Date.parse(payload.issuedAt)).toBeGreaterThan(Date.parse(first.issuedAt));
      expect(Date.parse(payload.borrowedUntil!)).toBeGreaterThan(Date.parse(first.borrowedUntil!));
      expect((Date.parse(payload.borrowedUntil!) - Date.parse(payload.issuedAt)) / 86_400_000).toBeCloseTo(10, 5);
      expect((await owner.api.get(`/api/licenses/${laptop.id}`)).json().seat.borrowedUntil).toBe(payload.borrowedUntil);
    });

    it('refuse borrowing where the policy allows none, and a policy other than floating cannot allow it', async () => {
      const { product, tan, owner } = await floatingSetup(1);
      const one = await activate(owner, tan.code);
      expectError(await fetchFile(one.machineId, product.name, { borrowDays: 1 }), 422, 'ERR_BORROW_NOT_ALLOWED');
      const refused = await s.admin.post('/api/license-policies', {
        body: { name: 'Perpetual with borrowing', type: 'PERPETUAL', licenseMaxValidDays: 30, refetchIntervalSeconds: 3600, refetchBeforeExpirySeconds: 900, maxDifferentMachinesCount: 2, maxDifferentMachinesIntervalHours: 720, maxBorrowDays: 7 },
      });
      expectError(refused, 400, 'ERR_VALIDATION');
      expect(refused.json().details).toMatchObject([{ path: 'maxBorrowDays' }]);
    });
  });

  describe('trials', () => {
    async function trial(trialDays: number, startedDaysAgo: number, validUntil: string) {
      const product = await s.product({ trialDays });
      const owner = await s.customer();
      const created = await owner.api.post('/api/licenses/temporary', { body: { productId: product.id, machineId: machine(), validUntil: today() } });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().id as number;
      // The trial began `startedDaysAgo` days ago and now runs until `validUntil`.
      const startedAt = new Date(Date.now() - startedDaysAgo * 86_400_000).toISOString();
      await s.db().updateTable('licenses').set({ created_at: startedAt, valid_until: validUntil }).where('id', '=', id).execute();
      return { id, owner };
    }

    it('extend up to their start plus the trial limit, never counted from today, and say how far in the card', async () => {
      const { id, owner } = await trial(14, 13, daysFromToday(1));
      const card = (await owner.api.get(`/api/licenses/${id}`)).json();
      expect(card.latestTrialEnd).toBe(daysFromToday(1));
      const refused = await owner.api.post(`/api/licenses/${id}/extend`, { body: { amount: 13, unit: 'days' } });
      expectError(refused, 422, 'ERR_EXTEND_TOO_FAR');
      expect(refused.json().params).toMatchObject({ latest: daysFromToday(1) });

      const running = await trial(30, 10, daysFromToday(5));
      const extended = await running.owner.api.post(`/api/licenses/${running.id}/extend`, { body: { amount: 15, unit: 'days' } });
      expect(extended.statusCode, extended.body).toBe(200);
      expect(extended.json().validUntil).toBe(daysFromToday(20));
      expectError(await running.owner.api.post(`/api/licenses/${running.id}/extend`, { body: { amount: 1, unit: 'days' } }), 422, 'ERR_EXTEND_TOO_FAR');
    });

    it('are not extended once ended, while administrators may still set any date', async () => {
      const { id, owner } = await trial(30, 10, daysFromToday(-1));
      expectError(await owner.api.post(`/api/licenses/${id}/extend`, { body: { amount: 1, unit: 'days' } }), 422, 'ERR_TRIAL_ENDED');
      const admin = await s.admin.put(`/api/licenses/${id}`, { body: { validUntil: daysFromToday(60) } });
      expect(admin.statusCode, admin.body).toBe(200);
    });
  });

  describe('suspension and subscriptions', () => {
    async function subscription() {
      const product = await s.product();
      const [tan] = await s.tans({ productId: product.id, licenseCount: 2 });
      const owner = await s.customer();
      const license = await activate(owner, tan.code);
      return { product, tan, owner, license };
    }

    it('a suspended TAN’s licenses get no file until reinstated; the card and the download say why', async () => {
      const { product, tan, owner, license } = await subscription();
      const first = await fetchFile(license.machineId, product.name);
      expect(first.statusCode).toBe(200);

      const suspended = await s.admin.put(`/api/tans/${tan.id}`, { body: { suspended: true } });
      expect(suspended.json()).toMatchObject({ suspended: true });
      expectError(await fetchFile(license.machineId, product.name, {}, { 'if-none-match': first.headers.etag as string }), 403, 'ERR_LICENSE_SUSPENDED');
      expect((await owner.api.get(`/api/licenses/${license.id}`)).json()).toMatchObject({ suspended: true });
      expectError(await owner.api.get(`/api/licenses/${license.id}/file`, { query: { format: 'json' } }), 422, 'ERR_LICENSE_SUSPENDED');
      // A new machine cannot join a suspended TAN.
      expectError(await owner.api.post('/api/licenses/activate', { body: { tan: tan.code, machineId: machine() } }), 422, 'ERR_LICENSE_SUSPENDED');

      await s.admin.put(`/api/tans/${tan.id}`, { body: { suspended: false } });
      expect((await fetchFile(license.machineId, product.name)).statusCode).toBe(200);
      const changes = (await s.admin.get(`/api/changes/License`, { query: { recordId: String(license.id) } })).json().items as { newValues: Record<string, unknown> | null }[];
      expect(changes.filter((change) => change.newValues && 'suspended' in change.newValues).map((change) => change.newValues!.suspended)).toEqual(
        expect.arrayContaining([true, false]),
      );
    });

    it('a TAN’s validUntil bounds its licenses; a renewal extends them without the customer doing anything', async () => {
      const { product, tan, license } = await subscription();
      await s.admin.put(`/api/tans/${tan.id}`, { body: { validUntil: daysFromToday(-1) } });
      expectError(await fetchFile(license.machineId, product.name), 403, 'ERR_LICENSE_EXPIRED');

      const renewed = await s.admin.put(`/api/tans/${tan.id}`, { body: { validUntil: daysFromToday(30) } });
      expect(renewed.json().validUntil).toBe(daysFromToday(30));
      const file = await fetchFile(license.machineId, product.name);
      expect(file.statusCode).toBe(200);
      const payload = await payloadOf(file.body);
      expect(payload.licenseValidUntil).toBe(daysFromToday(30));
      // Another renewal changes the file: the machine's conditional refresh gets the new one.
      await s.admin.put(`/api/tans/${tan.id}`, { body: { validUntil: daysFromToday(60) } });
      const refreshed = await fetchFile(license.machineId, product.name, {}, { 'if-none-match': file.headers.etag as string });
      expect(refreshed.statusCode).toBe(200);
      expect((await payloadOf(refreshed.body)).licenseValidUntil).toBe(daysFromToday(60));
    });

    it('distributors suspend their own TANs only; customers not at all', async () => {
      const distributor = await loggedIn(t.app, 'DISTRIBUTOR');
      const other = await loggedIn(t.app, 'DISTRIBUTOR');
      const product = await s.product();
      const [tan] = await s.tans({ productId: product.id, licenseCount: 1 });
      await s.admin.put(`/api/tans/${tan.id}`, { body: { distributorId: distributor.id } });
      expect((await s.as(distributor.cookie).put(`/api/tans/${tan.id}`, { body: { suspended: true, validUntil: daysFromToday(10) } })).json()).toMatchObject({
        suspended: true,
        validUntil: daysFromToday(10),
      });
      expectError(await s.as(other.cookie).put(`/api/tans/${tan.id}`, { body: { suspended: false } }), 404, 'ERR_NOT_FOUND');
      const customer = await s.customer();
      expectError(await customer.api.put(`/api/tans/${tan.id}`, { body: { suspended: false } }), 404, 'ERR_NOT_FOUND');
    });
  });

  describe('revoking a TAN', () => {
    it('with revokeLicenses revokes its licenses in the same call; without, they keep working', async () => {
      const product = await s.product();
      const [tan] = await s.tans({ productId: product.id, licenseCount: 3 });
      const owner = await s.customer();
      const licenses = [await activate(owner, tan.code), await activate(owner, tan.code)];

      expectError(await s.admin.put(`/api/tans/${tan.id}`, { body: { revokeLicenses: true } }), 400, 'ERR_VALIDATION');
      expect((await s.admin.put(`/api/tans/${tan.id}`, { body: { revoked: true, revokeLicenses: true } })).statusCode).toBe(200);
      for (const license of licenses) {
        expect((await owner.api.get(`/api/licenses/${license.id}`)).json().revoked).toBe(true);
        expectError(await fetchFile(license.machineId, product.name), 403, 'ERR_LICENSE_REVOKED');
      }

      const [kept] = await s.tans({ productId: product.id, licenseCount: 1 });
      const survivor = await activate(owner, kept.code);
      await s.admin.put(`/api/tans/${kept.id}`, { body: { revoked: true } });
      expect((await fetchFile(survivor.machineId, product.name)).statusCode).toBe(200);
    });
  });

  describe('the staff’s search over every license (scope=all)', () => {
    it('finds a license by machine id, TAN, owner name or e-mail across accounts, within what the caller may see', async () => {
      const distributor = await loggedIn(t.app, 'DISTRIBUTOR');
      const product = await s.product();
      const [own, foreign] = await s.tans({ productId: product.id, licenseCount: 1 }, 2);
      await s.admin.put(`/api/tans/${own.id}`, { body: { distributorId: distributor.id } });
      const alice = await s.customer();
      const bob = await s.customer();
      const a = await activate(alice, own.code);
      // A machine id in capitals, as the clients' fingerprints are (FD6B-8250-6F0D-D3B8).
      const b = await activate(bob, foreign.code, machine().toUpperCase());
      const search = (cookie: string | null, filter: string) => s.as(cookie).get('/api/licenses', { query: { scope: 'all', filter } });
      const ids = async (response: Awaited<ReturnType<typeof search>>) => {
        expect(response.statusCode, response.body).toBe(200);
        return (response.json().items as { id: number }[]).map((license) => license.id);
      };

      expect(await ids(await search(s.cookies.admin, b.machineId))).toEqual([b.id]);
      // Read out over the phone, a machine id has no letter case.
      expect(await ids(await search(s.cookies.admin, ` ${b.machineId.toLowerCase()} `))).toEqual([b.id]);
      // One stored in mixed case ("M-" and small letters) is found as it is stored: its index holds it so.
      expect(await ids(await search(s.cookies.admin, a.machineId.toUpperCase()))).toEqual([]);
      expect(await ids(await search(s.cookies.admin, `${foreign.code.slice(0, 4)}-${foreign.code.slice(4, 6)}`.toUpperCase()))).toContain(b.id);
      expect(await ids(await search(s.cookies.admin, alice.email))).toEqual([a.id]);
      expect(await ids(await s.admin.get('/api/licenses', { query: { scope: 'all', sort: '-validUntil', limit: '5' } }))).toHaveLength(5);

      // A distributor finds the licenses of its own TANs only, whoever owns them.
      expect(await ids(await search(distributor.cookie, alice.email))).toEqual([a.id]);
      expect(await ids(await search(distributor.cookie, b.machineId))).toEqual([]);
      expect(await ids(await s.as(distributor.cookie).get('/api/licenses', { query: { scope: 'all' } }))).toEqual([a.id]);
      // A customer may not search other accounts.
      expectError(await search(alice.cookie, b.machineId), 403, 'ERR_FORBIDDEN');
    });
  });
});
