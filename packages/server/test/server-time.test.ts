import { execFile } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { SERVER_TIME_HEADER, SERVER_TIME_SIGNATURE_PREFIX, type PublicKeyInfo } from '@lm/contract/license-file';
import { ServerTimeTokens } from '../src/platform/signing/server-time.ts';
import { client, createUser, describeBothDatabases, expectError } from './harness.ts';
import { insertLicense, insertPolicy, insertProduct, insertTan, policyId, unique, updateLicense } from './licensing-fixtures.ts';

/** Verifies a `License-Server-Time` value as docs/license-files.md tells a client to, and returns its payload. */
function verifiedTime(value: string | undefined, keys: readonly PublicKeyInfo[]): { t: number; kid: string } {
  expect(value).toMatch(/^[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$/);
  const [enc, sig] = value!.split('.');
  const payload = JSON.parse(Buffer.from(enc!, 'base64').toString('utf8')) as { t: number; kid: string };
  const key = keys.find((candidate) => candidate.kid === payload.kid);
  expect(key, `no published key ${payload.kid}`).toBeDefined();
  const valid = verify(null, Buffer.from(SERVER_TIME_SIGNATURE_PREFIX + enc!, 'utf8'), createPublicKey(key!.publicKeyPem), Buffer.from(sig!, 'base64'));
  expect(valid, 'the time token does not verify').toBe(true);
  return payload;
}

describeBothDatabases('trusted time: License-Server-Time on every protocol answer', (t) => {
  let keys: PublicKeyInfo[];
  let ownerId: number;
  const desktop = () => client(t.app);

  beforeAll(async () => {
    keys = (await desktop().get('/api/client/v1/keys')).json().keys;
    ownerId = (await createUser(t.app)).id;
  });

  /** The answer's time token, verified, lies between the seconds before and after the request. */
  async function expectServerTime(send: () => Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> {
    const before = Math.floor(Date.now() / 1000);
    const response = await send();
    const after = Math.floor(Date.now() / 1000);
    const token = verifiedTime(response.headers[SERVER_TIME_HEADER] as string | undefined, keys);
    expect(token.t).toBeGreaterThanOrEqual(before);
    expect(token.t).toBeLessThanOrEqual(after);
    expect(token.kid).toBe(keys[0]!.kid);
    return response;
  }

  it('signs the 200, the 304 and the keys answer, and names the header for browsers', async () => {
    const product = await insertProduct(t.app);
    const machineId = unique('time-machine');
    await insertLicense(t.app, { ownerId, productId: product.id, policyId: await policyId(t.app, 'SINGLE_HOST_INDEFINITE'), machineId, kind: 'TAN', permanent: true });
    const body = { machineId, product: product.name };
    const fetched = await expectServerTime(() => desktop().post('/api/client/v1/license', { body }));
    expect(fetched.statusCode).toBe(200);
    expect(fetched.headers['access-control-expose-headers']).toContain(SERVER_TIME_HEADER);
    const confirmed = await expectServerTime(() => desktop().post('/api/client/v1/license', { body, headers: { 'if-none-match': fetched.headers.etag as string } }));
    expect(confirmed.statusCode).toBe(304);
    expect((await expectServerTime(() => desktop().get('/api/client/v1/keys'))).statusCode).toBe(200);
  });

  it('signs every refusal: unknown machine, invalid body, revoked, no seat, release of nothing', async () => {
    expectError(await expectServerTime(() => desktop().post('/api/client/v1/license', { body: { machineId: unique('nobody'), product: 'Nothing' } })), 404, 'ERR_NO_LICENSE');
    expect((await expectServerTime(() => desktop().post('/api/client/v1/license', { body: { product: 42 } }))).statusCode).toBe(400);
    expectError(await expectServerTime(() => desktop().delete('/api/client/v1/license', { body: { machineId: unique('nobody'), product: 'Nothing' } })), 404, 'ERR_NO_LICENSE');

    const product = await insertProduct(t.app);
    const revokedMachine = unique('revoked');
    const id = await insertLicense(t.app, { ownerId, productId: product.id, policyId: await policyId(t.app, 'SINGLE_HOST_INDEFINITE'), machineId: revokedMachine, kind: 'TAN', permanent: true });
    await updateLicense(t.app, id, { revoked: true });
    expectError(await expectServerTime(() => desktop().post('/api/client/v1/license', { body: { machineId: revokedMachine, product: product.name } })), 403, 'ERR_LICENSE_REVOKED');

    const floating = await insertProduct(t.app);
    const policy = await insertPolicy(t.app, { type: 'FLOATING', refetchIntervalSeconds: 900, refetchBeforeExpirySeconds: 3600 });
    const tanId = await insertTan(t.app, { productId: floating.id, policyId: policy, licenseCount: 1 });
    const [first, second] = [unique('seat-a'), unique('seat-b')];
    for (const machineId of [first, second]) await insertLicense(t.app, { ownerId, productId: floating.id, policyId: policy, machineId, tanId, permanent: true });
    expect((await desktop().post('/api/client/v1/license', { body: { machineId: first, product: floating.name } })).statusCode).toBe(200);
    expectError(await expectServerTime(() => desktop().post('/api/client/v1/license', { body: { machineId: second, product: floating.name } })), 409, 'ERR_NO_SEAT');
  });
});

/** The shell commands of docs/license-files.md that verify a token with curl and openssl. */
const DOC_COMMANDS = fs
  .readFileSync(path.resolve(import.meta.dirname, '../../../docs/license-files.md'), 'utf8')
  .split('Verify a token with OpenSSL')[1]!
  .split('```sh\n')[1]!
  .split('```')[0]!;

describeBothDatabases('trusted time: the documented openssl commands', (t) => {
  it('verify a token of a listening server with curl and openssl alone', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const [key] = ((await (await fetch(`${url}/api/client/v1/keys`)).json()) as { keys: PublicKeyInfo[] }).keys;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-time-openssl-'));
    try {
      fs.writeFileSync(path.join(dir, 'key.pem'), key!.publicKeyPem);
      // Asynchronously: curl asks the server that runs in this very process.
      const { stdout: output } = await promisify(execFile)('sh', ['-c', DOC_COMMANDS.replaceAll('https://licenses.example.com', url)], { cwd: dir, encoding: 'utf8' });
      expect(output).toContain('Signature Verified Successfully');
      const payload = JSON.parse(output.slice(output.indexOf('{'))) as { t: number; kid: string };
      expect(payload.kid).toBe(key!.kid);
      expect(Math.abs(payload.t - Date.now() / 1000)).toBeLessThan(600);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ServerTimeTokens', () => {
  const signer = (kid: string, log: string[]) => ({
    kid,
    sign: async (message: Uint8Array) => {
      log.push(Buffer.from(message).toString('utf8'));
      return Buffer.from(`sig-${log.length}`).toString('base64');
    },
  });

  it('signs at most once per second and key, however many answers ask', async () => {
    const log: string[] = [];
    const clock = { ms: 1_764_000_000_250 };
    let current = signer('key-a', log);
    const tokens = new ServerTimeTokens(() => current, () => clock.ms);
    // Answers arriving while the first signature is still under way share it.
    const first = await Promise.all([tokens.current(), tokens.current(), tokens.current()]);
    expect(new Set(first).size).toBe(1);
    clock.ms += 700;
    expect(tokens.current()).toBe(first[0]);
    expect(log).toHaveLength(1);
    const [enc] = first[0]!.split('.');
    expect(JSON.parse(Buffer.from(enc!, 'base64').toString())).toEqual({ t: 1_764_000_000, kid: 'key-a' });
    expect(log[0]).toBe(`time/${enc}`);

    clock.ms += 100; // the next second
    const next = await tokens.current();
    expect(next).not.toBe(first[0]);
    expect(log).toHaveLength(2);

    current = signer('key-b', log); // a rotated key signs at once, in the same second
    const rotated = await tokens.current();
    expect(JSON.parse(Buffer.from(rotated.split('.')[0]!, 'base64').toString())).toEqual({ t: 1_764_000_001, kid: 'key-b' });
    expect(tokens.signatures).toBe(3);
  });
});
