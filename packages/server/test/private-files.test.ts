/**
 * The SQLite database (with its -wal and -shm files), its backups and mails written to files hold
 * password hashes, the encrypted signing key and reset links: created readable by the service's user
 * only (files 0600, folders 0700), whatever the umask lets through.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backupSqlite, restoreSqlite } from '../src/platform/db/backup.ts';
import { openDatabase } from '../src/platform/db/database.ts';
import { migrateToLatest } from '../src/platform/db/migrate.ts';
import { fileTransport } from '../src/platform/mail/transport.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-private-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe('private files', () => {
  it('creates the SQLite database and its write-ahead files 0600 in a new folder 0700', async () => {
    const file = path.join(root, 'data', 'nested', 'license-manager.db');
    const database = openDatabase({ kind: 'sqlite', file });
    try {
      await migrateToLatest(database.db);
      for (const created of [file, `${file}-wal`, `${file}-shm`]) expect(modeOf(created).toString(8), created).toBe('600');
      for (const dir of [path.join(root, 'data'), path.join(root, 'data', 'nested')]) expect(modeOf(dir).toString(8), dir).toBe('700');
    } finally {
      await database.close();
    }
  });

  it('writes backups 0600 in a new folder 0700, and a restored database 0600 whatever the backup file’s mode', async () => {
    const source = path.join(root, 'source.db');
    const database = openDatabase({ kind: 'sqlite', file: source });
    await migrateToLatest(database.db);
    await database.close();
    const backup = path.join(root, 'backups', 'nightly.db');
    backupSqlite(source, backup);
    expect(modeOf(backup).toString(8)).toBe('600');
    expect(modeOf(path.join(root, 'backups')).toString(8)).toBe('700');

    // A backup an operator copied around with a wider mode: the restored database is private all the same.
    fs.chmodSync(backup, 0o644);
    const target = path.join(root, 'restored', 'license-manager.db');
    restoreSqlite(backup, target);
    expect(modeOf(target).toString(8)).toBe('600');
    expect(modeOf(path.join(root, 'restored')).toString(8)).toBe('700');
  });

  it('writes mails to files 0600 in a folder 0700 (they carry reset and confirmation links)', async () => {
    const dir = path.join(root, 'mails');
    const silent = { info: () => undefined } as unknown as Parameters<typeof fileTransport>[1];
    const transport = fileTransport(dir, silent);
    await transport.send({ id: 1, from: 'a@example.com', to: 'b@example.com', subject: 'Reset', text: 'https://x.example/reset-password?token=t', html: null } as never);
    transport.close();
    const [file] = fs.readdirSync(dir);
    expect(modeOf(path.join(dir, file)).toString(8)).toBe('600');
    expect(modeOf(dir).toString(8)).toBe('700');
  });
});
