/**
 * A full disk under the SQLite database: a write is answered 507 ERR_DISK_FULL (not a 500), the log
 * names the cause, nothing of the refused write is stored, and writes work again once there is room.
 * On a small tmpfs of its own, which needs root (mount); skipped elsewhere.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/platform/db/database.ts';
import { buildTestApp, expectError, loggedIn, testConfig } from './harness.ts';
import { insertProduct } from './licensing-fixtures.ts';

const isRoot = process.getuid?.() === 0;
const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-disk-full-'));
let mounted = false;

beforeAll(() => {
  if (!isRoot) return;
  mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mountPoint]).status === 0;
});
afterAll(() => {
  if (mounted) spawnSync('umount', [mountPoint]);
  fs.rmSync(mountPoint, { recursive: true, force: true });
});

/** Fills the file system with one file until it is full; answers the file, to delete for room again. */
function fillDisk(dir: string): string {
  const filler = path.join(dir, 'filler');
  const handle = fs.openSync(filler, 'w');
  const block = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) fs.writeSync(handle, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
  // What is left is smaller than a block: fill it byte by byte to the last one.
  try {
    for (;;) fs.writeSync(handle, block.subarray(0, 512));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    fs.closeSync(handle);
  }
  return filler;
}

describe.skipIf(!isRoot)('a full disk [sqlite]', () => {
  it('answers 507 ERR_DISK_FULL with the cause in the log, writes nothing half, and writes again once there is room', async () => {
    expect(mounted, 'mount -t tmpfs failed').toBe(true);
    const file = path.join(mountPoint, 'data', 'license-manager.db');
    const config = { kind: 'sqlite' as const, file };
    const database = openDatabase(config);
    let log = '';
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        log += chunk.toString();
        done();
      },
    });
    const app = await buildTestApp(testConfig(config, { env: { LOG_LEVEL: 'warn' } }), database, logStream);
    try {
      const { cookie } = await loggedIn(app, 'ADMIN');
      const product = await insertProduct(app);
      const createTans = () => app.inject({ method: 'POST', url: '/api/tans', query: { count: '500' }, headers: { cookie }, payload: { productId: product.id, licenseCount: 1 } });
      expect((await createTans()).statusCode).toBe(201);
      const countTans = async () => (await app.ctx.db.selectFrom('tans').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow()).count;
      const before = Number(await countTans());

      // The write-ahead log keeps its size once written: emptied first, so that a write needs new room.
      const other = new DatabaseSync(file);
      other.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      other.close();
      const filler = fillDisk(mountPoint);
      for (let attempt = 0; attempt < 3; attempt++) {
        const refused = await createTans();
        expectError(refused, 507, 'ERR_DISK_FULL');
      }
      expect(log).toMatch(/disk of the database is full/);
      expect(log).not.toMatch(/cannot rollback/);
      expect(Number(await countTans())).toBe(before);

      fs.rmSync(filler);
      const again = await createTans();
      expect(again.statusCode, again.body).toBe(201);
      expect(Number(await countTans())).toBe(before + 500);
    } finally {
      await app.close();
      await database.close();
    }
  });
});
