/**
 * Faults of the SQLite database's storage that an operator must fix, each answered with a stable
 * code (never a 500), a log line that names the cause, nothing of the refused write stored, and
 * writes working again once the fault is gone:
 * - a full disk: 507 ERR_DISK_FULL, on a small tmpfs of its own;
 * - a database file the server may read but not write (a read-only mount; file modes would not do,
 *   since the tests run as root, who ignores them): 503 ERR_DATABASE_UNAVAILABLE while reads answer.
 * Both need root (mount); skipped elsewhere.
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
import { HANG_GUARD_MS } from './processes.ts';

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

describe.skipIf(!isRoot)('a read-only database file [sqlite]', () => {
  it('answers writes 503 with the cause in the log while reads go on, writes nothing, and writes again once it is writable', async () => {
    // The database is made on a writable folder, then served through a read-only bind mount of it
    // (as a volume mounted read-only, or a restored file the server's user may not write); the
    // folder's own mount stays writable, for the count below.
    const writable = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-read-only-'));
    const served = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-read-only-view-'));
    const mount = (...args: string[]) => expect(spawnSync('mount', args).status, `mount ${args.join(' ')}`).toBe(0);
    const countTans = () => {
      const reader = new DatabaseSync(path.join(writable, 'license-manager.db'), { readOnly: true });
      try {
        return Number(reader.prepare('select count(*) as count from tans').get()?.count);
      } finally {
        reader.close();
      }
    };
    let log = '';
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        log += chunk.toString();
        done();
      },
    });
    const serve = async (folder: string) => {
      const config = { kind: 'sqlite' as const, file: path.join(folder, 'license-manager.db') };
      const database = openDatabase(config);
      const app = await buildTestApp(testConfig(config, { env: { LOG_LEVEL: 'warn' } }), database, logStream);
      return { app, close: async () => { await app.close(); await database.close(); } };
    };
    const first = await serve(writable);
    const { cookie } = await loggedIn(first.app, 'ADMIN');
    const product = await insertProduct(first.app);
    await first.close();
    // A database in WAL mode opens read-only only with its WAL files there, which the last connection
    // to close deletes: a process killed while it had the file open leaves them, as a crash would.
    const opener = `const { DatabaseSync } = require('node:sqlite'); new DatabaseSync(process.argv[1]).prepare('select count(*) from tans').get(); process.kill(process.pid, 'SIGKILL');`;
    expect(spawnSync(process.execPath, ['-e', opener, path.join(writable, 'license-manager.db')], { timeout: HANG_GUARD_MS }).signal).toBe('SIGKILL');
    mount('--bind', writable, served);
    mount('-o', 'remount,ro,bind', served);
    const { app, close } = await serve(served);
    try {
      const createTans = () => app.inject({ method: 'POST', url: '/api/tans', query: { count: '50' }, headers: { cookie }, payload: { productId: product.id, licenseCount: 1 } });
      for (let attempt = 0; attempt < 3; attempt++) {
        const refused = await createTans();
        expectError(refused, 503, 'ERR_DATABASE_UNAVAILABLE');
        expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      }
      expect(log).toMatch(/the database cannot be written: its file or folder is read-only/);
      const products = await app.inject({ url: '/api/products', headers: { cookie } });
      expect(products.statusCode).toBe(200);
      expect(products.json<{ items: { id: number }[] }>().items.map((item) => item.id)).toContain(product.id);
      expect((await app.inject({ url: '/api/health' })).statusCode).toBe(200);
      expect(countTans()).toBe(0);

      mount('-o', 'remount,rw,bind', served);
      const again = await createTans();
      expect(again.statusCode, again.body).toBe(201);
      expect(countTans()).toBe(50);
    } finally {
      // Lazily: a file the closed database left open for a moment must not keep the mount busy.
      spawnSync('umount', ['--lazy', served]);
      await close();
      fs.rmSync(served, { recursive: true, force: true });
      fs.rmSync(writable, { recursive: true, force: true });
    }
  });
});
