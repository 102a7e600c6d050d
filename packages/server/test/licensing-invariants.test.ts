/**
 * The licensing rules of DESIGN.md section 6 stated as properties and attacked with parallel
 * requests through the HTTP API, on SQLite and on PostgreSQL (two app instances there). Each test
 * asserts the exact outcomes of the race and the rows it left. Floating seats, license files and
 * statistics: seat-invariants.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { describeBothDatabases } from './harness.ts';
import { orderSignature } from '../src/modules/orders/signature.ts';
import { daysFromToday, invariantsSetup, machine, outcomes, RACERS, uniqueName } from './invariants-support.ts';

describeBothDatabases('licensing invariants', (t) => {
  const s = invariantsSetup(t);
  const activate = (cookie: string, i: number, tan: string, machineId: string) => s.as(cookie, i).post('/api/licenses/activate', { body: { tan, machineId } });
  const customers = (n: number) => Promise.all(Array.from({ length: n }, () => s.customer()));

  describe("a TAN's license count", () => {
    it(`is never passed by ${RACERS} customers activating one TAN at once`, async () => {
      const product = await s.product();
      const [tan] = await s.tans({ productId: product.id, licenseCount: 4 });
      const racers = await customers(RACERS);
      const responses = await s.race(RACERS, (i) => activate(racers[i].cookie, i, tan.code, machine()));
      expect(outcomes(responses)).toEqual({ '201': 4, '422 ERR_INVALID_LICENSE': RACERS - 4 });
      const stored = await s.db().selectFrom('tans').select(['activated_count', 'license_count']).where('id', '=', tan.id).executeTakeFirstOrThrow();
      expect(stored).toEqual({ activated_count: 4, license_count: 4 });
      expect(await s.db().selectFrom('licenses').select('id').where('tan_id', '=', tan.id).execute()).toHaveLength(4);
    });

    it('holds when an administrator lowers the count while customers activate', async () => {
      const product = await s.product();
      const racers = await customers(RACERS - 1);
      // Five rounds: the change meets the activations at different points.
      for (let round = 0; round < 5; round++) {
        const [tan] = await s.tans({ productId: product.id, licenseCount: 10 });
        const position = 2 * round;
        const responses = await s.race(RACERS, (i) =>
          i === position
            ? s.admin.put(`/api/tans/${tan.id}`, { body: { productId: product.id, licenseCount: 3, revoked: false } })
            : activate(racers[i > position ? i - 1 : i].cookie, i, tan.code, machine()),
        );
        const lowered = responses[position];
        const activations = responses.filter((_, i) => i !== position);
        const stored = await s.db().selectFrom('tans').select(['activated_count', 'license_count']).where('id', '=', tan.id).executeTakeFirstOrThrow();
        const made = activations.filter((response) => response.statusCode === 201).length;
        expect(stored.activated_count).toBe(made);
        expect(stored.activated_count).toBeLessThanOrEqual(stored.license_count);
        if (lowered.statusCode === 200) {
          expect(stored.license_count).toBe(3);
          expect(outcomes(activations)).toEqual({ '201': made, ...(made < RACERS - 1 ? { '422 ERR_INVALID_LICENSE': RACERS - 1 - made } : {}) });
        } else {
          // Refused: more than 3 activations had been made when the change came.
          expect(outcomes([lowered])).toEqual({ '400 ERR_VALIDATION': 1 });
          expect(stored.license_count).toBe(10);
          expect(made).toBe(RACERS - 1);
        }
        expect(await s.db().selectFrom('licenses').select('id').where('tan_id', '=', tan.id).execute()).toHaveLength(made);
      }
    });
  });

  describe('one license per machine and product', () => {
    const liveLicensesOn = (machineId: string, productId: number) =>
      s.db().selectFrom('licenses').select(['id', 'kind']).where('machine_id', '=', machineId).where('product_id', '=', productId).where('revoked', '=', false).execute();

    it(`binds one of ${RACERS} TANs activated for one machine at once, and burns no other`, async () => {
      const product = await s.product();
      const tans = await s.tans({ productId: product.id, licenseCount: 1 }, RACERS);
      const racers = await customers(RACERS);
      const machineId = machine();
      const responses = await s.race(RACERS, (i) => activate(racers[i].cookie, i, tans[i].code, machineId));
      expect(outcomes(responses)).toEqual({ '201': 1, '409 ERR_MACHINE_ID_USED': RACERS - 1 });
      expect(await liveLicensesOn(machineId, product.id)).toHaveLength(1);
      const counts = await s.db().selectFrom('tans').select('activated_count').where('id', 'in', tans.map((tan) => tan.id)).execute();
      expect(counts.map((row) => row.activated_count).sort()).toEqual([...Array(RACERS - 1).fill(0), 1]);
    });

    it(`makes one of ${RACERS} temporary licenses for one machine at once`, async () => {
      const product = await s.product({ trialDays: 30 });
      const racers = await customers(RACERS);
      const machineId = machine();
      const responses = await s.race(RACERS, (i) =>
        s.as(racers[i].cookie, i).post('/api/licenses/temporary', { body: { productId: product.id, machineId, validUntil: daysFromToday(10) } }),
      );
      expect(outcomes(responses)).toEqual({ '201': 1, '422 ERR_TRIAL_USED': RACERS - 1 });
      expect(await liveLicensesOn(machineId, product.id)).toEqual([{ id: expect.any(Number), kind: 'TEMPORARY' }]);
      expect(await s.db().selectFrom('license_trials').select('id').where('machine_id', '=', machineId).execute()).toHaveLength(1);
    });

    it(`gives one temporary license to ${RACERS} shop orders for one machine delivered at once`, async () => {
      const product = await s.product({ trialDays: 30 });
      const secret = 'invariants-webhook-secret-0123456789';
      for (const [key, value] of Object.entries({
        'webhook.secret': secret,
        'order.autoCreateAccount': true,
        'order.autoTemporaryLicense': true,
        'order.temporaryLicenseProductId': product.id,
        'order.temporaryLicenseDays': 14,
      })) {
        expect((await s.admin.put(`/api/settings/${key}`, { body: { value } })).statusCode).toBe(204);
      }
      const machineId = machine();
      const responses = await s.race(RACERS, (i) => {
        const raw = JSON.stringify({ orderId: uniqueName('order'), timestamp: new Date().toISOString(), email: `${uniqueName('buyer')}@example.com`, firstName: 'Ada', lastName: 'Lovelace', machineId });
        return s.as(null, i).post('/api/webhooks/orders', { body: raw, headers: { 'content-type': 'application/json', 'x-signature': orderSignature(secret, raw) } });
      });
      expect(outcomes(responses)).toEqual({ '200': RACERS });
      const results = responses.map((response) => response.json().temporaryLicense as string).sort();
      expect(results).toEqual(['created', ...Array(RACERS - 1).fill('machine-has-license')]);
      expect(await liveLicensesOn(machineId, product.id)).toEqual([{ id: expect.any(Number), kind: 'TEMPORARY' }]);
      expect((await s.admin.put('/api/settings/order.autoTemporaryLicense', { body: { value: false } })).statusCode).toBe(204);
    });

    it(`moves one of ${RACERS} licenses to a machine that they all change to at once`, async () => {
      const product = await s.product();
      const tans = await s.tans({ productId: product.id, licenseCount: 1 }, RACERS);
      const racers = await customers(RACERS);
      const licenses = await Promise.all(racers.map(async (racer, i) => (await activate(racer.cookie, 0, tans[i].code, machine())).json().id as number));
      const target = machine();
      const responses = await s.race(RACERS, (i) => s.as(racers[i].cookie, i).put(`/api/licenses/${licenses[i]}/machine`, { body: { machineId: target } }));
      expect(outcomes(responses)).toEqual({ '200': 1, '409 ERR_MACHINE_ID_USED': RACERS - 1 });
      expect(await liveLicensesOn(target, product.id)).toHaveLength(1);
    });
    it(`brings back one of ${RACERS} revoked licenses of one machine that an administrator restores at once`, async () => {
      const product = await s.product();
      const tans = await s.tans({ productId: product.id, licenseCount: 1 }, RACERS);
      const racers = await customers(RACERS);
      const machineId = machine();
      const revoked: number[] = [];
      for (const [i, racer] of racers.entries()) {
        const license = await activate(racer.cookie, 0, tans[i].code, machineId);
        expect(license.statusCode, license.body).toBe(201);
        expect((await s.admin.put(`/api/licenses/${license.json().id}`, { body: { revoked: true } })).statusCode).toBe(200);
        revoked.push(license.json().id);
      }
      const responses = await s.race(RACERS, (i) => s.as(s.cookies.admin, i).put(`/api/licenses/${revoked[i]}`, { body: { revoked: false } }));
      expect(outcomes(responses)).toEqual({ '200': 1, '409 ERR_MACHINE_ID_USED': RACERS - 1 });
      expect(await liveLicensesOn(machineId, product.id)).toHaveLength(1);
    });
  });

  describe('the different-machines window', () => {
    it(`lets ${RACERS} changes of machine at once bind no more machines than the policy allows`, async () => {
      const product = await s.product({ policyId: await s.policy({ maxDifferentMachinesCount: 3, maxDifferentMachinesIntervalHours: 720 }) });
      const [tan] = await s.tans({ productId: product.id });
      const owner = await s.customer();
      const license = (await activate(owner.cookie, 0, tan.code, machine())).json();
      const responses = await s.race(RACERS, (i) => s.as(owner.cookie, i).put(`/api/licenses/${license.id}/machine`, { body: { machineId: machine() } }));
      expect(outcomes(responses)).toEqual({ '200': 2, '422 ERR_TOO_MANY_MACHINES': RACERS - 2 });
      const bound = await s.db().selectFrom('license_machines').select('machine_id').where('license_id', '=', license.id).execute();
      expect(new Set(bound.map((row) => row.machine_id)).size).toBe(3);
      for (const refused of responses.filter((response) => response.statusCode === 422)) expect(refused.json().params).toEqual({ count: 3, days: 30, hours: 720 });
    });
  });

  describe('repeat trials', () => {
    it(`gives a machine whose trial was deleted no second one, however many of ${RACERS} ask at once`, async () => {
      const product = await s.product({ trialDays: 30, repeatTrialAfterMonths: null });
      const first = await s.customer();
      const machineId = machine();
      const trial = await first.api.post('/api/licenses/temporary', { body: { productId: product.id, machineId, validUntil: daysFromToday(5) } });
      expect((await first.api.delete(`/api/licenses/${trial.json().id}`)).statusCode).toBe(204);
      const racers = await customers(RACERS);
      const responses = await s.race(RACERS, (i) =>
        s.as(racers[i].cookie, i).post('/api/licenses/temporary', { body: { productId: product.id, machineId, validUntil: daysFromToday(5) } }),
      );
      expect(outcomes(responses)).toEqual({ '422 ERR_TRIAL_USED': RACERS });
      expect(await s.db().selectFrom('licenses').select('id').where('machine_id', '=', machineId).execute()).toEqual([]);
      expect(await s.db().selectFrom('license_trials').select('id').where('machine_id', '=', machineId).execute()).toHaveLength(1);
    });

    it(`gives exactly one new trial to ${RACERS} asking at once once the repeat period has passed`, async () => {
      const product = await s.product({ trialDays: 30, repeatTrialAfterMonths: 1 });
      const machineId = machine();
      const owner = await s.customer();
      await s.db()
        .insertInto('license_trials')
        .values({ product_id: product.id, machine_id: machineId, owner_id: owner.id, license_id: null, started_at: `${daysFromToday(-40)}T10:00:00.000Z` })
        .execute();
      const racers = await customers(RACERS);
      const responses = await s.race(RACERS, (i) =>
        s.as(racers[i].cookie, i).post('/api/licenses/temporary', { body: { productId: product.id, machineId, validUntil: daysFromToday(5) } }),
      );
      expect(outcomes(responses)).toEqual({ '201': 1, '422 ERR_TRIAL_USED': RACERS - 1 });
      expect(await s.db().selectFrom('license_trials').select('id').where('machine_id', '=', machineId).execute()).toHaveLength(2);
    });
  });

  describe('one license moved and bound to other machines at once', () => {
    it('ends with the owner of the one move that won and a change log whose every entry starts where the last ended', async () => {
      const product = await s.product({ policyId: await s.policy({ maxDifferentMachinesCount: 3 }) });
      const [tan] = await s.tans({ productId: product.id });
      const owner = await s.customer();
      const first = machine();
      const license = (await activate(owner.cookie, 0, tan.code, first)).json();
      const targets = await customers(RACERS / 2);
      const machines = Array.from({ length: RACERS / 2 }, machine);
      const responses = await s.race(RACERS, (i) =>
        i % 2 === 0
          ? s.as(owner.cookie, i).post(`/api/licenses/${license.id}/move`, { body: { email: targets[i / 2].email } })
          : s.as(owner.cookie, i).put(`/api/licenses/${license.id}/machine`, { body: { machineId: machines[(i - 1) / 2] } }),
      );
      const moves = responses.filter((_, i) => i % 2 === 0);
      const changes = responses.filter((_, i) => i % 2 === 1);
      expect(outcomes(moves)).toEqual({ '200': 1, '404 ERR_NOT_FOUND': RACERS / 2 - 1 });
      const changed = changes.filter((response) => response.statusCode === 200).length;
      expect(changed).toBeLessThanOrEqual(2);
      for (const response of changes) expect([200, 404, 422]).toContain(response.statusCode);

      const winner = targets[moves.findIndex((response) => response.statusCode === 200)];
      const row = await s.db().selectFrom('licenses').select(['owner_id', 'machine_id']).where('id', '=', license.id).executeTakeFirstOrThrow();
      expect(row.owner_id).toBe(winner.id);
      const log = await s.db()
        .selectFrom('change_log')
        .select(['old_values', 'new_values'])
        .where('model', '=', 'License')
        .where('record_id', '=', license.id)
        .where('operation', '=', 'update')
        .orderBy('id')
        .execute();
      expect(log).toHaveLength(1 + changed);
      let state = { ownerId: owner.id, machineId: first };
      for (const entry of log) {
        const before = JSON.parse(entry.old_values!);
        const after = JSON.parse(entry.new_values!);
        expect({ ownerId: before.ownerId, machineId: before.machineId }).toEqual(state);
        state = { ownerId: after.ownerId, machineId: after.machineId };
      }
      expect(state).toEqual({ ownerId: row.owner_id, machineId: row.machine_id });
      const bound = await s.db().selectFrom('license_machines').select('machine_id').where('license_id', '=', license.id).execute();
      expect(bound).toHaveLength(1 + changed);
    });
  });
});
