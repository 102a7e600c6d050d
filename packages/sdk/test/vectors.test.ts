/** The shared test vectors of every client (clients/test-vectors/README.md), read by the Node SDK. */
import { createPrivateKey, sign } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { featureValue, hasFeature, metadata, LicenseClient, licenseFileTag, memoryStore, parseLicenseFile, verifyLicenseFile, verifyServerTime, type PublicKey } from '../src/index.ts';

const DIR = path.resolve(import.meta.dirname, '../../../clients/test-vectors');
const read = (name: string) => fs.readFileSync(path.join(DIR, name), 'utf8');
const keys = (JSON.parse(read('keys.json')) as { keys: PublicKey[] }).keys;
interface Expected {
  kid: string;
  files: { name: string; valid: boolean; etag?: string; payload?: Record<string, unknown>; problem?: string }[];
  timeTokens: { value: string; valid: boolean; t?: number; kid?: string; problem?: string }[];
  clock: { local: string; trusted: string; expect: 'VALID' | 'EXPIRED' | 'CLOCK_TAMPERED' }[];
  toleranceHours: number;
  entitlements: { name: string; hasFeature: Record<string, boolean>; featureValue: Record<string, unknown>; metadata: Record<string, string> }[];
}
const expected = JSON.parse(read('expected.json')) as Expected;

/** A time token for any time, signed with the vectors' test key (as the server signs them). */
function tokenAt(ms: number): string {
  const enc = Buffer.from(JSON.stringify({ t: Math.floor(ms / 1000), kid: expected.kid })).toString('base64');
  return `${enc}.${sign(null, Buffer.from(`time/${enc}`), createPrivateKey(read('test-private-key.pem'))).toString('base64')}`;
}

describe('the shared test vectors', () => {
  it.each(expected.files)('$name: valid $valid', async (file) => {
    const text = read(file.name);
    if (file.valid) {
      const payload = await verifyLicenseFile(text, keys);
      expect(payload).toEqual(file.payload);
      expect(await licenseFileTag(parseLicenseFile(text), payload)).toBe(file.etag);
    } else {
      await expect(verifyLicenseFile(text, keys)).rejects.toMatchObject({ problem: file.problem });
    }
  });

  it.each(expected.entitlements)('$name: hasFeature, featureValue and metadata', async (example) => {
    const payload = await verifyLicenseFile(read(example.name), keys);
    for (const [name, has] of Object.entries(example.hasFeature)) expect(hasFeature(payload, name), name).toBe(has);
    for (const [name, value] of Object.entries(example.featureValue)) expect(featureValue(payload, name), name).toEqual(value);
    expect(metadata(payload)).toEqual(example.metadata);
  });

  it.each(expected.timeTokens)('time token $value: valid $valid', async (token) => {
    if (token.valid) expect(await verifyServerTime(token.value, keys)).toEqual({ t: token.t, kid: token.kid });
    else await expect(verifyServerTime(token.value, keys)).rejects.toMatchObject({ problem: token.problem });
  });

  it.each(expected.clock)('license.json at local $local, trusted $trusted: $expect', async (example) => {
    const store = memoryStore([{ name: 'license.json', text: read('files/license.json') }]);
    await store.writeServerTime!(tokenAt(Date.parse(example.trusted)));
    const client = new LicenseClient({
      serverUrl: 'https://licenses.example.com',
      product: 'Studio',
      machineId: 'VECTOR-MACHINE-1',
      publicKeys: keys,
      store,
      now: () => new Date(example.local),
      clockToleranceMs: expected.toleranceHours * 3_600_000,
      fetch: () => Promise.reject(new Error('offline')),
    });
    const status = await client.check();
    if (example.expect === 'VALID') expect(status.valid).toBe(true);
    else expect(status).toMatchObject({ valid: false, reason: example.expect });
  });

  it('keeps the highest verified time: an older or forged token does not lower it', async () => {
    const store = memoryStore();
    const later = tokenAt(Date.parse('2026-03-01T00:00:00Z'));
    let answer = later;
    const client = new LicenseClient({
      serverUrl: 'https://licenses.example.com',
      product: 'Studio',
      machineId: 'VECTOR-MACHINE-1',
      publicKeys: keys,
      store,
      now: () => new Date('2026-03-01T00:00:00Z'),
      fetch: async () => Response.json({ error: 'ERR_NO_LICENSE', message: 'none' }, { status: 404, headers: { 'license-server-time': answer } }),
    });
    await client.check();
    expect(await store.readServerTime!()).toBe(later);
    answer = tokenAt(Date.parse('2026-02-01T00:00:00Z'));
    await client.check();
    answer = expected.timeTokens.find((token) => token.problem === 'BAD_SIGNATURE')!.value;
    await client.check();
    expect(await store.readServerTime!()).toBe(later);
    expect(await client.trustedTime()).toEqual(new Date('2026-03-01T00:00:00Z'));
  });

  it('the folder is what its generator writes', async () => {
    const { spawnSync } = await import('node:child_process');
    const result = spawnSync(process.execPath, [path.join(DIR, 'generate.ts'), '--check'], { encoding: 'utf8' });
    expect(result.stderr + result.stdout).toContain('up to date');
  });
});
