/**
 * The embedded database's WAL checkpoints in a thread (sqlite-checkpoints.ts): the app's connection
 * never copies the WAL into the file inside a commit, the thread keeps the WAL short, and the
 * connection checkpoints itself again should the thread be gone.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { committedReader, openDatabase, type Database } from '../src/platform/db/database.ts';
import { checkpointThread, SQLITE_AUTOCHECKPOINT_PAGES, RESTART_AFTER_PAGES } from '../src/platform/db/sqlite-checkpoints.ts';

const opened: { database: Database; dir: string }[] = [];
/** A guard against a WAL never started afresh, not a budget: a busy machine may take long. */
const UNTIL_DONE = { timeout: 120_000, interval: 50 };
const PAGE = 4096;

function open(warnings: string[] = []): { database: Database; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-checkpoints-'));
  const file = path.join(dir, 'test.db');
  const log = { warn: (_details: object, message: string) => void warnings.push(message), info: () => undefined };
  const database = openDatabase({ kind: 'sqlite', file }, { log });
  opened.push({ database, dir });
  return { database, file };
}

/**
 * The pages the WAL holds now: mxFrame of the WAL index's header (offset 16 of the -shm file, in the
 * machine's byte order; sqlite.org/walformat.html). Read from the file so that nothing checkpoints.
 */
function walPages(file: string): number {
  const header = Buffer.alloc(48);
  const descriptor = fs.openSync(`${file}-shm`, 'r');
  try {
    fs.readSync(descriptor, header, 0, 48, 0);
  } finally {
    fs.closeSync(descriptor);
  }
  return os.endianness() === 'LE' ? header.readUInt32LE(16) : header.readUInt32BE(16);
}

/** The WAL's pages after one more small write: the write that starts the WAL afresh once it may. */
async function walPagesAfterAWrite(database: Database, file: string): Promise<number> {
  await sql`insert into blobs (data) values (x'00')`.execute(database.db);
  return walPages(file);
}

async function autoCheckpointPages(database: Database): Promise<number> {
  const { rows } = await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(database.db);
  return rows[0].wal_autocheckpoint;
}

/** Writes more than RESTART_AFTER_PAGES pages to the WAL, in commits of about 1 MB each. */
async function writeLongWal(database: Database): Promise<number> {
  await sql`create table if not exists blobs (id integer primary key, data blob not null)`.execute(database.db);
  const commits = Math.ceil((RESTART_AFTER_PAGES * 1.5 * PAGE) / 1_000_000);
  for (let i = 0; i < commits; i++) await sql`insert into blobs (data) values (randomblob(1000000))`.execute(database.db);
  return commits;
}

