/**
 * The install key (DESIGN.md section 6h): an Ed25519 key pair made on first use and kept in the
 * store folder (`install-key`, mode 0600), the identity of this installation. Only its public key
 * leaves the machine, inside request files; it signs requests and deactivation proofs. Node only.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The file of the install key in the store folder (no .json/.lic: not a license file). */
export const INSTALL_KEY_FILE_NAME = 'install-key';

export interface InstallKey {
  /** The public key, SPKI DER in base64 (what a request carries). */
  publicKey: string;
  /** SHA-256 (hex) of the SPKI bytes: what a bound license file names as `installKeyId`. */
  keyId: string;
  /** Signs `prefix + enc`; base64. */
  sign(message: string): string;
}

function installKeyOf(privateKey: KeyObject): InstallKey {
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  return {
    publicKey: spki.toString('base64'),
    keyId: createHash('sha256').update(spki).digest('hex'),
    sign: (message) => sign(null, Buffer.from(message, 'utf8'), privateKey).toString('base64'),
  };
}

/** The install key kept in `directory`, made (mode 0600) on first use. */
export async function installKey(directory: string): Promise<InstallKey> {
  const file = path.join(directory, INSTALL_KEY_FILE_NAME);
  const pem = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (pem) return installKeyOf(createPrivateKey(pem));
  await mkdir(directory, { recursive: true });
  const { privateKey } = generateKeyPairSync('ed25519');
  // 'wx': two first uses at once keep one key, the loser reads the winner's.
  const written = await writeFile(file, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, { mode: 0o600, flag: 'wx' }).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') return false;
      throw error;
    },
  );
  if (!written) return installKey(directory);
  await chmod(file, 0o600);
  return installKeyOf(privateKey);
}

const armored = (label: string, prefix: string, content: object, key: InstallKey) => {
  const enc = Buffer.from(JSON.stringify(content), 'utf8').toString('base64');
  const body = `${enc}.${key.sign(prefix + enc)}`.replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
};

/** The request file an offline machine hands to the portal: "license `product` for `machineId`, to this install key". */
export function licenseRequest(key: InstallKey, request: { product: string; version?: string; machineId: string; now?: Date }): string {
  const content = {
    v: 1,
    product: request.product,
    version: request.version ?? null,
    machineId: request.machineId,
    installKey: key.publicKey,
    createdAt: (request.now ?? new Date()).toISOString(),
    nonce: randomBytes(16).toString('hex'),
  };
  return armored('LICENSE REQUEST', 'request/', content, key);
}

/** The proof that this installation retired the file of `licenseId` (issued at `fileIssuedAt`). */
export function deactivationProof(key: InstallKey, proof: { licenseId: number; machineId: string; fileIssuedAt: string; now?: Date }): string {
  const content = {
    v: 1,
    licenseId: proof.licenseId,
    machineId: proof.machineId,
    installKeyId: key.keyId,
    fileIssuedAt: proof.fileIssuedAt,
    deactivatedAt: (proof.now ?? new Date()).toISOString(),
    nonce: randomBytes(16).toString('hex'),
  };
  return armored('DEACTIVATION PROOF', 'deactivation/', content, key);
}
