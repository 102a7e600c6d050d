/**
 * Chaos on PostgreSQL, with the server as real processes on a database of their own (on the shared
 * server, which the test never stops): every connection of the app ended in the middle of a write
 * load, and two instances sharing the limits. SIGTERM during a request: process-lifecycle.test.ts.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_URL, postgresReachable } from './harness.ts';
import { call, IN_CI, startServerProcess, type ServerProcess } from './processes.ts';

const ADMIN = { ADMIN_EMAIL: 'admin@chaos.test', ADMIN_PASSWORD: 'chaos-secret-1' };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!postgresReachable && !IN_CI)('chaos [postgres]', () => {
  const name = `chaos_${randomBytes(5).toString('hex')}`;
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  const servers: ServerProcess[] = [];

  const start = async () => {
    const server = await startServerProcess({ env: { DATABASE_URL: url.toString(), ...ADMIN } });
    servers.push(server);
    return server;
  };
  const alive = async (server: ServerProcess) => (await Promise.race([server.exited().then(() => false), pause(50).then(() => true)])) as boolean;

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it('keeps serving, and loses no acknowledged write, when the database ends every connection in the middle of a write load', async () => {
    const server = await start();
    const { cookie } = await call(`${server.url}/api/session`, { body: { username: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD } });
    const answers: { name: string; status: number }[] = [];
    let running = true;
    const worker = async () => {
      while (running) {
        const feature = `chaos-${randomBytes(5).toString('hex')}`;
        const response = await call(`${server.url}/api/features`, { body: { name: feature }, cookie });
        answers.push({ name: feature, status: response.status });
      }
    };
    const workers = Promise.all([worker(), worker(), worker(), worker()]);
    await pause(500);
    let ended = 0;
    for (let round = 0; round < 6; round++) {
      const result = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
      ended += result.rowCount ?? 0;
      await pause(150);
    }
    await pause(500);
    running = false;
    await workers;

    const unavailable = answers.filter((answer) => answer.status === 503).length;
    console.log(`[chaos] ${answers.length} writes: ${answers.length - unavailable} acknowledged, ${unavailable} answered 503; ${ended} connections ended in 6 rounds`);
    expect(ended).toBeGreaterThan(0);
    expect(await alive(server)).toBe(true);
    const statuses = new Set(answers.map((answer) => answer.status));
    expect([...statuses].every((status) => status === 201 || status === 503), JSON.stringify([...statuses])).toBe(true);
    const acknowledged = answers.filter((answer) => answer.status === 201).map((answer) => answer.name);
    expect(acknowledged.length).toBeGreaterThan(10);
    const database = new pg.Client({ connectionString: url.toString() });
    await database.connect();
    try {
      const stored = await database.query('select name from features where name = any($1)', [acknowledged]);
      expect(stored.rowCount).toBe(acknowledged.length);
    } finally {
      await database.end();
    }
    expect((await call(`${server.url}/api/health`)).status).toBe(200);
    expect((await call(`${server.url}/api/session`, { cookie })).status).toBe(200);
  });

  it('shares the limits between two instances on one database', async () => {
    const [first, second] = [servers[0] ?? (await start()), await start()];
    const login = (server: ServerProcess, password: string) => call(`${server.url}/api/session`, { body: { username: ADMIN.ADMIN_EMAIL, password } });
    for (let i = 0; i < 10; i++) expect((await login(i % 2 ? second : first, `wrong ${i}`)).status).toBe(401);
    // Ten failures in all: the account is closed to new browsers on both instances.
    expect((await login(first, ADMIN.ADMIN_PASSWORD)).status).toBe(429);
    expect((await login(second, ADMIN.ADMIN_PASSWORD)).status).toBe(429);
    // Mails: three per address in 15 minutes, whichever instance is asked.
    const forgot = (server: ServerProcess) => call(`${server.url}/api/users/forgot-password`, { body: { email: 'someone@chaos.test' } });
    expect([(await forgot(first)).status, (await forgot(second)).status, (await forgot(first)).status, (await forgot(second)).status]).toEqual([204, 204, 204, 429]);
  });
});
