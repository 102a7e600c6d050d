/**
 * `npm run cli -- backup|restore` on the embedded database, run as the operator runs them: separate
 * processes beside a server that keeps its database open. PostgreSQL is backed up with its own
 * tools, as the README shows; that is tested here too.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { openDatabase, type Database } from '../src/platform/db/database.ts';
import { buildTestApp, createUser, login, POSTGRES_URL, postgresReachable, testConfig } from './harness.ts';
import { cleanEnv, CLI, IN_CI, PROJECT_NODE, runCli } from './processes.ts';

interface SqliteSetup {
  dir: string;
  file: string;
  env: Record<string, string>;
  open(): Promise<{ app: App; database: Database }>;
}

function sqliteSetup(): SqliteSetup {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-backup-'));
  const file = path.join(dir, 'license-manager.db');
  return {
    dir,
    file,
    env: { DATABASE_URL: `sqlite:${file}` },
    async open() {
      const config = { kind: 'sqlite' as const, file };
      const database = openDatabase(config);
      return { app: await buildTestApp(testConfig(config), database), database };
    },
  };
}

async function closeAll(opened: { app: App; database: Database }): Promise<void> {
  await opened.app.close();
  await opened.database.close();
}

const emailsIn = (file: string) => {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare('select email from users order by id').all() as { email: string }[]).map((row) => row.email);
  } finally {
    db.close();
  }
};

describe('backup and restore of the SQLite database', () => {
  let setup: SqliteSetup;
  beforeEach(() => {
    setup = sqliteSetup();
  });
  afterEach(() => fs.rmSync(setup.dir, { recursive: true, force: true }));

  it('backs up while the server runs; restore is refused while it runs, then puts the backup back and keeps the replaced database', async () => {
    const running = await setup.open();
    const before = await createUser(running.app, { email: 'before-backup@example.com' });
    const backupFile = path.join(setup.dir, 'backups', 'monday.db');

    const backup = runCli(['backup', '--to', backupFile], { env: setup.env });
    expect(backup.status, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/^Backed up [\d.]+ MB \(schema \d{4}_\w+\) to .*monday\.db$/m);
    expect(emailsIn(backupFile)).toContain(before.email);

    const after = await createUser(running.app, { email: 'after-backup@example.com' });
    const refused = runCli(['restore', '--from', backupFile], { env: setup.env });
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim()).toMatch(/^Error: The database .* is in use: stop the server .*$/);
    // Nothing changed: the running server still has its data.
    expect((await running.app.ctx.db.selectFrom('users').select('email').where('email', '=', after.email).execute()).length).toBe(1);
    await login(running.app, after.email, after.password);
    await closeAll(running);

    const restored = runCli(['restore', '--from', backupFile], { env: setup.env });
    expect(restored.status, restored.stderr).toBe(0);
    const kept = /kept as (\S+);/.exec(restored.stdout)?.[1];
    expect(kept, restored.stdout).toMatch(/license-manager\.db\.before-restore-/);
    expect(emailsIn(kept!)).toEqual(expect.arrayContaining([before.email, after.email]));

    const reopened = await setup.open();
    try {
      const emails = (await reopened.app.ctx.db.selectFrom('users').select('email').execute()).map((row) => row.email);
      expect(emails).toContain(before.email);
      expect(emails).not.toContain(after.email);
      await login(reopened.app, before.email, before.password);
    } finally {
      await closeAll(reopened);
    }
  });

  it('makes consistent backups while the server writes: each holds every write committed before it began, none half', async () => {
    const running = await setup.open();
    try {
      // A database of some size, so that a backup takes a while next to the writes.
      await sql
        .raw(
          "with recursive n(i) as (select 1 union all select i + 1 from n where i < 60000) insert into change_log (model, record_id, operation, timestamp, user_id, old_values, new_values) select 'Seed', i, 'insert', '2026-01-01T00:00:00.000Z', null, null, '{\"filler\":\"' || hex(randomblob(64)) || '\"}' from n",
        )
        .execute(running.app.ctx.db);
      const admin = await createUser(running.app, { role: 'ADMIN' });
      const cookie = await login(running.app, admin.email, admin.password);
      const featureCount = async () => Number((await running.app.ctx.db.selectFrom('features').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

      // Each new feature and its change-log row are one transaction: a backup has both or neither.
      let writing = true;
      let written = 0;
      const writer = (async () => {
        while (writing) {
          const response = await running.app.inject({ method: 'POST', url: '/api/features', headers: { cookie }, payload: { name: `feature-${written}` } });
          expect(response.statusCode, response.body).toBe(201);
          written++;
        }
      })();

      const backups: { file: string; committedBefore: number; committedAfter: number }[] = [];
      for (let i = 0; i < 4; i++) {
        const file = path.join(setup.dir, `during-writes-${i}.db`);
        const committedBefore = await featureCount();
        const child = spawn(PROJECT_NODE, [CLI, 'backup', '--to', file], { cwd: setup.dir, env: cleanEnv(setup.env), stdio: ['ignore', 'pipe', 'pipe'] });
        let errors = '';
        child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
        const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
        expect(code, errors).toBe(0);
        backups.push({ file, committedBefore, committedAfter: await featureCount() });
      }
      writing = false;
      await writer;

      const counts: number[] = [];
      for (const backup of backups) {
        const db = new DatabaseSync(backup.file, { readOnly: true });
        try {
          expect(db.prepare('pragma integrity_check').get()).toEqual({ integrity_check: 'ok' });
          const features = (db.prepare('select count(*) as n from features').get() as { n: number }).n;
          const logged = (db.prepare("select count(*) as n from change_log where model = 'Feature' and operation = 'insert'").get() as { n: number }).n;
          expect(logged).toBe(features);
          expect(features).toBeGreaterThanOrEqual(backup.committedBefore);
          expect(features).toBeLessThanOrEqual(backup.committedAfter);
          expect((db.prepare("select count(*) as n from change_log where model = 'Seed'").get() as { n: number }).n).toBe(60000);
          counts.push(features);
        } finally {
          db.close();
        }
      }
      // The writes went on during the backups.
      expect(counts.at(-1)!).toBeGreaterThan(counts[0]);
      expect(written).toBeGreaterThan(counts[0]);
    } finally {
      await closeAll(running);
    }
  });

  it('refuses clearly: no database, an existing target, a file that is no backup, a backup of a newer version', async () => {
    const expectOneLine = (result: ReturnType<typeof runCli>, pattern: RegExp) => {
      expect(result.status).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr.trim()).toMatch(pattern);
    };
    expectOneLine(runCli(['backup', '--to', path.join(setup.dir, 'b.db')], { env: setup.env }), /^Error: There is no database at .*license-manager\.db/);
    expect(fs.existsSync(setup.file)).toBe(false);

    const opened = await setup.open();
    await closeAll(opened);
    const existing = path.join(setup.dir, 'existing.db');
    fs.writeFileSync(existing, 'keep me');
    expectOneLine(runCli(['backup', '--to', existing], { env: setup.env }), /already exists: a backup never overwrites a file/);
    expect(fs.readFileSync(existing, 'utf8')).toBe('keep me');

    expectOneLine(runCli(['restore', '--from', existing], { env: setup.env }), /is not a SQLite database/);
    expectOneLine(runCli(['restore', '--from', path.join(setup.dir, 'missing.db')], { env: setup.env }), /There is no file/);

    const future = path.join(setup.dir, 'future.db');
    expect(runCli(['backup', '--to', future], { env: setup.env }).status).toBe(0);
    const db = new DatabaseSync(future);
    db.prepare("insert into kysely_migration (name, timestamp) values ('9999_from_the_future', '2030-01-01')").run();
    db.close();
    expectOneLine(runCli(['restore', '--from', future], { env: setup.env }), /comes from a newer version of the license manager \(schema 9999_from_the_future\)/);
    expect(fs.readdirSync(setup.dir).filter((name) => name.includes('restoring') || name.includes('before-restore'))).toEqual([]);
  });

  it('points to pg_dump and pg_restore when DATABASE_URL names PostgreSQL', () => {
    for (const command of [
      ['backup', '--to', path.join(setup.dir, 'x.db')],
      ['restore', '--from', path.join(setup.dir, 'x.db')],
    ]) {
      const result = runCli(command, { env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/licenses' } });
      expect(result.status).toBe(1);
      expect(result.stderr.trim()).toMatch(/^Error: \w+ copies the embedded SQLite database, but DATABASE_URL names PostgreSQL\. For PostgreSQL use pg_dump and pg_restore/);
    }
  });
});

const hasPgTools = spawnSync('pg_dump', ['--version']).status === 0 && spawnSync('pg_restore', ['--version']).status === 0;

describe.skipIf(!IN_CI && !(postgresReachable && hasPgTools))("PostgreSQL backup and restore with the README's pg_dump and pg_restore", () => {
  it('restores a dump into a new database, and the server finds the data there', async () => {
    if (!hasPgTools) throw new Error('pg_dump and pg_restore are needed (apt-get install postgresql-client)');
    const suffix = randomBytes(4).toString('hex');
    const [source, target] = [`lm_backup_${suffix}`, `lm_restore_${suffix}`];
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    const urlOf = (name: string) => Object.assign(new URL(POSTGRES_URL), { pathname: `/${name}` }).toString();
    const dump = path.join(os.tmpdir(), `lm-${suffix}.dump`);
    try {
      for (const name of [source, target]) await admin.query(`CREATE DATABASE ${name}`);
      const database = openDatabase({ kind: 'postgres', url: urlOf(source) });
      const app = await buildTestApp(testConfig({ kind: 'postgres', url: urlOf(source) }), database);
      const user = await createUser(app, { email: 'in-the-dump@example.com' });
      await app.close();
      await database.close();

      // As in the README: pg_dump --format=custom, then pg_restore into an empty database.
      const dumped = spawnSync('pg_dump', ['--format=custom', `--file=${dump}`, urlOf(source)], { encoding: 'utf8' });
      expect(dumped.status, dumped.stderr).toBe(0);
      const restored = spawnSync('pg_restore', ['--no-owner', `--dbname=${urlOf(target)}`, dump], { encoding: 'utf8' });
      expect(restored.status, restored.stderr).toBe(0);

      const restoredDatabase = openDatabase({ kind: 'postgres', url: urlOf(target) });
      const restoredApp = await buildTestApp(testConfig({ kind: 'postgres', url: urlOf(target) }), restoredDatabase);
      try {
        await login(restoredApp, user.email, user.password);
      } finally {
        await restoredApp.close();
        await restoredDatabase.close();
      }
    } finally {
      fs.rmSync(dump, { force: true });
      for (const name of [source, target]) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});
