import { createHash, createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { LICENSE_SIGNATURE_ALGORITHM, type PublicKeyInfo } from '@lm/contract/license-file';
import type { Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/database.ts';
import { decryptSecret, encryptSecret, isEncryptedSecret } from './secret-box.ts';
import { findActiveKey, insertActiveKey, listKeys, updatePrivateKey, withKeyLock, type SigningKeyRow } from './repo.ts';

/** How often a running instance looks for a key rotated by the CLI or another instance. */
const RELOAD_INTERVAL_MS = 60_000;

export interface Signer {
  kid: string;
  sign(message: Uint8Array): Promise<string>;
}

export interface PublishedKey extends PublicKeyInfo {
  alg: typeof LICENSE_SIGNATURE_ALGORITHM;
  createdAt: string;
}

/** A key id that follows from the public key: the first 16 hex digits of the SHA-256 of its SPKI DER. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
}

function newKeyRow(secretKey: string | undefined): Omit<SigningKeyRow, 'active'> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return {
    kid: keyIdOf(publicKey),
    algorithm: LICENSE_SIGNATURE_ALGORITHM,
    public_key_pem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    private_key: secretKey ? encryptSecret(privatePem, secretKey) : privatePem,
    created_at: new Date().toISOString(),
  };
}

/** `npm run cli -- keys:rotate`: a new signing key; old public keys stay published. */
export async function rotateSigningKey(database: Database, config: Pick<Config, 'secretKey'>): Promise<string> {
  const row = newKeyRow(config.secretKey);
  await withKeyLock(database, (trx) => insertActiveKey(trx, row));
  return row.kid;
}

/**
 * The signing key of one running app: created on first start, its private key decrypted once and
 * kept in memory, reloaded when another process rotates the keys.
 */
export class SigningKeyRing {
  private readonly database: Database;
  private readonly secretKey: string | undefined;
  private active: { kid: string; key: KeyObject } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private starting: Promise<void> | undefined;

  constructor(database: Database, secretKey: string | undefined) {
    this.database = database;
    this.secretKey = secretKey;
  }

  /** Starts once, however many modules ask. */
  ready(): Promise<void> {
    this.starting ??= this.start();
    return this.starting;
  }

  /** Creates the first key if there is none, encrypts plaintext keys once SECRET_KEY is set, loads the active key. */
  private async start(): Promise<void> {
    await withKeyLock(this.database, async (trx) => {
      const rows = await listKeys(trx);
      if (!rows.some((row) => row.active)) await insertActiveKey(trx, newKeyRow(this.secretKey));
      if (this.secretKey) {
        for (const row of rows.filter((candidate) => !isEncryptedSecret(candidate.private_key))) {
          await updatePrivateKey(trx, row.kid, encryptSecret(row.private_key, this.secretKey));
        }
      }
    });
    await this.reload();
    this.timer = setInterval(() => {
      this.reload().catch(() => undefined);
    }, RELOAD_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async reload(): Promise<void> {
    const row = await findActiveKey(this.database.db);
    if (!row) throw new Error('No active signing key');
    if (row.kid === this.active?.kid) return;
    this.active = { kid: row.kid, key: createPrivateKey(decryptSecret(row.private_key, this.secretKey)) };
  }

  /** The active key as one unit: its id and a signer bound to it, unaffected by a later rotation. */
  current(): Signer {
    const active = this.active;
    if (!active) throw new Error('The signing keys are not loaded yet');
    return {
      kid: active.kid,
      // The base64 Ed25519 signature, computed off the event loop (libuv thread pool).
      sign: (message) =>
        new Promise((resolve, reject) => {
          sign(null, message, active.key, (error, signature) => (error ? reject(error) : resolve(signature.toString('base64'))));
        }),
    };
  }

  async published(): Promise<PublishedKey[]> {
    const rows = await listKeys(this.database.db);
    return rows.map((row) => ({ kid: row.kid, alg: LICENSE_SIGNATURE_ALGORITHM, publicKeyPem: row.public_key_pem, createdAt: row.created_at }));
  }
}

const rings = new WeakMap<AppContext, SigningKeyRing>();

/** The key ring of an app; modules `await signingKeys(ctx).ready()` when they register. */
export function signingKeys(ctx: AppContext): SigningKeyRing {
  let ring = rings.get(ctx);
  if (!ring) {
    ring = new SigningKeyRing(ctx, ctx.config.secretKey);
    rings.set(ctx, ring);
  }
  return ring;
}
