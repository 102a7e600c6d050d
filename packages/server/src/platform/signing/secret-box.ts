import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';

/**
 * Encrypts a secret (the signing private key) at rest with SECRET_KEY: AES-256-GCM under a key that
 * scrypt derives from SECRET_KEY and a random salt. Stored as
 * `aes-256-gcm:<salt>:<iv>:<tag>:<ciphertext>` (base64url parts).
 */
const PREFIX = 'aes-256-gcm';

function deriveKey(secretKey: string, salt: Buffer): Buffer {
  return scryptSync(secretKey, salt, 32, { N: 16384, r: 8, p: 1 });
}

export function isEncryptedSecret(stored: string): boolean {
  return stored.startsWith(`${PREFIX}:`);
}

export function encryptSecret(plaintext: string, secretKey: string): string {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(secretKey, salt), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [PREFIX, salt, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join(':');
}

export class SecretKeyError extends Error {}

/** The plaintext, or SecretKeyError when SECRET_KEY is missing or not the one that encrypted it. */
export function decryptSecret(stored: string, secretKey: string | undefined): string {
  if (!isEncryptedSecret(stored)) return stored;
  if (!secretKey) throw new SecretKeyError('The signing key is encrypted: set SECRET_KEY to the value it was encrypted with');
  const [, salt, iv, tag, ciphertext] = stored.split(':').map((part) => Buffer.from(part, 'base64url'));
  try {
    const decipher = createDecipheriv('aes-256-gcm', deriveKey(secretKey, salt), iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretKeyError('The signing key cannot be decrypted: SECRET_KEY is not the value it was encrypted with');
  }
}
