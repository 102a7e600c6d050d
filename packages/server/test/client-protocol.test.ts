import { beforeAll, describe, expect, it } from 'vitest';
import { verifyLicenseFile, type LicenseFileJson, type LicensePayload, type PublicKeyInfo } from '@lm/contract/license-file';
import { client, createUser, describeBothDatabases, expectError } from './harness.ts';
import { dateFromToday, flushLastSeen, insertFeature, insertLicense, insertPolicy, insertProduct, insertTan, policyId, unique, updateLicense } from './licensing-fixtures.ts';

const DAY = 86_400_000;

describeBothDatabases('desktop protocol /api/client/v1', (t) => {
  let keys: PublicKeyInfo[];
  let ownerId: number;
  const desktop = () => client(t.app);

  const fetchLicense = (body: Record<string, unknown>) => desktop().post('/api/client/v1/license', { body });
  async function verified(body: Record<string, unknown>): Promise<LicensePayload> {
    const response = await fetchLicense(body);
    expect(response.statusCode, response.body).toBe(200);
    return verifyLicenseFile(response.json() as LicenseFileJson, keys);
  }

  beforeAll(async () => {
    keys = (await desktop().get('/api/client/v1/keys')).json().keys;
    ownerId = (await createUser(t.app)).id;
    await insertFeature(t.app, unique('export:pdf'));
  });

  describe('GET /api/client/v1/keys', () => {
    it('publishes the public keys with id, algorithm, SPKI PEM and creation time, without a session', async () => {
      const response = await desktop().get('/api/client/v1/keys');
      expect(response.statusCode).toBe(200);
      const [key] = response.json().keys;
      expect(key).toMatchObject({ alg: 'ed25519' });
      expect(key.kid).toMatch(/^[0-9a-f]{16}$/);
      expect(key.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
      expect(response.body).not.toContain('PRIVATE');
      const pem = await desktop().get(`/api/client/v1/keys/${key.kid}.pem`);
      expect(pem.statusCode).toBe(200);
      expect(pem.body).toBe(key.publicKeyPem);
      expectError(await desktop().get('/api/client/v1/keys/0000000000000000.pem'), 404, 'ERR_NOT_FOUND');
    });
  });

  describe('PERPETUAL', () => {
    it('lives through activation, fetch, refresh, revocation', async () => {
      const product = await insertProduct(t.app);
      const machineId = unique('perpetual-machine');
      const id = await insertLicense(t.app, { ownerId, productId: product.id, policyId: await policyId(t.app, 'SINGLE_HOST_PERPETUAL'), machineId, kind: 'TAN', permanent: true });

      const first = await verified({ machineId, product: product.name });
      expect(first).toMatchObject({ licenseId: id, kind: 'TAN', policyType: 'PERPETUAL', machineId, expiresAt: null, permanent: true, licenseValidUntil: null });
      expect(first.refetchIntervalSeconds).toBe(7 * 86400);
      expect(first.refetchBeforeExpirySeconds).toBe(30 * 86400);

      await new Promise((resolve) => setTimeout(resolve, 5));
      const refreshed = await verified({ machineId, product: product.name, version: product.version });
      expect(Date.parse(refreshed.issuedAt)).toBeGreaterThan(Date.parse(first.issuedAt));

      await updateLicense(t.app, id, { revoked: true });
      expectError(await fetchLicense({ machineId, product: product.name }), 403, 'ERR_LICENSE_REVOKED');
    });

    it('ends with the license when it has a valid-until date, and refuses it once expired', async () => {
      const product = await insertProduct(t.app);
      const machineId = unique('trial-machine');
      const validUntil = dateFromToday(3);
      const id = await insertLicense(t.app, { ownerId, productId: product.id, policyId: await policyId(t.app, 'SINGLE_HOST_PERPETUAL'), machineId, validUntil });
      const payload = await verified({ machineId, product: product.name });
      expect(payload.expiresAt).toBe(new Date(Date.parse(`${validUntil}T00:00:00Z`) + DAY).toISOString());
      expect(payload).toMatchObject({ kind: 'TEMPORARY', licenseValidUntil: validUntil, permanent: false });

      await updateLicense(t.app, id, { valid_until: dateFromToday(-1) });
      const body = expectError(await fetchLicense({ machineId, product: product.name }), 403, 'ERR_LICENSE_EXPIRED');
      expect(body.message).toContain(dateFromToday(-1));
    });
  });

  describe('INDEFINITE', () => {
    it('gives files valid licenseMaxValidDays, capped by the license end, and stops after revocation', async () => {
      const product = await insertProduct(t.app);
      const policy = await insertPolicy(t.app, { type: 'INDEFINITE', licenseMaxValidDays: 10, refetchIntervalSeconds: 86400, refetchBeforeExpirySeconds: 3 * 86400 });
      const machineId = unique('indefinite-machine');
      const id = await insertLicense(t.app, { ownerId, productId: product.id, policyId: policy, machineId, kind: 'TAN', permanent: true });

      const payload = await verified({ machineId, product: product.name });
      const validFor = Date.parse(payload.expiresAt!) - Date.parse(payload.issuedAt);
      expect(validFor).toBe(10 * DAY);
      expect(payload).toMatchObject({ policyType: 'INDEFINITE', refetchIntervalSeconds: 86400, refetchBeforeExpirySeconds: 3 * 86400 });

      await updateLicense(t.app, id, { valid_until: dateFromToday(2) });
      await t.app.ctx.db.updateTable('licenses').set({ permanent: false }).where('id', '=', id).execute();
      const capped = await verified({ machineId, product: product.name });
      expect(capped.expiresAt).toBe(new Date(Date.parse(`${dateFromToday(2)}T00:00:00Z`) + DAY).toISOString());

      await updateLicense(t.app, id, { revoked: true });
      expectError(await fetchLicense({ machineId, product: product.name }), 403, 'ERR_LICENSE_REVOKED');
    });
  });

  describe('FLOATING', () => {
    async function floatingPool(seats: number, policyInput: Partial<Parameters<typeof insertPolicy>[1]> = {}) {
      const product = await insertProduct(t.app);
      const policy = await insertPolicy(t.app, { type: 'FLOATING', licenseMaxValidDays: 1, refetchIntervalSeconds: 900, refetchBeforeExpirySeconds: 3600, ...policyInput });
      const tanId = await insertTan(t.app, { productId: product.id, policyId: policy, licenseCount: seats });
      const machines: { machineId: string; licenseId: number }[] = [];
      const addMachine = async () => {
        const machineId = unique('floating-machine');
        machines.push({ machineId, licenseId: await insertLicense(t.app, { ownerId, productId: product.id, policyId: policy, machineId, tanId, permanent: true }) });
        return machines.at(-1)!;
      };
      return { product, tanId, machines, addMachine };
    }

    it('gives at most licenseCount seats to 20 concurrent machines, leased for one refresh interval plus the grace', async () => {
      const pool = await floatingPool(3);
      for (let i = 0; i < 20; i++) await pool.addMachine();
      const responses = await Promise.all(pool.machines.map(({ machineId }) => fetchLicense({ machineId, product: pool.product.name })));
      const granted = responses.filter((response) => response.statusCode === 200);
      expect(granted).toHaveLength(3);
      for (const refused of responses.filter((response) => response.statusCode !== 200)) expectError(refused, 409, 'ERR_NO_SEAT');

      const payload = await verifyLicenseFile(granted[0].json() as LicenseFileJson, keys);
      expect(payload.policyType).toBe('FLOATING');
      expect(Date.parse(payload.expiresAt!) - Date.parse(payload.issuedAt)).toBe((900 + 3600) * 1000);

      // Holders renew their seats; still nobody else gets one.
      const holders = pool.machines.filter((_, index) => responses[index].statusCode === 200);
      const waiting = pool.machines.filter((_, index) => responses[index].statusCode !== 200);
      for (const holder of holders) expect((await fetchLicense({ machineId: holder.machineId, product: pool.product.name })).statusCode).toBe(200);
      expectError(await fetchLicense({ machineId: waiting[0].machineId, product: pool.product.name }), 409, 'ERR_NO_SEAT');

      // A release frees a seat at once.
      expect((await desktop().delete('/api/client/v1/license', { body: { machineId: holders[0].machineId, product: pool.product.name } })).statusCode).toBe(204);
      expect((await fetchLicense({ machineId: waiting[0].machineId, product: pool.product.name })).statusCode).toBe(200);
      expectError(await fetchLicense({ machineId: holders[0].machineId, product: pool.product.name }), 409, 'ERR_NO_SEAT');

      // A lapsed lease frees the seat too.
      await t.app.ctx.db.updateTable('floating_seats').set({ leased_until: new Date(Date.now() - 1000).toISOString() }).where('machine_id', '=', holders[1].machineId).execute();
      expect((await fetchLicense({ machineId: waiting[1].machineId, product: pool.product.name })).statusCode).toBe(200);
      expectError(await fetchLicense({ machineId: holders[1].machineId, product: pool.product.name }), 409, 'ERR_NO_SEAT');
    });

    it('stops renewing a revoked license and frees its seat', async () => {
      const pool = await floatingPool(1);
      const first = await pool.addMachine();
      const second = await pool.addMachine();
      expect((await fetchLicense({ machineId: first.machineId, product: pool.product.name })).statusCode).toBe(200);
      expectError(await fetchLicense({ machineId: second.machineId, product: pool.product.name }), 409, 'ERR_NO_SEAT');
      await updateLicense(t.app, first.licenseId, { revoked: true });
      expectError(await fetchLicense({ machineId: first.machineId, product: pool.product.name }), 403, 'ERR_LICENSE_REVOKED');
      expect((await fetchLicense({ machineId: second.machineId, product: pool.product.name })).statusCode).toBe(200);
    });

    it('refuses an expired floating license', async () => {
      const pool = await floatingPool(2);
      const machine = await pool.addMachine();
      await t.app.ctx.db.updateTable('licenses').set({ permanent: false, valid_until: dateFromToday(-2) }).where('id', '=', machine.licenseId).execute();
      expectError(await fetchLicense({ machineId: machine.machineId, product: pool.product.name }), 403, 'ERR_LICENSE_EXPIRED');
    });

    it('applies the different-machines window to seats', async () => {
      const pool = await floatingPool(5, { maxDifferentMachinesCount: 2, maxDifferentMachinesIntervalHours: 48 });
      const [a, b, c] = [await pool.addMachine(), await pool.addMachine(), await pool.addMachine()];
      expect((await fetchLicense({ machineId: a.machineId, product: pool.product.name })).statusCode).toBe(200);
      expect((await fetchLicense({ machineId: b.machineId, product: pool.product.name })).statusCode).toBe(200);
      await desktop().delete('/api/client/v1/license', { body: { machineId: a.machineId, product: pool.product.name } });
      const body = expectError(await fetchLicense({ machineId: c.machineId, product: pool.product.name }), 422, 'ERR_TOO_MANY_MACHINES');
      expect(body.message).toBe('You have already used this license on 2 different machines within the last 2 days or 48 hours');
      expect((body as { params?: unknown }).params).toEqual({ count: 2, days: 2, hours: 48 });
      // A machine already counted in the window may come back.
      expect((await fetchLicense({ machineId: a.machineId, product: pool.product.name })).statusCode).toBe(200);
      // Once the window has passed for the others, the new machine is welcome.
      await t.app.ctx.db.updateTable('floating_seats').set({ renewed_at: new Date(Date.now() - 49 * 3600_000).toISOString(), leased_until: new Date(Date.now() - 1000).toISOString() }).where('machine_id', 'in', [a.machineId, b.machineId]).execute();
      expect((await fetchLicense({ machineId: c.machineId, product: pool.product.name })).statusCode).toBe(200);
    });

    it('gives a floating license without TAN one seat', async () => {
      const product = await insertProduct(t.app);
      const policy = await insertPolicy(t.app, { type: 'FLOATING' });
      const machineId = unique('lonely-machine');
      await insertLicense(t.app, { ownerId, productId: product.id, policyId: policy, machineId, validUntil: dateFromToday(5) });
      expect((await fetchLicense({ machineId, product: product.name })).statusCode).toBe(200);
      expect((await fetchLicense({ machineId, product: product.name })).statusCode).toBe(200);
    });
  });

  describe('choosing the license', () => {
    it('gives the newest usable version unless a version is named, and refuses an upgraded one', async () => {
      const name = unique('Versioned');
      const v1 = await insertProduct(t.app, { name, version: '1.0', releaseDate: '2025-01-01' });
      const v2 = await insertProduct(t.app, { name, version: '2.0', releaseDate: '2026-01-01' });
      const machineId = unique('versioned-machine');
      const policy = await policyId(t.app, 'SINGLE_HOST_INDEFINITE');
      const newer = await insertLicense(t.app, { ownerId, productId: v2.id, policyId: policy, machineId, kind: 'TAN', permanent: true });
      await insertLicense(t.app, { ownerId, productId: v1.id, policyId: policy, machineId, kind: 'TAN', permanent: true, upgradedToId: newer });
      expect((await verified({ machineId, product: name })).product).toEqual({ id: v2.id, name, version: '2.0' });
      expect((await verified({ machineId, product: name, version: '2.0' })).licenseId).toBe(newer);
      expectError(await fetchLicense({ machineId, product: name, version: '1.0' }), 403, 'ERR_LICENSE_UPGRADED');
    });

    it('prefers the TAN license over a trial of the same product', async () => {
      const product = await insertProduct(t.app);
      const machineId = unique('both-machine');
      const policy = await policyId(t.app, 'SINGLE_HOST_INDEFINITE');
      await insertLicense(t.app, { ownerId, productId: product.id, policyId: policy, machineId, validUntil: dateFromToday(10) });
      const full = await insertLicense(t.app, { ownerId, productId: product.id, policyId: policy, machineId, kind: 'TAN', permanent: true });
      expect((await verified({ machineId, product: product.name })).licenseId).toBe(full);
    });
  });

  describe('unknown machines and invalid requests', () => {
    it('answers an unknown machine, an unknown product and another product alike', async () => {
      const product = await insertProduct(t.app);
      const other = await insertProduct(t.app);
      const machineId = unique('known-machine');
      await insertLicense(t.app, { ownerId, productId: product.id, policyId: await policyId(t.app, 'SINGLE_HOST_INDEFINITE'), machineId, permanent: true, kind: 'TAN' });
      const answers = await Promise.all([
        fetchLicense({ machineId: unique('unknown-machine'), product: product.name }),
        fetchLicense({ machineId, product: unique('NoSuchProduct') }),
        fetchLicense({ machineId, product: other.name }),
        fetchLicense({ machineId, product: product.name, version: '9.9' }),
      ]);
      for (const answer of answers) expectError(answer, 404, 'ERR_NO_LICENSE');
      expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
      expectError(await desktop().delete('/api/client/v1/license', { body: { machineId: unique('unknown'), product: product.name } }), 404, 'ERR_NO_LICENSE');
    });

    it.each([
      [{}],
      [{ machineId: 'm-1' }],
      [{ product: 'P' }],
      [{ machineId: '', product: 'P' }],
      [{ machineId: 'a\u0000b', product: 'P' }],
      [{ machineId: 'x'.repeat(256), product: 'P' }],
      [{ machineId: 42, product: 'P' }],
    ])('refuses %j with 400 ERR_VALIDATION', async (body) => {
      expectError(await fetchLicense(body), 400, 'ERR_VALIDATION');
    });

    it('answers callers from any origin (no session, so no CSRF), with CORS for browser-based clients', async () => {
      for (const origin of ['null', 'https://desktop.example', 'app://studio']) {
        const response = await desktop().post('/api/client/v1/license', { body: { machineId: unique('m'), product: 'P' }, headers: { origin } });
        expectError(response, 404, 'ERR_NO_LICENSE');
        expect(response.headers['access-control-allow-origin']).toBe('*');
        expect(response.headers['access-control-expose-headers']).toBe('etag, license-server-time');
      }
      const preflight = await t.app.inject({ method: 'OPTIONS', url: '/api/client/v1/license', headers: { origin: 'null', 'access-control-request-method': 'POST' } });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-methods']).toContain('POST');
      expect(preflight.headers['access-control-allow-headers']).toBe('content-type, if-none-match, authorization');
      // The rest of the API stays same-origin.
      expectError(await client(t.app).post('/api/anylic', { body: {}, headers: { origin: 'https://evil.example' } }), 403, 'ERR_CSRF');
    });

    it('refuses a body that is not JSON', async () => {
      const response = await t.app.inject({ method: 'POST', url: '/api/client/v1/license', payload: 'machineId=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(response.statusCode).toBe(415);
    });
  });

  describe('last seen', () => {
    it('records license and machine in batches, not for unknown machines', async () => {
      const product = await insertProduct(t.app);
      const machineId = unique('seen-machine');
      const id = await insertLicense(t.app, { ownerId, productId: product.id, policyId: await policyId(t.app, 'SINGLE_HOST_INDEFINITE'), machineId, permanent: true, kind: 'TAN' });
      const before = new Date().toISOString();
      expect((await fetchLicense({ machineId, product: product.name })).statusCode).toBe(200);
      const unwritten = await t.app.ctx.db.selectFrom('license_last_seen').selectAll().where('license_id', '=', id).execute();
      expect(unwritten).toEqual([]);
      await flushLastSeen(t.app);
      const rows = await t.app.ctx.db.selectFrom('license_last_seen').selectAll().where('license_id', '=', id).execute();
      expect(rows).toHaveLength(1);
      expect(rows[0].machine_id).toBe(machineId);
      expect(rows[0].last_seen_at >= before).toBe(true);
      await fetchLicense({ machineId: unique('ghost'), product: product.name });
      await flushLastSeen(t.app);
      expect((await t.app.ctx.db.selectFrom('license_last_seen').select('machine_id').where('machine_id', 'like', 'ghost-%').execute()).length).toBe(0);
    });

    it('records the others when a license is deleted before the batch is written, and never moves a time back', async () => {
      const product = await insertProduct(t.app);
      const policy = await policyId(t.app, 'SINGLE_HOST_INDEFINITE');
      const kept = { machineId: unique('kept-machine'), id: 0 };
      const doomed = { machineId: unique('doomed-machine'), id: 0 };
      for (const machine of [kept, doomed]) {
        machine.id = await insertLicense(t.app, { ownerId, productId: product.id, policyId: policy, machineId: machine.machineId, permanent: true, kind: 'TAN' });
        expect((await fetchLicense({ machineId: machine.machineId, product: product.name })).statusCode).toBe(200);
      }
      await t.app.ctx.db.deleteFrom('licenses').where('id', '=', doomed.id).execute();
      await flushLastSeen(t.app);
      const seen = await t.app.ctx.db.selectFrom('license_last_seen').select(['license_id', 'last_seen_at']).where('license_id', 'in', [kept.id, doomed.id]).execute();
      expect(seen.map((row) => row.license_id)).toEqual([kept.id]);

      const { lastSeenRecorder } = await import('../src/modules/license-files/last-seen.ts');
      lastSeenRecorder(t.app.ctx).record(kept.id, kept.machineId, new Date('2000-01-01T00:00:00.000Z'));
      await flushLastSeen(t.app);
      const after = await t.app.ctx.db.selectFrom('license_last_seen').select('last_seen_at').where('license_id', '=', kept.id).executeTakeFirstOrThrow();
      expect(after.last_seen_at).toBe(seen[0].last_seen_at);
    });
  });
});

describeBothDatabases(
  'desktop protocol rate limit',
  (t) => {
    it('answers 900 machines behind one address under the defaults, and limits each machine to 60 calls a minute', async () => {
      const call = (machineId: string, ip = '10.0.0.1') => t.app.inject({ method: 'POST', url: '/api/client/v1/license', payload: { machineId, product: 'p' }, remoteAddress: ip });
      const site = Array.from({ length: 900 }, (_, index) => `site-machine-${index}`);
      for (const machine of site) expect((await call(machine)).statusCode).toBe(404);
      // One machine retrying in a loop: its own limit, not its neighbours'.
      for (let i = 1; i < 60; i++) expect((await call(site[0])).statusCode).toBe(404);
      const refused = await call(site[0]);
      expectError(refused, 429, 'ERR_RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await call(site[1])).statusCode).toBe(404);
      expect((await t.app.inject({ method: 'GET', url: '/api/client/v1/keys', remoteAddress: '10.0.0.1' })).statusCode).toBe(200);
    });
  },
  { config: { rateLimits: true } },
);
