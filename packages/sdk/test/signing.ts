/** Test helpers: a key pair and files signed in the server's format (through the contract's encoder). */
import { generateKeyPairSync, sign } from 'node:crypto';
import {
  encodePayload,
  formatJsonFile,
  formatLicFile,
  signedMessage,
  type LicensePayload,
} from '@lm/contract/license-file';
import type { PublicKey } from '../src/index.ts';

export function testKey(kid = 'test-key-1') {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return {
    kid,
    publicKey: { kid, publicKeyPem } satisfies PublicKey,
    file(payload: Partial<LicensePayload>, format: 'json' | 'lic' = 'json'): string {
      const full = { ...basePayload(), ...payload, kid };
      const enc = encodePayload(full);
      const sig = sign(null, signedMessage(enc), privateKey).toString('base64');
      const file = { enc, sig, alg: 'ed25519' as const, kid };
      return format === 'lic' ? formatLicFile(file) : formatJsonFile(file);
    },
  };
}

export function basePayload(now = new Date()): LicensePayload {
  return {
    formatVersion: 1,
    licenseId: 7,
    kind: 'TAN',
    policyType: 'INDEFINITE',
    product: { id: 1, name: 'Studio', version: '2.0' },
    features: ['export:pdf'],
    entitlements: { 'export:pdf': true },
    metadata: {},
    machineId: 'MACHINE-1',
    owner: { name: 'Ada Lovelace', company: null },
    issuedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + 30 * 86_400_000).toISOString(),
    licenseValidUntil: null,
    permanent: true,
    freeUpdatesUntil: null,
    refetchIntervalSeconds: 86_400,
    refetchBeforeExpirySeconds: 7 * 86_400,
    serverCustomerId: 'vendor-1',
    kid: 'test-key-1',
  };
}
