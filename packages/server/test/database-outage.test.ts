/**
 * The app survives its database going away: PostgreSQL ending every connection of the app (what a
 * restart or a failover does) or not answering at all for a while (SQLite locked by another process:
 * sqlite-lock.test.ts). Requests meanwhile answer 503 ERR_DATABASE_UNAVAILABLE
 * (never 500, never a hang), health says why, the same app serves again afterwards with its
 * sessions, and every write it acknowledged is there.
 */
import { sql } from 'kysely';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { openDatabase } from '../src/platform/db/database.ts';
import { buildTestApp, expectError, freshDatabase, loggedIn, POSTGRES_URL, postgresReachable, testConfig, type TestDatabase } from './harness.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

const IN_CI = /^(true|1)$/i.test(process.env.CI ?? '');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  name: string;
  status: number;
  body: string;
}

/** Creates features, a few at a time, until stopped: a write load whose every answer is kept. */
function writeLoad(app: App, cookie: string) {
  const answers: Answer[] = [];
  let running = true;
  const worker = async () => {
    while (running) {
      const name = `outage-${randomBytes(5).toString('hex')}`;
      const response = await app.inject({ method: 'POST', url: '/api/features', headers: { cookie }, payload: { name } });
      answers.push({ name, status: response.statusCode, body: response.body });
    }
  };
  const workers = Promise.all([worker(), worker(), worker()]);
  return {
    answers,
    async stop() {
      running = false;
      await workers;
    },
  };
}

/** Every answer was a success or a clean 503, and every success is stored. */
async function expectAcknowledgedWritesKept(app: App, answers: Answer[]) {
  for (const answer of answers) {
    expect([201, 503], answer.body).toContain(answer.status);
    if (answer.status === 503) expect(JSON.parse(answer.body).error).toBe('ERR_DATABASE_UNAVAILABLE');
  }
  const acknowledged = answers.filter((answer) => answer.status === 201).map((answer) => answer.name);
  expect(acknowledged.length).toBeGreaterThan(0);
  const stored = await app.ctx.db.selectFrom('features').select('name').where('name', 'in', acknowledged).execute();
  expect(stored).toHaveLength(acknowledged.length);
}

