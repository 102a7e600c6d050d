import { createHash, createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { LICENSE_SIGNATURE_ALGORITHM, type PublicKeyInfo } from '@lm/contract/license-file';
import type { Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/database.ts';
import { decryptSecret, encryptSecret, isEncryptedSecret } from './secret-box.ts';
import { activationOf, bySchedule, isPublished, keySchedule, signerAt, type ScheduledKey } from './key-schedule.ts';
import { insertKey, listKeys, retireKey, updatePrivateKey, withKeyLock, type NewKeyRow } from './repo.ts';

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

function newKeyRow(secretKey: string | undefined, activatesAt: Date): NewKeyRow {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const createdAt = new Date().toISOString();
  return {
    kid: keyIdOf(publicKey),
    algorithm: LICENSE_SIGNATURE_ALGORITHM,
    public_key_pem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    private_key: secretKey ? encryptSecret(privatePem, secretKey) : privatePem,
    created_at: createdAt,
    activates_at: activatesAt.getTime() < Date.parse(createdAt) ? createdAt : activatesAt.toISOString(),
  };
}

/** A refusal of a keys command, told to the operator in one line. */
export class KeyCommandError extends Error {}

/**
 * `npm run cli -- keys:rotate [--activate-at <time>]`: a new signing key, published at once, signing
 * from `activateAt` (default now) on every instance; old public keys stay published.
 */
export async function rotateSigningKey(database: Database, config: Pick<Config, 'secretKey'>, activateAt = new Date()): Promise<{ kid: string; activatesAt: string }> {
  const row = newKeyRow(config.secretKey, activateAt);
  await withKeyLock(database, (trx) => insertKey(trx, row));
  return { kid: row.kid, activatesAt: row.activates_at! };
}

/** `npm run cli -- keys:list`: every key and its state now. */
export async function listSigningKeys(database: Database, now = Date.now()): Promise<ScheduledKey[]> {
  return keySchedule(await listKeys(database.db), now);
}

/**
 * `npm run cli -- keys:retire <kid> [--unpublish-at <time>]`: the key never signs again (a staged key
 * is called off), so no file of it is confirmed by a refresh any more; it stays published until
 * `unpublishAt` (default: for good), for the files it signed to keep verifying. The key that signs
 * now is refused: rotate first.
 */
export async function retireSigningKey(database: Database, kid: string, unpublishAt: Date | null, now = new Date()): Promise<ScheduledKey> {
  return withKeyLock(database, async (trx) => {
    const rows = await listKeys(trx);
    const row = rows.find((candidate) => candidate.kid === kid);
    if (!row) throw new KeyCommandError(`No signing key ${kid}; keys:list shows them.`);
    if (signerAt(rows, now.getTime())?.kid === kid) throw new KeyCommandError(`${kid} signs now; run keys:rotate first and retire it once the new key signs.`);
    await retireKey(trx, kid, row.retired_at ?? now.toISOString(), unpublishAt?.toISOString() ?? null);
    return keySchedule(await listKeys(trx), now.getTime()).find((key) => key.kid === kid)!;
  });
}

interface LoadedKey {
  kid: string;
  activatesAt: number;
  key: KeyObject;
}

/**
 * The signing keys of one running app: the first created on first start, private keys decrypted once
 * and kept in memory with their activation times, reloaded when another process rotates or retires
 * keys. Which key signs is decided per request from the times (a cached choice until the next
 * activation), so a staged key signs from its moment on every instance, also without the database.
 */
export class SigningKeyRing {
  private readonly database: Database;
  private readonly secretKey: string | undefined;
  /** Keys that may sign, newest activation first. */
  private schedule: LoadedKey[] = [];
  private chosen: { signer: Signer; until: number } | undefined;
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

  /** Creates a key if none signs now, encrypts plaintext keys once SECRET_KEY is set, loads the keys. */
  private async start(): Promise<void> {
    await withKeyLock(this.database, async (trx) => {
      const rows = await listKeys(trx);
      if (!signerAt(rows, Date.now())) await insertKey(trx, newKeyRow(this.secretKey, new Date()));
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
    const rows = (await listKeys(this.database.db)).filter((row) => !row.retired_at).sort(bySchedule);
    if (!rows.length) throw new Error('No signing key');
    const loaded = new Map(this.schedule.map((entry) => [entry.kid, entry.key]));
    this.schedule = rows.map((row) => ({
      kid: row.kid,
      activatesAt: activationOf(row),
      key: loaded.get(row.kid) ?? createPrivateKey(decryptSecret(row.private_key, this.secretKey)),
    }));
    this.chosen = undefined;
  }

  /** The key signing now as one unit: its id and a signer bound to it, unaffected by a later rotation. */
  current(): Signer {
    const now = Date.now();
    if (this.chosen && now < this.chosen.until) return this.chosen.signer;
    // Before every key's start (a clock behind the first key's creation, the demo replaying its history)
    // the first key signs, as it did before keys could be staged.
    const active = this.schedule.find((entry) => entry.activatesAt <= now) ?? this.schedule.at(-1);
    if (!active) throw new Error('The signing keys are not loaded yet');
    // The choice holds until the next staged key starts.
    const until = Math.min(...this.schedule.filter((entry) => entry.activatesAt > now).map((entry) => entry.activatesAt));
    this.chosen = { signer: signerFor(active), until };
    return this.chosen.signer;
  }

  /** The keys `GET /api/client/v1/keys` lists: every key until its unpublish time, staged ones included. */
  async published(): Promise<PublishedKey[]> {
    const now = Date.now();
    const rows = (await listKeys(this.database.db)).filter((row) => isPublished(row, now));
    return rows.map((row) => ({ kid: row.kid, alg: LICENSE_SIGNATURE_ALGORITHM, publicKeyPem: row.public_key_pem, createdAt: row.created_at }));
  }
}

function signerFor(active: LoadedKey): Signer {
  return {
    kid: active.kid,
    // The base64 Ed25519 signature, computed off the event loop (libuv thread pool).
    sign: (message) =>
      new Promise((resolve, reject) => {
        sign(null, message, active.key, (error, signature) => (error ? reject(error) : resolve(signature.toString('base64'))));
      }),
  };
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
