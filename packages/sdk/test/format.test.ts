import { describe, expect, it } from 'vitest';
import { InvalidLicenseFileError, parseLicenseFile, refreshDueAt, verifyLicenseFile } from '../src/index.ts';
import { basePayload, testKey } from './signing.ts';

const key = testKey();

function flipCharacter(text: string, index: number): string {
  const replacement = text[index] === 'A' ? 'B' : 'A';
  return text.slice(0, index) + replacement + text.slice(index + 1);
}

async function problemOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'none';
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidLicenseFileError);
    return (error as InvalidLicenseFileError).problem;
  }
}

describe('license file verification', () => {
  it('verifies both formats and returns the payload', async () => {
    for (const format of ['json', 'lic'] as const) {
      const payload = await verifyLicenseFile(key.file({ machineId: 'M-1' }, format), [key.publicKey]);
      expect(payload.machineId).toBe('M-1');
      expect(payload.kid).toBe(key.kid);
    }
  });

  it('wraps .lic files in 64-character lines', () => {
    const lines = key.file({}, 'lic').trimEnd().split('\n');
    expect(lines[0]).toBe('-----BEGIN LICENSE FILE-----');
    expect(lines.at(-1)).toBe('-----END LICENSE FILE-----');
    for (const line of lines.slice(1, -2)) expect(line).toHaveLength(64);
    expect(lines.at(-2)!.length).toBeLessThanOrEqual(64);
  });

  it('refuses a file with one changed character of the payload or the signature', async () => {
    const json = key.file({});
    const file = parseLicenseFile(json);
    const alteredPayload = JSON.stringify({ ...file, enc: flipCharacter(file.enc, 40) });
    const alteredSignature = JSON.stringify({ ...file, sig: flipCharacter(file.sig, 10) });
    expect(await problemOf(verifyLicenseFile(alteredPayload, [key.publicKey]))).toBe('BAD_SIGNATURE');
    expect(await problemOf(verifyLicenseFile(alteredSignature, [key.publicKey]))).toBe('BAD_SIGNATURE');
    const lic = key.file({}, 'lic');
    expect(['BAD_SIGNATURE', 'MALFORMED']).toContain(await problemOf(verifyLicenseFile(flipCharacter(lic, 100), [key.publicKey])));
  });

  it('refuses an unknown key and a key that did not sign it', async () => {
    const other = testKey('other');
    expect(await problemOf(verifyLicenseFile(key.file({}), [other.publicKey]))).toBe('UNKNOWN_KEY');
    expect(await problemOf(verifyLicenseFile(key.file({}), [{ kid: key.kid, publicKeyPem: other.publicKey.publicKeyPem }]))).toBe('BAD_SIGNATURE');
  });

  it('refuses what is not a license file', async () => {
    for (const text of ['', 'hello', '{"enc":"x"}', '-----BEGIN LICENSE FILE-----\n!!!\n-----END LICENSE FILE-----', '-----BEGIN LICENSE FILE-----\nabcd']) {
      expect(await problemOf(verifyLicenseFile(text, [key.publicKey]))).toBe('MALFORMED');
    }
  });

  it('schedules the refresh at the earlier of the interval and the before-expiry mark', () => {
    const payload = basePayload(new Date('2026-01-01T00:00:00Z'));
    expect(refreshDueAt({ ...payload, refetchIntervalSeconds: 3600 })).toEqual(new Date('2026-01-01T01:00:00Z'));
    expect(refreshDueAt({ ...payload, expiresAt: '2026-01-02T00:00:00Z', refetchIntervalSeconds: 0, refetchBeforeExpirySeconds: 3600 })).toEqual(new Date('2026-01-01T23:00:00Z'));
    expect(refreshDueAt({ ...payload, expiresAt: null, refetchIntervalSeconds: 0 })).toBeNull();
  });
});
