/**
 * The TAN and license lists with 1,000,000 TANs, 1,000,000 licenses and 200,000 users (DESIGN.md
 * section 9: limit 50 with filter and sort, p95 under 50 ms) and creating 10,000 TANs in one call
 * (under 3 s), on SQLite and on PostgreSQL, over real HTTP against a listening server.
 *
 * The data set is the one of `npm run cli -- seed:bench`, seeded once per database and kept for the
 * next run (BENCH_LICENSING_FRESH=1 seeds anew). PostgreSQL: BENCH_DATABASE_URL (default the test
 * server), schema bench_licensing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { SESSION_COOKIE } from '../../packages/contract/src/index.ts';
import { buildApp, type App } from '../../packages/server/src/app.ts';
import { loadConfig, type Config } from '../../packages/server/src/platform/config.ts';
import { openDatabase } from '../../packages/server/src/platform/db/database.ts';
import { BENCH_ACCOUNTS, seedBench } from '../../packages/server/src/modules/bench-seed/service.ts';
import type { Figure, Scenario } from '../run.ts';

const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SCHEMA = 'bench_licensing';
const SQLITE_FILE = path.join(os.tmpdir(), 'lm-bench-licensing', 'licensing.db');
const FRESH = process.env.BENCH_LICENSING_FRESH === '1';
const SAMPLES = 100;
const WARM_UP = 10;
const CREATE_RUNS = 3;
const log = (text: string) => console.log(`  ${text}`);

async function postgresReady(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    if (FRESH) await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function configFor(kind: 'sqlite' | 'postgres'): Config {
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: path.dirname(SQLITE_FILE), WEB_DIST: path.join(os.tmpdir(), 'lm-bench-no-web') });
  const database: Config['database'] = kind === 'sqlite' ? { kind, file: SQLITE_FILE } : { kind, url: POSTGRES_URL, schema: SCHEMA };
  return { ...config, rateLimits: false, database };
}

async function prepare(kind: 'sqlite' | 'postgres'): Promise<{ app: App; url: string }> {
  if (kind === 'sqlite' && FRESH) fs.rmSync(path.dirname(SQLITE_FILE), { recursive: true, force: true });
  const config = configFor(kind);
  const database = openDatabase(config.database);
  const app = await buildApp(config, { database, logger: false });
  app.addHook('onClose', () => database.close());
  const started = performance.now();
  const report = await seedBench(app.ctx.db, undefined, (text) => log(`[${kind}] seeding: ${text}`));
  if (!report.skipped) log(`[${kind}] seeded in ${Math.round((performance.now() - started) / 1000)} s`);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url: address };
}

async function loginAs(url: string, account: { email: string; password: string }): Promise<string> {
  const response = await fetch(`${url}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: account.email, password: account.password }),
  });
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith(`${SESSION_COOKIE}=`));
  if (!response.ok || !cookie) throw new Error(`login of ${account.email} failed: ${response.status}`);
  return cookie.split(';')[0];
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

/** Times one list call per sample (each with its own query), after a warm-up; returns p50 and p95. */
async function timeList(url: string, cookie: string, makePath: (sample: number) => string): Promise<{ p50: number; p95: number; rows: number }> {
  const durations: number[] = [];
  let rows = 0;
  for (let sample = 0; sample < WARM_UP + SAMPLES; sample++) {
    const started = performance.now();
    const response = await fetch(url + makePath(sample), { headers: { cookie } });
    const body = (await response.json()) as { items?: unknown[]; totalCount?: number };
    const elapsed = performance.now() - started;
    if (!response.ok || !body.items) throw new Error(`${makePath(sample)}: ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
    if (sample >= WARM_UP) {
      durations.push(elapsed);
      rows += body.items.length;
    }
  }
  durations.sort((a, b) => a - b);
  return { p50: percentile(durations, 0.5), p95: percentile(durations, 0.95), rows: Math.round(rows / SAMPLES) };
}

async function benchDatabase(kind: 'sqlite' | 'postgres'): Promise<Figure[]> {
  const { app, url } = await prepare(kind);
  try {
    const admin = await loginAs(url, BENCH_ACCOUNTS.admin);
    const distributor = await loginAs(url, BENCH_ACCOUNTS.distributor);
    const heavyUser = await loginAs(url, BENCH_ACCOUNTS.heavyUser);
    const db = app.ctx.db;
    const codes = (await db.selectFrom('tans').select('code').where('id', '<=', 200_000).where('id', '>', 199_000).execute()).map((row) => row.code);
    const heavyUserId = (await db.selectFrom('users').select('id').where('email', '=', BENCH_ACCOUNTS.heavyUser.email).executeTakeFirstOrThrow()).id;
    const someUsers = (await db.selectFrom('users').select('id').where('email', 'like', 'bench-user-1%').limit(200).execute()).map((row) => row.id);
    const machines = (await db.selectFrom('licenses').select('machine_id').where('owner_id', '=', heavyUserId).limit(200).execute()).map((row) => row.machine_id!);
    const distributorId = (await db.selectFrom('users').select('id').where('email', '=', BENCH_ACCOUNTS.distributor.email).executeTakeFirstOrThrow()).id;
    const distributorTans = (await db.selectFrom('tans').select('id').where('distributor_id', '=', distributorId).where('activated_count', '>', 0).limit(200).execute()).map((row) => row.id);
    const productId = (await db.selectFrom('products').select('id').orderBy('id').executeTakeFirstOrThrow()).id;

    const prefix = (sample: number, length: number) => {
      const code = codes[(sample * 37) % codes.length];
      return `${code.slice(0, Math.min(4, length))}${length > 4 ? `-${code.slice(4, length)}` : ''}`.toUpperCase();
    };
    const sorts = ['-createdAt', 'code', '-activatedCount', 'freeUpdatesUntil', '-licenseCount'];
    const machinePart = (sample: number) => machines[sample % machines.length].slice(6, 9);

    // [name, caller, path per sample, whether DESIGN.md's target (filter and sort, p95 < 50 ms) applies]
    const lists: [string, string, (sample: number) => string, boolean?][] = [
      ['TAN list: 2-char code prefix (~1,000 hits), 5 sorts', admin, (s) => `/api/tans?limit=50&filter=${prefix(s, 2)}&sort=${sorts[s % sorts.length]}`],
      ['TAN list: dashed 6-char code, 5 sorts', admin, (s) => `/api/tans?limit=50&filter=${prefix(s, 6)}&sort=${sorts[s % sorts.length]}`],
      ['TAN list: tag filter + not revoked, sort -createdAt', admin, (s) => `/api/tans?limit=50&tag=bench:batch-${s * 7}&revoked=false&sort=-createdAt`],
      ['TAN list: distributor (300,000 TANs of 20), prefix, sort', distributor, (s) => `/api/tans?limit=50&filter=${prefix(s, 1)}&sort=${sorts[s % sorts.length]}`],
      // No filter: the count runs over every TAN; shown for reference, the target is for filtered lists.
      ['TAN list: no filter (counts 1,000,000), sort -createdAt', admin, (s) => `/api/tans?limit=50&offset=${(s % 100) * 50}&sort=-createdAt`, false],
      ['License list: account with 10,000, machine filter, sort', admin, (s) => `/api/licenses?userId=${heavyUserId}&limit=50&filter=${machinePart(s)}&sort=${s % 2 ? '-createdAt' : 'machineId'}`],
      ['License list: own 10,000, TAN/machine filter, sort', heavyUser, (s) => `/api/licenses?limit=50&filter=${s % 2 ? machinePart(s) : prefix(s, 3)}&sort=-validUntil`],
      ['License list: typical account (~5), filter, sort', admin, (s) => `/api/licenses?userId=${someUsers[s % someUsers.length]}&limit=50&filter=bench&sort=-createdAt`],
      ['License list: one TAN of a distributor', distributor, (s) => `/api/licenses?tanId=${distributorTans[s % distributorTans.length]}&limit=50&sort=-createdAt`],
    ];
    const figures: Figure[] = [];
    for (const [name, cookie, makePath, targeted = true] of lists) {
      const result = await timeList(url, cookie, makePath);
      log(`[${kind}] ${name}: p50 ${result.p50.toFixed(1)} ms, p95 ${result.p95.toFixed(1)} ms, ${result.rows} rows per page`);
      figures.push({ name: `[${kind}] ${name} p95`, value: result.p95, unit: 'ms', ...(targeted ? { target: { max: 50 } } : {}) });
    }

    const createDurations: number[] = [];
    for (let run = 0; run < CREATE_RUNS; run++) {
      const started = performance.now();
      const response = await fetch(`${url}/api/tans?count=10000`, {
        method: 'POST',
        headers: { cookie: admin, 'content-type': 'application/json' },
        body: JSON.stringify({ productId, licenseCount: 1, tags: ['bench:created'] }),
      });
      const body = (await response.json()) as { totalCount?: number };
      createDurations.push(performance.now() - started);
      if (response.status !== 201 || body.totalCount !== 10000) throw new Error(`create 10,000 TANs: ${response.status}`);
    }
    createDurations.sort((a, b) => a - b);
    log(`[${kind}] create 10,000 TANs: ${createDurations.map((ms) => `${Math.round(ms)} ms`).join(', ')}`);
    figures.push({ name: `[${kind}] create 10,000 TANs in one call (slowest of ${CREATE_RUNS})`, value: createDurations.at(-1)! / 1000, unit: 's', target: { max: 3 } });
    return figures;
  } finally {
    await app.close();
  }
}

const scenario: Scenario = {
  name: 'licensing',
  description: 'TAN and license lists at 1,000,000 rows (p95 < 50 ms) and 10,000 TANs per call (< 3 s), SQLite and PostgreSQL',
  async run() {
    // Other work on the machine shows in the percentiles: the load is logged beside them.
    log(`load average before: ${os.loadavg().map((value) => value.toFixed(1)).join(' ')} on ${os.cpus().length} CPUs`);
    const figures = await benchDatabase('sqlite');
    if (await postgresReady()) figures.push(...(await benchDatabase('postgres')));
    else log(`PostgreSQL at ${new URL(POSTGRES_URL).host} is unreachable: its figures are missing`);
    log(`load average after: ${os.loadavg().map((value) => value.toFixed(1)).join(' ')}`);
    return figures;
  },
};

export default scenario;
