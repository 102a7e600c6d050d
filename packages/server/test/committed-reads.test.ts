/**
 * The embedded database's synchronous committed reads (database.ts, committedReader): the last
 * committed state, on whichever connection serves them, never a transaction's uncommitted writes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { committedReader, openDatabase, type Database } from '../src/platform/db/database.ts';

const COUNT = 'select count(*) as n from scratch';
const opened: { database: Database; dir?: string }[] = [];

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
});
