/**
 * The guarantees of issue 5: concurrent activations never pass a TAN's license count, and bulk TAN
 * creation is all or nothing, on both databases.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { openDatabase } from '../src/platform/db/database.ts';
import { buildTestApp, client, describeBothDatabases, loggedIn, testConfig } from './harness.ts';
import { createTans, insertProduct, machine, type Client } from './licensing-test-data.ts';
import { HANG_GUARD_MS } from './processes.ts';

describeBothDatabases('licensing guarantees', (t) => {
  let admin: Client;
  let productId: number;
  /** PostgreSQL: a second app instance on the same schema, with its own connection pool. */
  let secondInstance: App | undefined;

  beforeAll(async () => {
    admin = client(t.app, (await loggedIn(t.app, 'ADMIN')).cookie);
    productId = (await insertProduct(t.app)).id;
    if (t.kind === 'postgres') {
      secondInstance = await buildTestApp(testConfig(t.config.database), openDatabase(t.config.database));
    }
  });

  afterAll(async () => {
    if (secondInstance) {
      await secondInstance.close();
      await secondInstance.ctx.close();
    }
  });

  const countTans = async () => Number((await t.app.ctx.db.selectFrom('tans').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow()).count);

  describe('concurrent activations', () => {
    it('50 simultaneous activations of a TAN for 5 licenses make exactly 5 licenses', async () => {
      const [tan] = await createTans(admin, { productId, licenseCount: 5 });
      const apps = secondInstance ? [t.app, secondInstance] : [t.app];
      const callers = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const app = apps[i % apps.length];
          return { app, cookie: (await loggedIn(app, 'USER')).cookie };
        }),
      );
      const responses = await Promise.all(
        callers.map(({ app, cookie }) => app.inject({ method: 'POST', url: '/api/licenses/activate', headers: { cookie }, payload: { tan: tan.code, machineId: machine() } })),
      );
      const statuses = responses.map((response) => response.statusCode);
      expect(statuses.filter((status) => status === 201)).toHaveLength(5);
      expect(statuses.filter((status) => status === 422)).toHaveLength(45);
      for (const response of responses.filter((r) => r.statusCode === 422)) expect(response.json().error).toBe('ERR_INVALID_LICENSE');

      const licenses = await t.app.ctx.db.selectFrom('licenses').select('id').where('tan_id', '=', tan.id).execute();
      expect(licenses).toHaveLength(5);
      const stored = await t.app.ctx.db.selectFrom('tans').select('activated_count').where('id', '=', tan.id).executeTakeFirstOrThrow();
      expect(stored.activated_count).toBe(5);
    });

    // Each database's own way of running activations side by side: PostgreSQL connections, SQLite
    // processes. Defined only for that database, so that neither suite reports a skipped test.
    const onPostgres = (name: string, test: () => Promise<void>) => t.kind === 'postgres' && it(name, test);
    const onSqlite = (name: string, test: () => Promise<void>) => t.kind === 'sqlite' && it(name, test);

    onPostgres('holds the count on PostgreSQL with several connections at once', async () => {
      // Many transactions must really be open together, not one after the other.
      const [tan] = await createTans(admin, { productId, licenseCount: 3 });
      const cookies = await Promise.all(Array.from({ length: 30 }, async () => (await loggedIn(t.app, 'USER')).cookie));
      let peak = 0;
      const watcher = setInterval(async () => {
        const rows = await sql<{ count: number }>`select count(*)::int as count from pg_stat_activity where datname = current_database() and state <> 'idle'`.execute(t.app.ctx.db);
        peak = Math.max(peak, rows.rows[0].count);
      }, 5);
      const responses = await Promise.all(
        cookies.map((cookie, i) =>
          (i % 2 ? secondInstance! : t.app).inject({ method: 'POST', url: '/api/licenses/activate', headers: { cookie }, payload: { tan: tan.code, machineId: machine() } }),
        ),
      );
      clearInterval(watcher);
      expect(responses.filter((response) => response.statusCode === 201)).toHaveLength(3);
      expect(peak).toBeGreaterThan(1);
    });

    onSqlite('holds the count on SQLite with several server processes on one database file', async () => {
      if (t.config.database.kind !== 'sqlite') throw new Error('a SQLite suite without a SQLite file');
      const servers = await Promise.all([startServerProcess(t.config.database.file), startServerProcess(t.config.database.file)]);
      try {
        const [tan] = await createTans(admin, { productId, licenseCount: 5 });
        const callers = await Promise.all(Array.from({ length: 30 }, async () => (await loggedIn(t.app, 'USER')).cookie));
        const responses = await Promise.all(
          callers.map(async (cookie, i) => {
            const body = { tan: tan.code, machineId: machine() };
            if (i % 3 === 0) return (await t.app.inject({ method: 'POST', url: '/api/licenses/activate', headers: { cookie }, payload: body })).statusCode;
            const response = await fetch(`${servers[i % 3 === 1 ? 0 : 1].url}/api/licenses/activate`, {
              method: 'POST',
              headers: { cookie, 'content-type': 'application/json' },
              body: JSON.stringify(body),
            });
            return response.status;
          }),
        );
        expect(responses.filter((status) => status === 201)).toHaveLength(5);
        expect(responses.filter((status) => status !== 201 && status !== 422)).toEqual([]);
        const stored = await t.app.ctx.db.selectFrom('tans').select('activated_count').where('id', '=', tan.id).executeTakeFirstOrThrow();
        expect(stored.activated_count).toBe(5);
      } finally {
        await Promise.all(servers.map((server) => server.stop()));
      }
    });
  });

  describe('bulk creation', () => {
    it('creates 10,000 TANs in one call', async () => {
      const before = await countTans();
      const response = await admin.post('/api/tans', { query: { count: '10000' }, body: { productId, licenseCount: 1, tags: ['bulk'] } });
      expect(response.statusCode, response.body.slice(0, 300)).toBe(201);
      const body = response.json();
      expect(body.totalCount).toBe(10000);
      expect(new Set(body.items.map((item: { code: string }) => item.code)).size).toBe(10000);
      expect(await countTans()).toBe(before + 10000);
    });

    it('leaves no TAN, tag or change-log row behind when an error strikes midway', async () => {
      const before = await countTans();
      const beforeLog = Number(
        (await t.app.ctx.db.selectFrom('change_log').select((eb) => eb.fn.countAll<number>().as('count')).where('model', '=', 'Tan').executeTakeFirstOrThrow()).count,
      );
      const maxId = Number((await t.app.ctx.db.selectFrom('tans').select((eb) => eb.fn.max('id').as('max')).executeTakeFirstOrThrow()).max ?? 0);
      const failAt = maxId + 5000;
      // The 5,000th new TAN makes the database raise an error.
      if (t.kind === 'sqlite') {
        await sql.raw(`CREATE TRIGGER fail_midway AFTER INSERT ON tans WHEN NEW.id >= ${failAt} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`).execute(t.app.ctx.db);
      } else {
        await sql
          .raw(
            `CREATE FUNCTION fail_midway() RETURNS trigger AS $$ BEGIN IF NEW.id >= ${failAt} THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
          )
          .execute(t.app.ctx.db);
        await sql.raw('CREATE TRIGGER fail_midway AFTER INSERT ON tans FOR EACH ROW EXECUTE FUNCTION fail_midway()').execute(t.app.ctx.db);
      }
      try {
        const response = await admin.post('/api/tans', { query: { count: '10000' }, body: { productId, licenseCount: 1, tags: ['doomed'] } });
        expect(response.statusCode).toBe(500);
      } finally {
        await sql.raw(t.kind === 'sqlite' ? 'DROP TRIGGER fail_midway' : 'DROP TRIGGER fail_midway ON tans').execute(t.app.ctx.db);
      }
      expect(await countTans()).toBe(before);
      expect(await t.app.ctx.db.selectFrom('tan_tags').select('tan_id').where('tag', '=', 'doomed').execute()).toHaveLength(0);
      const afterLog = Number(
        (await t.app.ctx.db.selectFrom('change_log').select((eb) => eb.fn.countAll<number>().as('count')).where('model', '=', 'Tan').executeTakeFirstOrThrow()).count,
      );
      expect(afterLog).toBe(beforeLog);
      // Without the fault the same call succeeds.
      expect((await admin.post('/api/tans', { query: { count: '10' }, body: { productId, licenseCount: 1 } })).statusCode).toBe(201);
    });
  });
});

const ROOT = path.resolve(import.meta.dirname, '../../..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Another server process on the same SQLite file, as `npm start` runs it. */
async function startServerProcess(file: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(path.join(ROOT, 'node_modules/.bin/node'), [path.join(ROOT, 'packages/server/src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent', WEB_DIST: path.join(os.tmpdir(), 'lm-test-no-web-app') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + HANG_GUARD_MS; ; ) {
    if (child.exitCode !== null) throw new Error(`the server process exited: ${errors}`);
    if (await fetch(`${url}/api/health`).then((response) => response.ok).catch(() => false)) break;
    if (Date.now() > deadline) throw new Error(`the server process did not start: ${errors}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    },
  };
}