afterEach(async () => {
  for (const { database, dir } of opened.splice(0)) {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('WAL checkpoints of the embedded database', () => {
  it('are not done by the app’s connection: the thread’s let the next write start the WAL afresh, losing nothing', async () => {
    const { database, file } = open();
    expect(await autoCheckpointPages(database)).toBe(0);
    const rows = await writeLongWal(database);
    expect(walPages(file)).toBeGreaterThan(RESTART_AFTER_PAGES);
    // Once the thread has copied the pages into the file, the next write starts the WAL afresh.
    await expect.poll(() => walPagesAfterAWrite(database, file), UNTIL_DONE).toBeLessThan(10);
    const other = new DatabaseSync(file, { readOnly: true });
    expect((other.prepare('select count(*) as n from blobs where length(data) > 1').get() as { n: number }).n).toBe(rows);
    other.close();
  });

  it('start the WAL afresh under writes that never pause', async () => {
    const { database, file } = open();
    await sql`create table blobs (id integer primary key, data blob not null)`.execute(database.db);
    // Each write begins as soon as the last one committed: SQLite would start the WAL afresh only if
    // a checkpoint had copied all of it just then. The bound guards against a WAL that never restarts.
    let longest = 0;
    let restarted = false;
    for (let written = 0; !restarted && written < RESTART_AFTER_PAGES * 20; written += 25) {
      await sql`insert into blobs (data) values (randomblob(100000))`.execute(database.db);
      const pages = walPages(file);
      restarted = pages < longest;
      longest = Math.max(longest, pages);
    }
    expect(restarted).toBe(true);
    expect(longest).toBeLessThan(RESTART_AFTER_PAGES * 20);
  });

  it('wait for a reader of an old state, and let the WAL start afresh once it is done', async () => {
    const { database, file } = open();
    await writeLongWal(database);
    await expect.poll(() => walPagesAfterAWrite(database, file), UNTIL_DONE).toBeLessThan(10);
    const reader = new DatabaseSync(file, { readOnly: true });
    reader.exec('BEGIN');
    const before = (reader.prepare('select count(*) as n from blobs where length(data) > 1').get() as { n: number }).n;
    const written = await writeLongWal(database);
    // The thread copies what it may, and keeps the pages the reader's state still needs.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await walPagesAfterAWrite(database, file)).toBeGreaterThan(RESTART_AFTER_PAGES);
    expect((reader.prepare('select count(*) as n from blobs where length(data) > 1').get() as { n: number }).n).toBe(before);
    reader.exec('COMMIT');
    await expect.poll(() => walPagesAfterAWrite(database, file), UNTIL_DONE).toBeLessThan(10);
    expect((reader.prepare('select count(*) as n from blobs where length(data) > 1').get() as { n: number }).n).toBe(before + written);
    reader.close();
  });

  it('fall back to the connection when the thread is gone, and a database opened later gets a new thread', async () => {
    const warnings: string[] = [];
    const first = open(warnings);
    expect(await autoCheckpointPages(first.database)).toBe(0);
    await checkpointThread.crashForTest();
    await expect.poll(() => autoCheckpointPages(first.database), UNTIL_DONE).toBe(SQLITE_AUTOCHECKPOINT_PAGES);
    expect(warnings).toContain('the SQLite checkpoint thread is gone; the database connection checkpoints itself again');

    const second = open();
    expect(await autoCheckpointPages(second.database)).toBe(0);
    await writeLongWal(second.database);
    await expect.poll(() => walPagesAfterAWrite(second.database, second.file), UNTIL_DONE).toBeLessThan(10);
  });

  it('leave every commit in the database file itself once closed, with no WAL behind', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-checkpoints-'));
    const file = path.join(dir, 'test.db');
    try {
      const database = openDatabase({ kind: 'sqlite', file });
      await sql`create table t (id integer primary key, data text not null)`.execute(database.db);
      for (let i = 0; i < 100; i++) await sql`insert into t (data) values (${'x'.repeat(100)})`.execute(database.db);
      // A read on the read-only connection, which closes without copying the WAL into the file.
      expect(committedReader(database.db)!('select count(*) as n from t', [])).toEqual([{ n: 100 }]);
      await database.close();
      expect(fs.readdirSync(dir)).toEqual(['test.db']);
      // What an operator's copy of the stopped server's database file holds.
      const copy = path.join(dir, 'copy.db');
      fs.copyFileSync(file, copy);
      const copied = new DatabaseSync(copy, { readOnly: true });
      expect(copied.prepare('select count(*) as n from t').get()).toEqual({ n: 100 });
      copied.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('let the process end when its work is done, whether it closed the database or not', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-checkpoints-'));
    const module = pathToFileURL(path.resolve(import.meta.dirname, '../src/platform/db/database.ts')).href;
    try {
      for (const close of [true, false]) {
        const script = `
          import { sql } from 'kysely';
          const { openDatabase } = await import(${JSON.stringify(module)});
          const database = openDatabase({ kind: 'sqlite', file: ${JSON.stringify(path.join(dir, `${close}.db`))} });
          await sql\`create table t (id integer primary key)\`.execute(database.db);
          await sql\`insert into t (id) values (1)\`.execute(database.db);
          ${close ? 'await database.close();' : ''}
          console.log('done');`;
        const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: path.resolve(import.meta.dirname, '..'), stdio: ['ignore', 'pipe', 'inherit'] });
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
        expect({ close, code, output: output.trim() }).toEqual({ close, code: 0, output: 'done' });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
