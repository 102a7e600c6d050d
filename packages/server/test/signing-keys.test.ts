import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyLicenseFile } from '@lm/contract/license-file';
import type { App } from '../src/app.ts';
import { signingKeys, rotateSigningKey } from '../src/platform/signing/keys.ts';
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

      const newKid = await rotateSigningKey(app.ctx, app.ctx.config);
      await signingKeys(app.ctx).reload();
      const keys = (await client(app).get('/api/client/v1/keys')).json().keys;
      expect(keys.map((key: { kid: string }) => key.kid)).toEqual([newKid, oldFile.kid]);
      const newFile = await fetchFile(app, machineId, product.name);
      expect(newFile.kid).toBe(newKid);
      expect((await verifyLicenseFile(newFile, keys)).kid).toBe(newKid);
      expect((await verifyLicenseFile(oldFile, keys)).kid).toBe(oldFile.kid);
      await app.close();
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

describe('npm run cli -- keys:rotate', () => {
  it('adds a signing key to the database', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-cli-keys-'));
    try {
      const env = { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'silent' };
      const run = () => spawnSync(path.join(ROOT, 'node_modules/.bin/node'), [path.join(ROOT, 'packages/server/src/cli.ts'), 'keys:rotate'], { env, encoding: 'utf8' });
      const first = run();
      expect(first.status, first.stderr).toBe(0);
      const second = run();
      expect(second.stdout).toMatch(/^New signing key [0-9a-f]{16}/);
      const database = await import('../src/platform/db/database.ts').then(({ openDatabase }) => openDatabase({ kind: 'sqlite', file: path.join(dir, 'license-manager.db') }));
      const rows = await database.db.selectFrom('signing_keys').select(['kid', 'active']).execute();
      expect(rows).toHaveLength(2);
      expect(rows.filter((row) => Boolean(row.active))).toHaveLength(1);
      await database.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
