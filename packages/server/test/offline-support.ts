/** A test installation for offline activation (DESIGN.md section 6h): an install key that writes request and proof files as the clients do. */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { armor, DEACTIVATION_PROOF, OFFLINE_REQUEST, type OfflineArmor } from '@lm/contract/offline';

export function installation() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const keyId = createHash('sha256').update(Buffer.from(spki, 'base64')).digest('hex');
  const signed = (kind: OfflineArmor, content: object, by = privateKey) => {
    const enc = Buffer.from(JSON.stringify(content), 'utf8').toString('base64');
    return armor(kind, enc, sign(null, Buffer.from(kind.prefix + enc, 'utf8'), by).toString('base64'));
  };
  return {
    spki,
    keyId,
    privateKey,
    request(product: string, machineId: string, options: { createdAt?: Date; installKey?: string; by?: typeof privateKey } = {}) {
      const content = { v: 1, product, version: null, machineId, installKey: options.installKey ?? spki, createdAt: (options.createdAt ?? new Date()).toISOString(), nonce: randomBytes(12).toString('hex') };
      return signed(OFFLINE_REQUEST, content, options.by);
    },
    proof(licenseId: number, machineId: string, fileIssuedAt: string, options: { by?: typeof privateKey; nonce?: string } = {}) {
      const content = { v: 1, licenseId, machineId, installKeyId: keyId, fileIssuedAt, deactivatedAt: new Date().toISOString(), nonce: options.nonce ?? randomBytes(12).toString('hex') };
      return signed(DEACTIVATION_PROOF, content, options.by);
    },
  };
}
