import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { verifyLicenseFile } from '@lm/contract/license-file';
import type { App } from '../src/app.ts';
import { listSigningKeys, retireSigningKey, rotateSigningKey, signingKeys } from '../src/platform/signing/keys.ts';
import { buildTestApp, client, createUser, DATABASE_KINDS, freshDatabase, postgresReachable, testConfig, type TestDatabase } from './harness.ts';
import { insertLicense, insertProduct, policyId, unique } from './licensing-fixtures.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const SECRET = 'a-long-and-secret-server-key-0123456789';

async function appOn(fresh: TestDatabase, env: Record<string, string> = {}): Promise<App> {
  return buildTestApp(testConfig(fresh.config, { env }), fresh.database);
}

async function fetchFile(app: App, machineId: string, product: string) {
  const response = await client(app).post('/api/client/v1/license', { body: { machineId, product } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

afterEach(() => {
  vi.useRealTimers();
});

for (const kind of DATABASE_KINDS) {
  describe.skipIf(kind === 'postgres' && !postgresReachable)(`signing keys [${kind}]`, () => {
    const databases: TestDatabase[] = [];
    const fresh = async () => {
      const database = await freshDatabase(kind);
      databases.push(database);
      return database;
    };
    afterAll(async () => {
      for (const database of databases) await database.dispose();
    });

    it('creates one key pair on first start and keeps it across restarts', async () => {
      const database = await fresh();
      const first = await appOn(database);
      const keys = (await client(first).get('/api/client/v1/keys')).json().keys;
      await first.close();
      const second = await appOn(database);
      expect((await client(second).get('/api/client/v1/keys')).json().keys).toEqual(keys);
      expect(keys).toHaveLength(1);
      const stored = await second.ctx.db.selectFrom('signing_keys').selectAll().execute();
      expect(stored[0].private_key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
      await second.close();
    });

    it('rotates: the new key signs, the old public key stays published and old files keep verifying', async () => {
      const database = await fresh();
      const app = await appOn(database);
      const product = await insertProduct(app);
      const machineId = unique('rotating-machine');
      const owner = await createUser(app);
      await insertLicense(app, { ownerId: owner.id, productId: product.id, policyId: await policyId(app, 'SINGLE_HOST_INDEFINITE'), machineId, permanent: true, kind: 'TAN' });
      const oldFile = await fetchFile(app, machineId, product.name);

      const { kid: newKid } = await rotateSigningKey(app.ctx, app.ctx.config);
      await signingKeys(app.ctx).reload();
      const keys = (await client(app).get('/api/client/v1/keys')).json().keys;
      expect(keys.map((key: { kid: string }) => key.kid)).toEqual([newKid, oldFile.kid]);
      const newFile = await fetchFile(app, machineId, product.name);
      expect(newFile.kid).toBe(newKid);
      expect((await verifyLicenseFile(newFile, keys)).kid).toBe(newKid);
      expect((await verifyLicenseFile(oldFile, keys)).kid).toBe(oldFile.kid);
      await app.close();
    });

    it('staged rotation: the next key is published at once and signs from its time on every instance; a client pinned to the published keys keeps refreshing', async () => {
      const database = await fresh();
      const [first, second] = [await appOn(database), await appOn(database)];
      const product = await insertProduct(first);
      const machineId = unique('staged-machine');
      const owner = await createUser(first);
      await insertLicense(first, { ownerId: owner.id, productId: product.id, policyId: await policyId(first, 'SINGLE_HOST_INDEFINITE'), machineId, permanent: true, kind: 'TAN' });
      const oldFile = await fetchFile(first, machineId, product.name);

      const activation = new Date(Date.now() + 24 * 3600_000);
      const { kid: nextKid, activatesAt } = await rotateSigningKey(first.ctx, first.ctx.config, activation);
      expect(activatesAt).toBe(activation.toISOString());
      // Published at once, before it signs: the software pins both keys now.
      const pinned = (await client(second).get('/api/client/v1/keys')).json().keys;
      expect(pinned.map((key: { kid: string }) => key.kid)).toEqual([nextKid, oldFile.kid]);
      expect((await client(second).get(`/api/client/v1/keys/${nextKid}.pem`)).statusCode).toBe(200);
      for (const app of [first, second]) {
        await signingKeys(app.ctx).reload();
        expect((await fetchFile(app, machineId, product.name)).kid).toBe(oldFile.kid);
      }
      expect((await listSigningKeys(first.ctx)).map((key) => [key.kid, key.state])).toEqual([
        [nextKid, 'published'],
        [oldFile.kid, 'active'],
      ]);

      // The clock past the activation: both instances sign with the next key, no reload needed.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(activation.getTime() + 1000);
      for (const app of [first, second]) {
        const refreshed = await client(app).post('/api/client/v1/license', { body: { machineId, product: product.name }, headers: { 'if-none-match': '"' + 'x"' } });
        expect(refreshed.statusCode).toBe(200);
        expect(refreshed.json().kid).toBe(nextKid);
        expect((await verifyLicenseFile(refreshed.json(), pinned)).kid).toBe(nextKid);
      }
      expect((await listSigningKeys(first.ctx)).map((key) => key.state)).toEqual(['active', 'retiring']);

      // Retiring: the signing key is refused; the old one signs no more and leaves the keys at its date.
      await expect(retireSigningKey(first.ctx, nextKid, null)).rejects.toThrow(/signs now; run keys:rotate first/);
      await expect(retireSigningKey(first.ctx, 'nokey', null)).rejects.toThrow(/No signing key nokey/);
      const unpublishAt = new Date(Date.now() + 3600_000);
      expect(await retireSigningKey(first.ctx, oldFile.kid, unpublishAt)).toMatchObject({ state: 'retiring', unpublishAt: unpublishAt.toISOString() });
      expect((await client(first).get('/api/client/v1/keys')).json().keys).toHaveLength(2);
      vi.setSystemTime(unpublishAt.getTime() + 1000);
      expect((await client(first).get('/api/client/v1/keys')).json().keys.map((key: { kid: string }) => key.kid)).toEqual([nextKid]);
      expect((await client(first).get(`/api/client/v1/keys/${oldFile.kid}.pem`)).statusCode).toBe(404);
      expect((await listSigningKeys(first.ctx)).map((key) => key.state)).toEqual(['active', 'retired']);
      await first.close();
      await second.close();
    });

    it('encrypts the private key with SECRET_KEY and needs the same SECRET_KEY to start again', async () => {
      const database = await fresh();
      const first = await appOn(database, { SECRET_KEY: SECRET });
      const [row] = await first.ctx.db.selectFrom('signing_keys').selectAll().execute();
      expect(row.private_key).toMatch(/^aes-256-gcm:/);
      expect(row.private_key).not.toContain('PRIVATE KEY');
      await first.close();

      await expect(appOn(database, { SECRET_KEY: 'another-secret-key-of-enough-length' })).rejects.toThrow(/SECRET_KEY is not the value it was encrypted with/);
      await expect(appOn(database)).rejects.toThrow(/set SECRET_KEY/);
      const again = await appOn(database, { SECRET_KEY: SECRET });
      expect((await client(again).get('/api/client/v1/keys')).json().keys[0].kid).toBe(row.kid);
      await again.close();
    });

    it('encrypts a key stored in plain text once SECRET_KEY is set', async () => {
      const database = await fresh();
      await (await appOn(database)).close();
      const app = await appOn(database, { SECRET_KEY: SECRET });
      const [row] = await app.ctx.db.selectFrom('signing_keys').selectAll().execute();
      expect(row.private_key).toMatch(/^aes-256-gcm:/);
      await app.close();
    });
  });
}

describe('npm run cli -- keys:rotate, keys:list, keys:retire', () => {
  it('adds a signing key now or staged, lists the states, retires a key', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-cli-keys-'));
    try {
      const env = { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'silent' };
      const run = (...args: string[]) => spawnSync(path.join(ROOT, 'node_modules/.bin/node'), [path.join(ROOT, 'packages/server/src/cli.ts'), ...args], { env, encoding: 'utf8' });
      const first = run('keys:rotate');
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/^New signing key [0-9a-f]{16}/);
      expect(run('keys:rotate', '--activate-at', '2099-01-04 09:00').stderr).toMatch(/--activate-at: must be a time such as 2027-01-04T09:00:00Z/);
      const staged = run('keys:rotate', '--activate-at', '2099-01-04T09:00:00Z');
      expect(staged.stdout).toMatch(/^New signing key ([0-9a-f]{16}), published now; every server signs with it from 2099-01-04T09:00:00.000Z/);
      const stagedKid = /key ([0-9a-f]{16})/.exec(staged.stdout)![1];
      const firstKid = /key ([0-9a-f]{16})/.exec(first.stdout)![1];
      const listed = run('keys:list').stdout;
      expect(listed).toMatch(new RegExp(`${stagedKid} +published +\\S+ +2099-01-04T09:00:00.000Z`));
      expect(listed).toMatch(new RegExp(`${firstKid} +active`));
      expect(run('keys:retire').stderr).toMatch(/<kid> is required/);
      const refused = run('keys:retire', firstKid);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/signs now; run keys:rotate first/);
      const retired = run('keys:retire', stagedKid, '--unpublish-at', '2099-02-01T00:00:00Z');
      expect(retired.stdout, retired.stderr).toMatch(/Retired [0-9a-f]{16}: it signs no more; published until 2099-02-01T00:00:00.000Z/);
      expect(run('keys:list').stdout).toMatch(new RegExp(`${stagedKid} +retiring`));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
