/**
 * The yardstick of DESIGN.md section 9 for the desktop protocol: a bare Fastify route that does the
 * least work the same refresh can do. It parses the JSON body, looks the machine's license up with
 * one indexed node:sqlite query, answers 304 when If-None-Match is the license's stored ETag, and
 * else signs the stored payload once with Ed25519. Like every protocol answer it carries a
 * License-Server-Time token, signed at most once per second.
 *
 * Its table is the product's `licenses` table, same schema and indexes (copied from the seeded
 * database's own CREATE statements), same rows, plus a column the product does not have: the ETag
 * of the license's file. The file's payload (`enc`, base64 of a payload shaped like the product's)
 * lies in a table of its own keyed by the license, read only to sign: kept in the licenses rows, it
 * made them five times as large, and the 304's lookup slower than the product's (130-250 against
 * 240-340 µs of CPU per request on the loaded machine). It all lives in a database file of its own
 * beside the seeded one, built once and kept with it.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  encodeServerTime,
  formatJsonFile,
  LICENSE_FILE_FORMAT_VERSION,
  LICENSE_SIGNATURE_ALGORITHM,
  SERVER_TIME_HEADER,
  serverTimeMessage,
  signedMessage,
  type LicensePayload,
} from '@lm/contract/license-file';
import { licenseFileTag } from '../../packages/server/src/modules/license-files/file-tag.ts';

const KID = 'yardstick';
const DAY_MS = 86_400_000;

/**
 * Builds the yardstick's database at `file` from the seeded product database `source` (unless it
 * exists): the licenses table as the product defines it, its rows, and each row's payload and ETag.
 */
export function buildYardstickDatabase(source: string, file: string): void {
  if (fs.existsSync(file)) return;
  const partial = `${file}.partial`;
  fs.rmSync(partial, { force: true });
  // Its foreign keys name tables that only the product's database has.
  const db = new DatabaseSync(partial, { enableForeignKeyConstraints: false });
  db.exec('PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF');
  db.exec(`ATTACH DATABASE '${source.replaceAll("'", "''")}' AS product`);
  const schema = db
    .prepare("SELECT type, sql FROM product.sqlite_master WHERE tbl_name = 'licenses' AND sql IS NOT NULL ORDER BY type DESC")
    .all() as { type: string; sql: string }[];
  db.exec('BEGIN');
  // Each license's payload and ETag first (the payload's own table), then the licenses with their ETags.
  db.exec('CREATE TABLE license_payloads (license_id INTEGER PRIMARY KEY, enc TEXT NOT NULL, etag TEXT NOT NULL)');
  const insertPayload = db.prepare('INSERT INTO license_payloads (license_id, enc, etag) VALUES (?, ?, ?)');
  const features = new Map<number, string[]>();
  for (const row of db
    .prepare('SELECT pf.product_id, f.name FROM product.product_features pf JOIN product.features f ON f.id = pf.feature_id ORDER BY f.name')
    .all() as { product_id: number; name: string }[]) {
    features.set(row.product_id, [...(features.get(row.product_id) ?? []), row.name]);
  }
  const issuedAt = new Date();
  const rows = db
    .prepare(
      `SELECT l.id, l.kind, l.machine_id, l.permanent, l.valid_until, l.free_updates_until, p.id AS product_id, p.name AS product_name, p.version,
              u.first_name, u.last_name, u.company, pol.type, pol.license_max_valid_days, pol.refetch_interval_seconds, pol.refetch_before_expiry_seconds
         FROM product.licenses l JOIN product.products p ON p.id = l.product_id JOIN product.users u ON u.id = l.owner_id
         JOIN product.license_policies pol ON pol.id = l.license_policy_id`,
    )
    .iterate() as Iterable<Record<string, string | number | null>>;
  for (const row of rows) {
    const payload: LicensePayload = {
      formatVersion: LICENSE_FILE_FORMAT_VERSION,
      licenseId: Number(row.id),
      kind: row.kind as LicensePayload['kind'],
      policyType: row.type as LicensePayload['policyType'],
      product: { id: Number(row.product_id), name: String(row.product_name), version: String(row.version) },
      features: features.get(Number(row.product_id)) ?? [],
      entitlements: Object.fromEntries((features.get(Number(row.product_id)) ?? []).map((name) => [name, true as const])),
      metadata: {},
      machineId: String(row.machine_id),
      owner: { name: `${row.first_name} ${row.last_name}`.trim(), company: row.company === null ? null : String(row.company) },
      issuedAt: issuedAt.toISOString(),
      expiresAt: row.type === 'PERPETUAL' ? null : new Date(issuedAt.getTime() + Number(row.license_max_valid_days) * DAY_MS).toISOString(),
      licenseValidUntil: row.permanent ? null : (row.valid_until as string | null),
      permanent: Boolean(row.permanent),
      freeUpdatesUntil: row.free_updates_until as string | null,
      refetchIntervalSeconds: Number(row.refetch_interval_seconds),
      refetchBeforeExpirySeconds: Number(row.refetch_before_expiry_seconds),
      serverCustomerId: null,
      kid: KID,
    };
    const enc = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64');
    insertPayload.run(Number(row.id), enc, licenseFileTag(enc, payload.issuedAt));
  }
  // The product's table as its migrations made it, plus the ETag, and its indexes once filled.
  db.exec(schema.find((entry) => entry.type === 'table')!.sql);
  db.exec('ALTER TABLE licenses ADD COLUMN etag TEXT');
  db.exec('INSERT INTO main.licenses SELECT l.*, p.etag FROM product.licenses l JOIN license_payloads p ON p.license_id = l.id ORDER BY l.id');
  for (const index of schema.filter((entry) => entry.type === 'index')) db.exec(index.sql);
  db.exec('COMMIT');
  db.exec('CREATE TABLE yardstick_products AS SELECT id, name FROM product.products');
  db.exec('DETACH DATABASE product');
  // As the product's database: in WAL mode a read takes no file lock (a rollback journal's costs two system calls a statement).
  db.exec('PRAGMA journal_mode = WAL');
  db.close();
  fs.renameSync(partial, file);
}

