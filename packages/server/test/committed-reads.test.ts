/**
 * The embedded database's synchronous committed reads (database.ts, committedReader): the last
 * committed state, on whichever connection serves them, never a transaction's uncommitted writes.
 */
import fs from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { committedReader, openDatabase, type Database } from '../src/platform/db/database.ts';

const COUNT = 'select count(*) as n from scratch';
const opened: { database: Database; dir?: string }[] = [];

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Another process's connection to the same file (the CLI, a second server, the sqlite3 shell). */
function foreignConnection(): DatabaseSync {
  const file = path.join(opened.at(-1)!.dir!, 'test.db');
  const connection = new DatabaseSync(file);
  connection.exec('PRAGMA busy_timeout = 5000');
  return connection;
}

async function open(file: 'file' | ':memory:'): Promise<Database> {
  const dir = file === 'file' ? fs.mkdtempSync(path.join(os.tmpdir(), 'lm-reads-')) : undefined;
  const database = openDatabase({ kind: 'sqlite', file: dir ? path.join(dir, 'test.db') : ':memory:' });
  opened.push({ database, dir });
  await sql`create table scratch (id integer primary key)`.execute(database.db);
  return database;
}

const rowsSeen = (database: Database) => (committedReader(database.db)!(COUNT, []) as { n: number }[])[0].n;

afterEach(async () => {
  for (const { database, dir } of opened.splice(0)) {
    await database.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('committed reads on the embedded database', () => {
  it('see what was committed, and not what a transaction under way has written', async () => {
    const database = await open('file');
    await sql`insert into scratch (id) values (1)`.execute(database.db);
    expect(rowsSeen(database)).toBe(1);
    await database.db.transaction().execute(async (trx) => {
      await sql`insert into scratch (id) values (2)`.execute(trx);
      // The transaction holds the main connection between its steps: the read must not see its row.
      expect(rowsSeen(database)).toBe(1);
      await sql`insert into scratch (id) values (3)`.execute(trx);
      expect(rowsSeen(database)).toBe(1);
    });
    expect(rowsSeen(database)).toBe(3);
  });

  it('see nothing of a transaction that was rolled back', async () => {
    const database = await open('file');
    await expect(
      database.db.transaction().execute(async (trx) => {
        await sql`insert into scratch (id) values (1)`.execute(trx);
        expect(rowsSeen(database)).toBe(0);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(rowsSeen(database)).toBe(0);
  });

  it('on a memory database, take their turn while a transaction holds its one connection', async () => {
    const database = await open(':memory:');
    await sql`insert into scratch (id) values (1)`.execute(database.db);
    expect(rowsSeen(database)).toBe(1);
    await database.db.transaction().execute(async (trx) => {
      await sql`insert into scratch (id) values (2)`.execute(trx);
      expect(committedReader(database.db)).toBeUndefined();
    });
    expect(rowsSeen(database)).toBe(2);
  });

  it('are never offered inside a transaction, whose reads must see its own writes', async () => {
    const database = await open('file');
    await database.db.transaction().execute(async (trx) => {
      expect(committedReader(trx)).toBeUndefined();
    });
  });

  // Reads of one turn of the event loop share one read transaction (sqlite-adapter.ts): these tests
  // pin down that sharing it never shows a state older than what this process has written.
  it("see the process's own writes at once, although the turn's reads share one read transaction", async () => {
    const database = await open('file');
    expect(rowsSeen(database)).toBe(0);
    await sql`insert into scratch (id) values (1)`.execute(database.db);
    expect(rowsSeen(database)).toBe(1);
    await database.db.transaction().execute(async (trx) => {
      await sql`insert into scratch (id) values (2)`.execute(trx);
      // Served by the second connection, whose snapshot begins now.
      expect(rowsSeen(database)).toBe(1);
    });
    // Still the same turn: the second connection's snapshot is from before the commit, and must not serve this read.
    await database.db.transaction().execute(async () => {
      expect(rowsSeen(database)).toBe(2);
    });
    expect(rowsSeen(database)).toBe(2);
  });

  it("see another process's commit from the next turn on, and hold no lock past the turn", async () => {
    const database = await open('file');
    const foreign = foreignConnection();
    try {
      expect(rowsSeen(database)).toBe(0);
      foreign.exec('insert into scratch (id) values (1)');
      // The turn's snapshot: what a request a moment earlier saw.
      expect(rowsSeen(database)).toBe(0);
      await nextTurn();
      expect(rowsSeen(database)).toBe(1);
      await nextTurn();
      // No read transaction is left open: a checkpoint can empty the whole log.
      const checkpoint = foreign.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as { busy: number; log: number };
      expect(checkpoint).toMatchObject({ busy: 0, log: 0 });
    } finally {
      foreign.close();
    }
  });

  it('leave nothing behind when the database closes in the middle of a turn', async () => {
    const database = await open('file');
    expect(rowsSeen(database)).toBe(0);
    await database.close();
    fs.rmSync(opened.pop()!.dir!, { recursive: true, force: true });
    // The turn's end finds the read transaction gone with its connection: nothing throws.
    await nextTurn();
    await nextTurn();
  });
});
