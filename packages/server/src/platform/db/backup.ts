/**
 * Backup and restore of the embedded SQLite database (`npm run cli -- backup|restore`).
 *
 * A backup is `VACUUM INTO` a new file: one read transaction, so the copy is the database as it was
 * at one moment, whatever the running server writes meanwhile (WAL mode lets it go on writing).
 * SQLite's page-by-page backup API would restart from the beginning after every write of another
 * process and might never finish on a busy server.
 *
 * A restore needs the database to itself: it takes SQLite's exclusive lock, which fails while any
 * other connection (a running server, another command) has the file open, since every connection in
 * WAL mode holds a shared lock for as long as it is open. The replaced database is kept beside it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { knownMigrations } from './migrate.ts';
import { createPrivateFile, makePrivateDir, PRIVATE_FILE_MODE } from '../private-files.ts';

export class BackupError extends Error {}

export interface BackupSummary {
  file: string;
  bytes: number;
  /** The newest migration of the copied database: the schema version it needs. */
  migration: string | null;
}

const SQLITE_HEADER = 'SQLite format 3\0';

function isSqliteFile(file: string): boolean {
  const handle = fs.openSync(file, 'r');
  try {
    const header = Buffer.alloc(SQLITE_HEADER.length);
    fs.readSync(handle, header, 0, header.length, 0);
    return header.toString('latin1') === SQLITE_HEADER;
  } finally {
    fs.closeSync(handle);
  }
}

/** Checks a copy: a SQLite file that passes quick_check and holds this application's migrations. */
function inspectCopy(file: string): BackupSummary {
  if (!isSqliteFile(file)) throw new BackupError(`${file} is not a SQLite database`);
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const check = db.prepare('PRAGMA quick_check').all() as { quick_check: string }[];
    if (check[0]?.quick_check !== 'ok') throw new BackupError(`${file} is damaged: ${check.map((row) => row.quick_check).join('; ')}`);
    const table = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
    if (!table) throw new BackupError(`${file} is not a database of the license manager (it has no migrations table)`);
    const newest = db.prepare('select name from kysely_migration order by name desc limit 1').get() as { name: string } | undefined;
    return { file, bytes: fs.statSync(file).size, migration: newest?.name ?? null };
  } finally {
    db.close();
  }
}

function fsyncFile(file: string): void {
  const handle = fs.openSync(file, 'r+');
  try {
    fs.fsyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
}

/** A consistent copy of `source` at `target`, a file that must not exist yet; safe while the server runs. */
export function backupSqlite(source: string, target: string): BackupSummary {
  if (!fs.existsSync(source)) throw new BackupError(`There is no database at ${source} (see DATA_DIR and DATABASE_URL)`);
  const destination = path.resolve(target);
  if (fs.existsSync(destination)) throw new BackupError(`${destination} already exists: a backup never overwrites a file, choose a new name`);
  makePrivateDir(path.dirname(destination));
  // Written under another name first: a file at the target's name is always a complete backup.
  const partial = `${destination}.partial-${process.pid}`;
  // VACUUM INTO fills an empty file, which keeps the mode it was made with.
  createPrivateFile(partial);
  const db = new DatabaseSync(source, { timeout: 30_000 });
  try {
    db.prepare('VACUUM INTO ?').run(partial);
    fsyncFile(partial);
    const summary = inspectCopy(partial);
    fs.renameSync(partial, destination);
    return { ...summary, file: destination };
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  } finally {
    db.close();
  }
}

export interface RestoreSummary extends BackupSummary {
  /** Where the database that was replaced is kept; null when there was none. */
  previous: string | null;
}

/** Puts the backup `from` in place of the database `target`; refused while anything has `target` open. */
export function restoreSqlite(from: string, target: string, now = new Date()): RestoreSummary {
  const backup = path.resolve(from);
  if (!fs.existsSync(backup)) throw new BackupError(`There is no file ${backup}`);
  const summary = inspectCopy(backup);
  const known = new Set(knownMigrations());
  if (summary.migration && !known.has(summary.migration)) {
    throw new BackupError(`${backup} comes from a newer version of the license manager (schema ${summary.migration}); install that version to restore it`);
  }
  makePrivateDir(path.dirname(target));
  const incoming = `${target}.restoring-${process.pid}`;
  fs.copyFileSync(backup, incoming);
  // The copy took the backup file's mode; the database is the service's alone.
  fs.chmodSync(incoming, PRIVATE_FILE_MODE);
  fsyncFile(incoming);

  let current: DatabaseSync | null = null;
  let previous: string | null = null;
  try {
    if (fs.existsSync(target)) {
      current = new DatabaseSync(target, { timeout: 0 });
      try {
        // Exclusive locking mode keeps the lock until close: nothing can open the database meanwhile.
        current.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT;');
      } catch {
        throw new BackupError(`The database ${target} is in use: stop the server (and any other command using it), then restore again`);
      }
      // Folds the write-ahead log into the file, so that the kept copy is complete on its own.
      current.exec('PRAGMA journal_mode = DELETE');
      previous = `${target}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
      fs.renameSync(target, previous);
    }
    for (const leftover of [`${target}-wal`, `${target}-shm`]) fs.rmSync(leftover, { force: true });
    fs.renameSync(incoming, target);
  } catch (error) {
    fs.rmSync(incoming, { force: true });
    throw error;
  } finally {
    current?.close();
  }
  return { ...summary, file: target, previous };
}