/** The License-Server-Time token of the current second, signed once per second (synchronously: once a second costs nothing). */
function serverTimeHeader(key: KeyObject): () => string {
  let second = -1;
  let token = '';
  return () => {
    const now = Math.floor(Date.now() / 1000);
    if (now !== second) {
      const enc = encodeServerTime({ t: now, kid: KID });
      token = `${enc}.${sign(null, serverTimeMessage(enc), key).toString('base64')}`;
      second = now;
    }
    return token;
  };
}

/**
 * The yardstick's handler of `POST /license` `{ machineId, product }`. The signature runs in libuv's
 * thread pool as the product's does (keys.ts); BENCH_YARDSTICK_SIGN=sync signs on the event loop
 * instead. Each handler has its own connection to the yardstick's database.
 */
export function yardstickHandler(file: string): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  const db = new DatabaseSync(file);
  // The product's own connection settings (sqlite-adapter.ts).
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536; PRAGMA mmap_size = 1073741824');
  const productIds = new Map<string, number>();
  for (const row of db.prepare('SELECT id, name FROM yardstick_products').all() as { id: number; name: string }[]) productIds.set(row.name, row.id);
  const lookup = db.prepare('SELECT id, etag FROM licenses WHERE machine_id = ? AND product_id = ?');
  const payloadOf = db.prepare('SELECT enc FROM license_payloads WHERE license_id = ?');
  const { privateKey } = generateKeyPairSync('ed25519');
  const timeHeader = serverTimeHeader(privateKey);
  const signSync = process.env.BENCH_YARDSTICK_SIGN === 'sync';
  const signEnc = (enc: string): Promise<string> | string =>
    signSync
      ? sign(null, signedMessage(enc), privateKey).toString('base64')
      : new Promise((resolve, reject) => sign(null, signedMessage(enc), privateKey, (error, signature) => (error ? reject(error) : resolve(signature.toString('base64')))));
  // BENCH_YARDSTICK_EXTRA_US: the yardstick kept busy that much longer per request, to show how
  // much work beyond its own the targets' ratios leave room for (bench/scenarios/protocol.ts).
  const extraNs = BigInt(Math.round(Number(process.env.BENCH_YARDSTICK_EXTRA_US ?? 0) * 1000));
  return async (request, reply) => {
    if (extraNs > 0n) busyFor(extraNs);
    const body = request.body as { machineId?: unknown; product?: unknown };
    const row = lookup.get(String(body.machineId), productIds.get(String(body.product)) ?? -1) as { id: number; etag: string } | undefined;
    reply.header(SERVER_TIME_HEADER, timeHeader());
    if (!row) return reply.status(404).send({ code: 'ERR_NO_LICENSE' });
    if (request.headers['if-none-match'] === row.etag) return reply.status(304).header('etag', row.etag).send();
    const { enc } = payloadOf.get(row.id) as { enc: string };
    const sig = await signEnc(enc);
    return reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('etag', row.etag)
      .send(formatJsonFile({ enc, sig, alg: LICENSE_SIGNATURE_ALGORITHM, kid: KID }));
  };
}

function busyFor(nanoseconds: bigint): void {
  const end = process.hrtime.bigint() + nanoseconds;
  while (process.hrtime.bigint() < end);
}

/** The yardstick route on a bare Fastify server. */
export function registerYardstick(app: FastifyInstance, file: string): void {
  app.post('/license', yardstickHandler(file));
}