describe.skipIf(!postgresReachable && !IN_CI)('database outage [postgres]', () => {
  /** An app whose connections run through a proxy the test can cut, named so that the server can end them. */
  async function appBehindProxy(
    pool: { poolSize?: number; connectTimeoutMs?: number } = {},
  ): Promise<{ app: App; proxy: TcpProxy; fresh: TestDatabase; applicationName: string; close(): Promise<void> }> {
    const fresh = await freshDatabase('postgres');
    const target = new URL(POSTGRES_URL);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const applicationName = `lm-outage-${randomBytes(4).toString('hex')}`;
    const url = new URL(POSTGRES_URL);
    url.port = String(proxy.port);
    url.searchParams.set('application_name', applicationName);
    const config = { ...(fresh.config as { kind: 'postgres'; schema: string }), kind: 'postgres' as const, url: url.toString(), poolSize: pool.poolSize };
    const app = await buildTestApp(testConfig(config), openDatabase(config, { connectTimeoutMs: pool.connectTimeoutMs }));
    return {
      app,
      proxy,
      fresh,
      applicationName,
      async close() {
        await app.close();
        await app.ctx.close();
        await proxy.close();
        await fresh.dispose();
      },
    };
  }

  it('answers 503 while the server ends every connection, then serves again with the same session and no acknowledged write lost', async () => {
    const { app, applicationName, close } = await appBehindProxy();
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      const { cookie } = await loggedIn(app, 'ADMIN');
      const load = writeLoad(app, cookie);
      await pause(200);
      for (let round = 0; round < 5; round++) {
        await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [applicationName]);
        await pause(50);
      }
      await pause(200);
      await load.stop();
      await expectAcknowledgedWritesKept(app, load.answers);
      expect((await app.inject({ url: '/api/health' })).json()).toEqual({ status: 'ok', database: 'postgres' });
      expect((await app.inject({ url: '/api/session', headers: { cookie } })).statusCode).toBe(200);
    } finally {
      await admin.end();
      await close();
    }
  });

  it('answers 503 (no driver detail to the public, never a 500) while the server cannot be reached at all, and serves again when it is back', async () => {
    const { app, proxy, close } = await appBehindProxy();
    try {
      const { cookie } = await loggedIn(app, 'ADMIN');
      const load = writeLoad(app, cookie);
      await pause(150);
      await proxy.cut();
      await pause(300);
      const started = Date.now();
      const health = await app.inject({ url: '/api/health' });
      expect(health.statusCode).toBe(503);
      // An anonymous caller learns no driver detail (the host and port are in its message).
      expect(health.json()).toEqual({ status: 'unavailable', database: 'postgres' });
      // With a session that cannot be read: the error body, never a 500 (it failed the route's schema).
      expectError(await app.inject({ url: '/api/health', headers: { cookie } }), 503, 'ERR_DATABASE_UNAVAILABLE');
      expectError(await app.inject({ url: '/api/session', headers: { cookie } }), 503, 'ERR_DATABASE_UNAVAILABLE');
      expect(Date.now() - started).toBeLessThan(12_000);
      await proxy.restore();
      await pause(300);
      await load.stop();
      await expectAcknowledgedWritesKept(app, load.answers);
      expect(load.answers.some((answer) => answer.status === 503)).toBe(true);
      expect((await app.inject({ url: '/api/health' })).statusCode).toBe(200);
      expect((await app.inject({ url: '/api/session', headers: { cookie } })).statusCode).toBe(200);
    } finally {
      await close();
    }
  });

  it('answers 503 ERR_DATABASE_UNAVAILABLE, not "busy", to a request that waited for a connection still being opened, and counts no busy pool', async () => {
    const { app, proxy, close } = await appBehindProxy({ poolSize: 1, connectTimeoutMs: 500 });
    try {
      const license = () => app.inject({ method: 'POST', url: '/api/client/v1/license', payload: { machineId: 'stalled-machine', product: 'Studio' } });
      const busyBefore = app.ctx.poolUsage().waitTimeouts;
      // The pool's connection dropped, and the new ones taken but never answered.
      await proxy.stall();
      // The first request opens the pool's one connection; the second waits for it, which is still
      // being opened when its wait runs out (pg-pool's error is the one of a busy pool).
      const [opening, waiting] = await Promise.all([license(), license()]);
      expectError(opening, 503, 'ERR_DATABASE_UNAVAILABLE');
      expectError(waiting, 503, 'ERR_DATABASE_UNAVAILABLE');
      expect(app.ctx.poolUsage().waitTimeouts).toBe(busyBefore);
      await proxy.restore();
      expectError(await license(), 404, 'ERR_NO_LICENSE');
    } finally {
      await close();
    }
  });

  it('answers 503 ERR_DATABASE_BUSY, not "unavailable", while every connection of the pool stays busy, and counts it', async () => {
    const fresh = await freshDatabase('postgres');
    const config = { ...(fresh.config as { kind: 'postgres'; url: string; schema: string }), poolSize: 1 };
    const app = await buildTestApp(testConfig(config), openDatabase(config, { connectTimeoutMs: 200 }));
    let release = () => {};
    try {
      // The pool's one connection held by a transaction, known to be taken before the request comes.
      let taken = () => {};
      const connectionTaken = new Promise<void>((resolve) => (taken = resolve));
      const held = app.ctx.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        taken();
        await new Promise<void>((resolve) => (release = resolve));
      });
      await connectionTaken;
      const busy = await app.inject({ method: 'POST', url: '/api/client/v1/license', payload: { machineId: 'busy-machine', product: 'Studio' } });
      expectError(busy, 503, 'ERR_DATABASE_BUSY');
      expect(busy.headers['retry-after']).toBeDefined();
      // The request's wait at least (the app's background loops may have waited in vain meanwhile too).
      const timeouts = Number(/^license_manager_db_pool_wait_timeouts_total (\d+)$/m.exec((await app.inject({ url: '/metrics' })).body)?.[1]);
      expect(timeouts).toBeGreaterThanOrEqual(1);
      release();
      await held;
      expectError(await app.inject({ method: 'POST', url: '/api/client/v1/license', payload: { machineId: 'busy-machine', product: 'Studio' } }), 404, 'ERR_NO_LICENSE');
    } finally {
      release();
      await app.close();
      await app.ctx.close();
      await fresh.dispose();
    }
  });
});
