import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyLicenseFile, type PublicKeyInfo } from '@lm/contract/license-file';
import { verifyLicenseFile as sdkVerify, InvalidLicenseFileError } from '@license-manager/sdk';
import { client, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { dateFromToday, insertFeature, insertLicense, insertProduct, insertTan, policyId, unique, updateLicense } from './licensing-fixtures.ts';

const DOC = path.join(import.meta.dirname, '../../../docs/license-files.md');

/** The shell commands of docs/license-files.md, section "Verifying a file with the openssl command line alone". */
function documentedOpensslSteps(): { unwrapLic: string; verify: string } {
  const section = fs.readFileSync(DOC, 'utf8').split('## Verifying a file with the openssl command line alone')[1].split('\n## ')[0];
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
  return { unwrapLic: blocks[1], verify: blocks[2] };
}

/** Verifies a file as the documentation tells, with sed and openssl only; true when openssl says so. */
function opensslVerifies(fileText: string, format: 'lic' | 'json', publicKeyPem: string): boolean {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-openssl-'));
  try {
    fs.writeFileSync(path.join(dir, 'key.pem'), publicKeyPem);
    const steps = documentedOpensslSteps();
    let script = steps.verify;
    if (format === 'lic') {
      fs.writeFileSync(path.join(dir, 'Studio-2.0-MACHINE42.lic'), fileText);
      script = `${steps.unwrapLic}\n${script}`;
    } else {
      fs.writeFileSync(path.join(dir, 'license.json'), fileText);
    }
    const result = spawnSync('sh', ['-c', script], { cwd: dir, encoding: 'utf8' });
    expect(result.stdout + result.stderr).toMatch(result.status === 0 ? /Signature Verified Successfully/ : /Signature Verification Failure/);
    return result.status === 0;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The text with one character at `index` replaced by another base64 character. */
const changeOneByte = (text: string, index: number) => text.slice(0, index) + (text[index] === 'Q' ? 'R' : 'Q') + text.slice(index + 1);

describeBothDatabases('license file downloads', (t) => {
  let keys: (PublicKeyInfo & { alg: string })[];
  let owner: Awaited<ReturnType<typeof loggedIn>>;
  let distributor: Awaited<ReturnType<typeof loggedIn>>;
  let product: { id: number; name: string; version: string };
  let licenseId: number;
  let machineId: string;
  let features: { bundle: string; pdf: string; print: string; cloud: string };

  beforeAll(async () => {
    owner = await loggedIn(t.app, 'USER');
    distributor = await loggedIn(t.app, 'DISTRIBUTOR');
    features = { bundle: unique('suite:pro'), pdf: unique('export:pdf'), print: unique('print'), cloud: unique('cloud') };
    await insertFeature(t.app, features.pdf);
    await insertFeature(t.app, features.print);
    await insertFeature(t.app, features.cloud);
    await insertFeature(t.app, features.bundle, [features.pdf, features.print]);
    product = await insertProduct(t.app, { name: unique('Studio Pro'), version: '2.1', features: [features.bundle, features.cloud] });
    await t.app.ctx.db.insertInto('settings').values({ key: 'SERVER_CUSTOMER_ID', value: JSON.stringify('vendor-4711'), updated_at: new Date().toISOString() }).execute();
    const policy = await policyId(t.app, 'SINGLE_HOST_INDEFINITE');
    const tanId = await insertTan(t.app, { productId: product.id, policyId: policy, licenseCount: 5, distributorId: distributor.id });
    machineId = unique('MACHINE/42');
    licenseId = await insertLicense(t.app, { ownerId: owner.id, productId: product.id, policyId: policy, tanId, machineId, permanent: true, freeUpdatesUntil: '2027-06-30' });
    keys = (await client(t.app).get('/api/client/v1/keys')).json().keys;
  });

  const download = (cookie: string | null, id: number, format?: string) => client(t.app, cookie).get(`/api/licenses/${id}/file`, format ? { query: { format } } : {});

  it('gives the owner a .lic attachment named after product, version and machine, with the resolved features', async () => {
    const response = await download(owner.cookie, licenseId, 'lic');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-disposition']).toBe(`attachment; filename="${product.name.replace(/ /g, '_')}-2.1-${machineId.replace('/', '_')}.lic"`);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toMatch(/^-----BEGIN LICENSE FILE-----\n([A-Za-z0-9+/=]{64}\n)*[A-Za-z0-9+/=]{1,64}\n-----END LICENSE FILE-----\n$/);
    const payload = await verifyLicenseFile(response.body, keys);
    expect(payload).toMatchObject({
      formatVersion: 1,
      licenseId,
      kind: 'TAN',
      policyType: 'INDEFINITE',
      product: { id: product.id, name: product.name, version: '2.1' },
      machineId,
      owner: { name: `${owner.email.split('@')[0]} Customer`, company: null },
      permanent: true,
      licenseValidUntil: null,
      freeUpdatesUntil: '2027-06-30',
      refetchIntervalSeconds: 86400,
      refetchBeforeExpirySeconds: 7 * 86400,
      serverCustomerId: 'vendor-4711',
      kid: keys[0].kid,
    });
    expect(payload.features).toEqual([features.cloud, features.pdf, features.print].sort());
    expect(Date.parse(payload.expiresAt!) - Date.parse(payload.issuedAt)).toBe(30 * 86_400_000);
  });

  it('gives the .json format, and .lic when no format is named', async () => {
    const json = await download(owner.cookie, licenseId, 'json');
    expect(json.statusCode).toBe(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.headers['content-disposition']).toMatch(/\.json"$/);
    expect(Object.keys(json.json())).toEqual(['enc', 'sig', 'alg', 'kid']);
    expect((await sdkVerify(json.body, keys)).licenseId).toBe(licenseId);
    const plain = await download(owner.cookie, licenseId);
    expect(plain.headers['content-disposition']).toMatch(/\.lic"$/);
  });

  it('verifies with the openssl command line alone and with the SDK; one changed byte fails both', async () => {
    const publicKeyPem = keys[0].publicKeyPem;
    for (const format of ['lic', 'json'] as const) {
      const text = (await download(owner.cookie, licenseId, format)).body;
      expect(opensslVerifies(text, format, publicKeyPem), `${format} verifies`).toBe(true);
      await sdkVerify(text, keys);

      // A byte inside the signed payload (well past the armor line and the `{"enc":"` prefix).
      const altered = changeOneByte(text, format === 'lic' ? 120 : 60);
      expect(altered).not.toBe(text);
      expect(opensslVerifies(altered, format, publicKeyPem), `altered ${format} fails openssl`).toBe(false);
      await expect(sdkVerify(altered, keys)).rejects.toBeInstanceOf(InvalidLicenseFileError);
    }
    // The SPKI PEM served for openssl is the published one.
    expect(execFileSync('openssl', ['pkey', '-pubin', '-noout', '-text'], { input: publicKeyPem, encoding: 'utf8' })).toMatch(/ED25519 Public-Key/);
  });

  it('refuses anonymous callers with 401', async () => {
    expectError(await download(null, licenseId), 401, 'ERR_UNAUTHENTICATED');
  });

  it('hides the license from another customer and another distributor (404), forbids its distributor (403), allows administrators', async () => {
    const stranger = await loggedIn(t.app, 'USER');
    const otherDistributor = await loggedIn(t.app, 'DISTRIBUTOR');
    const admin = await loggedIn(t.app, 'ADMIN');
    expectError(await download(stranger.cookie, licenseId), 404, 'ERR_NOT_FOUND');
    expectError(await download(otherDistributor.cookie, licenseId), 404, 'ERR_NOT_FOUND');
    expectError(await download(distributor.cookie, licenseId), 403, 'ERR_FORBIDDEN');
    expect((await download(admin.cookie, licenseId)).statusCode).toBe(200);
  });

  it('validates format and id', async () => {
    expectError(await download(owner.cookie, licenseId, 'xml'), 400, 'ERR_VALIDATION');
    expectError(await client(t.app, owner.cookie).get('/api/licenses/abc/file'), 400, 'ERR_VALIDATION');
    expectError(await download(owner.cookie, 987654), 404, 'ERR_NOT_FOUND');
  });

  it('refuses revoked, upgraded and expired licenses and licenses without machine, with a clear error', async () => {
    const policy = await policyId(t.app, 'SINGLE_HOST_PERPETUAL');
    const make = (values: Parameters<typeof insertLicense>[1] extends infer I ? Partial<I> : never) =>
      insertLicense(t.app, { ownerId: owner.id, productId: product.id, policyId: policy, machineId: unique('m'), ...values });
    const revoked = await make({ revoked: true });
    const upgraded = await make({ upgradedToId: licenseId });
    const expired = await make({ validUntil: dateFromToday(-1) });
    const machineless = await make({ machineId: null, validUntil: dateFromToday(5) });
    expect(expectError(await download(owner.cookie, revoked), 422, 'ERR_LICENSE_REVOKED').message).toBe('This license has been revoked');
    expectError(await download(owner.cookie, upgraded), 422, 'ERR_LICENSE_UPGRADED');
    expect(expectError(await download(owner.cookie, expired), 422, 'ERR_LICENSE_EXPIRED').message).toContain(dateFromToday(-1));
    expectError(await download(owner.cookie, machineless), 422, 'ERR_NO_MACHINE');
    await updateLicense(t.app, machineless, { machine_id: unique('m') });
    expect((await download(owner.cookie, machineless)).statusCode).toBe(200);
  });
});

describe('documentation', () => {
  it('has the openssl steps the test runs', () => {
    const steps = documentedOpensslSteps();
    expect(steps.unwrapLic).toContain('openssl base64 -d');
    expect(steps.verify).toContain('openssl pkeyutl -verify -pubin -inkey key.pem -rawin');
  });
});
