/**
 * Licensing invariants, continued (see licensing-invariants.test.ts): floating seats across change
 * machine, move, revoke and delete; every file names its own license, product, machine and owner;
 * statistics never go down when rows are deleted. Parallel requests through the HTTP API, on SQLite
 * and on PostgreSQL (two app instances there).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parseLicenseFile, verifyLicenseFile, type LicensePayload, type PublicKeyInfo } from '@lm/contract/license-file';
import { STATISTICS_CATEGORIES } from '@lm/contract';
import { describeBothDatabases } from './harness.ts';
import { daysFromToday, invariantsSetup, machine, outcomes, RACERS, type Client } from './invariants-support.ts';
import { flushLastSeen, flushSeatRenewals } from './licensing-fixtures.ts';

describeBothDatabases('seat, file and statistics invariants', (t) => {
  const s = invariantsSetup(t);
  let keys: PublicKeyInfo[];
  beforeAll(async () => {
    keys = (await s.as(null).get('/api/client/v1/keys')).json().keys;
  });

  const fetchFile = (i: number, machineId: string, product: string) => s.as(null, i).post('/api/client/v1/license', { body: { machineId, product } });
  const payloadOf = (body: string): Promise<LicensePayload> => verifyLicenseFile(parseLicenseFile(body), keys);

  /** An account's name as license files carry it. */
  async function nameOf(userId: number): Promise<string> {
    const row = await s.db().selectFrom('users').select(['first_name', 'last_name']).where('id', '=', userId).executeTakeFirstOrThrow();
    return `${row.first_name} ${row.last_name}`;
  }

  /** The leases of a pool that lie ahead, with the machine their license is bound to now. */
  async function leases(pool: string) {
    const rows = await s
      .db()
      .selectFrom('floating_seats as s')
      .innerJoin('licenses as l', 'l.id', 's.license_id')
      .select(['s.machine_id', 's.license_id', 'l.machine_id as license_machine', 'l.revoked'])
      .where('s.pool', '=', pool)
      .where('s.leased_until', '>', new Date().toISOString())
      .execute();
    // Every seat held belongs to a live license on that very machine.
    for (const row of rows) expect({ machine: row.license_machine, revoked: Boolean(row.revoked) }).toEqual({ machine: row.machine_id, revoked: false });
    return rows.map((row) => row.machine_id).sort();
  }

  /** A floating TAN for `seats` machines, activated on as many machines by as many customers, each holding its seat. */
  async function floatingTan(seats: number) {
    const policyId = await s.policy({ type: 'FLOATING' });
    const product = await s.product({ policyId });
    const [tan] = await s.tans({ productId: product.id, licensePolicyId: policyId, licenseCount: seats });
    const holders: { owner: Awaited<ReturnType<typeof s.customer>>; licenseId: number; machineId: string; etag: string }[] = [];
    for (let i = 0; i < seats; i++) {
      const owner = await s.customer();
      const machineId = machine();
      const license = await owner.api.post('/api/licenses/activate', { body: { tan: tan.code, machineId } });
      expect(license.statusCode, license.body).toBe(201);
      const file = await fetchFile(0, machineId, product.name);
      expect(file.statusCode).toBe(200);
      holders.push({ owner, licenseId: license.json().id, machineId, etag: file.headers.etag as string });
    }
    return { product, pool: `tan:${tan.id}`, holders };
  }

  describe('floating seats', () => {
    it('follow both licenses of a full pool to new machines while those machines ask at once', async () => {
      const { product, pool, holders } = await floatingTan(2);
      const [x, y] = holders;
      const [c, d] = [machine(), machine()];
      const responses = await s.race(RACERS, (i) => {
        if (i === 0) return s.as(x.owner.cookie, i).put(`/api/licenses/${x.licenseId}/machine`, { body: { machineId: c } });
        if (i === 1) return s.as(y.owner.cookie, i).put(`/api/licenses/${y.licenseId}/machine`, { body: { machineId: d } });
        return fetchFile(i, i % 2 ? c : d, product.name);
      });
      expect(outcomes(responses.slice(0, 2))).toEqual({ '200': 2 });
      // A new machine never finds its seat held by the machine its license left.
      for (const response of responses.slice(2)) expect([200, 404]).toContain(response.statusCode);
      expect(await leases(pool)).toEqual([...new Set(responses.slice(2).flatMap((response, i) => (response.statusCode === 200 ? [(i + 2) % 2 ? c : d] : [])))].sort());

      expect(outcomes([await fetchFile(0, c, product.name), await fetchFile(1, d, product.name)])).toEqual({ '200': 2 });
      expect(await leases(pool)).toEqual([c, d].sort());
      expect(outcomes([await fetchFile(0, x.machineId, product.name), await s.as(null).delete('/api/client/v1/license', { body: { machineId: y.machineId, product: product.name } })])).toEqual({
        '404 ERR_NO_LICENSE': 2,
      });
    });

    it('end with a revoked license while its machine keeps asking', async () => {
      const { product, pool, holders } = await floatingTan(2);
      const [x, y] = holders;
      const responses = await s.race(RACERS, (i) => (i === 3 ? s.admin.put(`/api/licenses/${x.licenseId}`, { body: { revoked: true } }) : fetchFile(i, x.machineId, product.name)));
      expect(responses[3].statusCode).toBe(200);
      for (const response of responses.filter((_, i) => i !== 3)) expect(outcomes([response])).toMatchObject(response.statusCode === 200 ? { '200': 1 } : { '403 ERR_LICENSE_REVOKED': 1 });
      expect(await leases(pool)).toEqual([y.machineId]);
      // The freed seat goes to whichever machine the pool's other license moves to.
      const e = machine();
      expect((await y.owner.api.put(`/api/licenses/${y.licenseId}/machine`, { body: { machineId: e } })).statusCode).toBe(200);
      expect((await fetchFile(0, e, product.name)).statusCode).toBe(200);
      expect(await leases(pool)).toEqual([e]);
    });

    it('end with a revoked or released license while its machine keeps refreshing with 304s, renewals written after', async () => {
      const { product, pool, holders } = await floatingTan(3);
      const [x, y, z] = holders;
      const refresh = (i: number, holder: typeof x) =>
        s.as(null, i).post('/api/client/v1/license', { body: { machineId: holder.machineId, product: product.name }, headers: { 'if-none-match': holder.etag } });
      const responses = await s.race(RACERS, (i) => {
        if (i === 3) return s.admin.put(`/api/licenses/${x.licenseId}`, { body: { revoked: true } });
        if (i === 6) return s.as(null, i).delete('/api/client/v1/license', { body: { machineId: y.machineId, product: product.name } });
        return refresh(i, i % 3 === 0 ? x : i % 3 === 1 ? y : z);
      });
      expect(responses[3].statusCode).toBe(200);
      expect(responses[6].statusCode).toBe(204);
      for (const response of responses.filter((_, i) => i !== 3 && i !== 6)) expect([304, 403, 200]).toContain(response.statusCode);
      // Whatever the order, once the renewals are written the revoked machine holds nothing (leases()
      // also checks that every seat held belongs to a live license on its machine). The released one
      // may hold a seat again: a refresh after its release takes one. A release with no refresh
      // after it is the deterministic case in conditional-refresh.test.ts.
      for (const app of s.apps()) await flushSeatRenewals(app);
      const held = await leases(pool);
      expect(held).not.toContain(x.machineId);
      expect(held).toContain(z.machineId);
      expect((await refresh(0, x)).statusCode).toBe(403);
    });

    it('stay with a license moved to another account while its machine asks', async () => {
      const { product, pool, holders } = await floatingTan(1);
      const [x] = holders;
      const buyer = await s.customer();
      const responses = await s.race(RACERS, (i) =>
        i === 5 ? s.as(x.owner.cookie, i).post(`/api/licenses/${x.licenseId}/move`, { body: { email: buyer.email } }) : fetchFile(i, x.machineId, product.name),
      );
      expect(outcomes(responses)).toEqual({ '200': RACERS });
      expect(await leases(pool)).toEqual([x.machineId]);
      const file = await payloadOf((await fetchFile(0, x.machineId, product.name)).body);
      expect(file).toMatchObject({ licenseId: x.licenseId, machineId: x.machineId, owner: { name: await nameOf(buyer.id) } });
    });

    it('end with a deleted temporary license while its machine asks', async () => {
      const policyId = await s.policy({ type: 'FLOATING' });
      const product = await s.product({ policyId, trialDays: 30 });
      const owner = await s.customer();
      const machineId = machine();
      const trial = (await owner.api.post('/api/licenses/temporary', { body: { productId: product.id, machineId, validUntil: daysFromToday(10) } })).json();
      expect((await fetchFile(0, machineId, product.name)).statusCode).toBe(200);
      const responses = await s.race(RACERS, (i) => (i === 4 ? s.as(owner.cookie, i).delete(`/api/licenses/${trial.id}`) : fetchFile(i, machineId, product.name)));
      expect(responses[4].statusCode).toBe(204);
      for (const response of responses.filter((_, i) => i !== 4)) expect([200, 404]).toContain(response.statusCode);
      expect(await leases(`license:${trial.id}`)).toEqual([]);
      expect(await s.db().selectFrom('floating_seats').select('machine_id').where('license_id', '=', trial.id).execute()).toEqual([]);
    });
  });

  describe('license files', () => {
    it('always name their own license, product, machine and owner, downloaded or fetched, many at once', async () => {
      const licenses: { id: number; productId: number; productName: string; machineId: string; owner: Client; ownerId: number }[] = [];
      for (let i = 0; i < RACERS / 2; i++) {
        const product = await s.product({ trialDays: 30 });
        const [tan] = await s.tans({ productId: product.id });
        for (const kind of ['TAN', 'TEMPORARY']) {
          const owner = await s.customer();
          const machineId = machine();
          const response =
            kind === 'TAN'
              ? await owner.api.post('/api/licenses/activate', { body: { tan: tan.code, machineId } })
              : await owner.api.post('/api/licenses/temporary', { body: { productId: product.id, machineId, validUntil: daysFromToday(10) } });
          expect(response.statusCode, response.body).toBe(201);
          const license = response.json();
          licenses.push({ id: license.id, productId: product.id, productName: product.name, machineId, owner: owner.api, ownerId: owner.id });
        }
      }
      const downloads = await s.race(RACERS, (i) => licenses[i].owner.get(`/api/licenses/${licenses[i].id}/file`, { query: { format: 'json' } }));
      const fetched = await s.race(RACERS, (i) => fetchFile(i, licenses[i].machineId, licenses[i].productName));
      for (const [i, license] of licenses.entries()) {
        for (const response of [downloads[i], fetched[i]]) {
          expect(response.statusCode, response.body).toBe(200);
          const payload = await payloadOf(response.body);
          expect(payload).toMatchObject({
            licenseId: license.id,
            machineId: license.machineId,
            product: { id: license.productId, name: license.productName },
            owner: { name: await nameOf(license.ownerId) },
          });
        }
      }
    });
  });

  describe('statistics', () => {
    async function everything() {
      const answers: Record<string, unknown> = {};
      for (const category of STATISTICS_CATEGORIES) answers[category] = (await s.admin.get(`/api/statistics/${category}`)).json();
      return answers;
    }

    it('never go down when licenses are deleted at once, nor count a free upgrade as an activation', async () => {
      const product = await s.product({ trialDays: 30, version: '1.0' });
      // Released today, within the free-updates period of a license activated today.
      await s.product({ name: product.name, version: '2.0', releaseDate: daysFromToday(0) });
      const tans = await s.tans({ productId: product.id }, RACERS / 2);
      const owners = await Promise.all(Array.from({ length: RACERS }, () => s.customer()));
      const made: { id: number; owner: Client; kind: string; machineId: string }[] = [];
      for (const [i, owner] of owners.entries()) {
        const machineId = machine();
        const response =
          i < RACERS / 2
            ? await owner.api.post('/api/licenses/activate', { body: { tan: tans[i].code, machineId } })
            : await owner.api.post('/api/licenses/temporary', { body: { productId: product.id, machineId, validUntil: daysFromToday(10) } });
        expect(response.statusCode, response.body).toBe(201);
        made.push({ id: response.json().id, owner: owner.api, kind: response.json().kind, machineId });
        expect((await fetchFile(0, machineId, product.name)).statusCode).toBe(200);
      }
      const upgrade = await made[0].owner.post(`/api/licenses/${made[0].id}/upgrade`);
      expect(upgrade.statusCode, upgrade.body).toBe(201);
      // The machines' contacts are written in batches, by each instance that answered them (the
      // earlier tests' racers asked both): all of them before the numbers are taken.
      for (const app of s.apps()) await flushLastSeen(app);
      const before = await everything();
      const responses = await s.race(RACERS, (i) =>
        made[i].kind === 'TAN' ? s.admin.delete(`/api/licenses/${i === 0 ? upgrade.json().id : made[i].id}`) : made[i].owner.delete(`/api/licenses/${made[i].id}`),
      );
      expect(outcomes(responses)).toEqual({ '204': RACERS });
      expect(await everything()).toEqual(before);
    });
  });
});
