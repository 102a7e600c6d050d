import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decodePayload,
  encodePayload,
  formatJsonFile,
  formatLicFile,
  LicenseFileError,
  licenseFileName,
  parseLicenseFile,
  refreshDueAt,
  signedMessage,
  verifyLicenseFile,
  type LicensePayload,
} from './license-file.ts';

const payload: LicensePayload = {
  formatVersion: 1,
  licenseId: 3,
  kind: 'TAN',
  policyType: 'PERPETUAL',
  product: { id: 1, name: 'Stüdio Pro', version: '2.1' },
  features: ['export:pdf'],
  entitlements: { 'export:pdf': true },
  metadata: {},
  machineId: 'MÄCHINE-1',
  owner: { name: 'Zoë Ångström', company: 'Ünïcode GmbH' },
  issuedAt: '2026-03-10T12:00:00.000Z',
  expiresAt: null,
  licenseValidUntil: null,
  permanent: true,
  freeUpdatesUntil: null,
  refetchIntervalSeconds: 3600,
  refetchBeforeExpirySeconds: 600,
  serverCustomerId: null,
  kid: 'k1',
};

function signed(body: LicensePayload) {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const enc = encodePayload(body);
  const sig = sign(null, signedMessage(enc), privateKey).toString('base64');
  return { file: { enc, sig, alg: 'ed25519' as const, kid: body.kid }, keys: [{ kid: body.kid, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() }] };
}

describe('license file format', () => {
  it('encodes the payload as base64 of its UTF-8 bytes, the same bytes Node would give', () => {
    expect(encodePayload(payload)).toBe(Buffer.from(JSON.stringify(payload), 'utf8').toString('base64'));
    expect(decodePayload(encodePayload(payload))).toEqual(payload);
  });

  it('round-trips both formats', () => {
    const { file } = signed(payload);
    expect(parseLicenseFile(formatJsonFile(file))).toEqual(file);
    expect(parseLicenseFile(formatLicFile(file))).toEqual(file);
    expect(Object.keys(JSON.parse(formatJsonFile(file)))).toEqual(['enc', 'sig', 'alg', 'kid']);
  });

  it('verifies with WebCrypto and refuses a changed payload', async () => {
    const { file, keys } = signed(payload);
    expect(await verifyLicenseFile(formatLicFile(file), keys)).toEqual(payload);
    const other = encodePayload({ ...payload, machineId: 'OTHER' });
    await expect(verifyLicenseFile({ ...file, enc: other }, keys)).rejects.toMatchObject({ problem: 'BAD_SIGNATURE' });
    await expect(verifyLicenseFile(file, [])).rejects.toMatchObject({ problem: 'UNKNOWN_KEY' });
  });

  it('refuses a payload naming another key than the file', async () => {
    const { file, keys } = signed({ ...payload, kid: 'k1' });
    const swapped = signed({ ...payload, kid: 'k2' });
    await expect(verifyLicenseFile({ ...swapped.file, kid: 'k1' }, [{ kid: 'k1', publicKeyPem: swapped.keys[0].publicKeyPem }])).rejects.toMatchObject({ problem: 'BAD_SIGNATURE' });
    expect((await verifyLicenseFile(file, keys)).kid).toBe('k1');
  });

  it.each(['', 'not json', '{"enc":"x","sig":"y","alg":"rsa","kid":"k"}', '-----BEGIN LICENSE FILE-----\nAAAA'])('refuses %j as malformed', (text) => {
    expect(() => parseLicenseFile(text)).toThrow(LicenseFileError);
  });

  it('names files after product, version and machine, safely', () => {
    expect(licenseFileName({ name: 'Studio Pro', version: '2.1' }, 'AB:CD/../x', 'lic')).toBe('Studio_Pro-2.1-AB_CD_.._x.lic');
    expect(licenseFileName({ name: 'Studio', version: '3' }, '*', 'json')).toBe('Studio-3-ANY.json');
  });

  it('schedules refreshes from the refetch fields', () => {
    expect(refreshDueAt(payload)).toEqual(new Date('2026-03-10T13:00:00.000Z'));
    expect(refreshDueAt({ ...payload, refetchIntervalSeconds: 0 })).toBeNull();
  });
});
