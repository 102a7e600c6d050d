/**
 * The TAN, license and user lists at 1,000,000 TANs, 1,000,000 licenses and 200,000 users (DESIGN.md
 * section 9: every list page with its filters and sorts, p95 under 50 ms) and creating 10,000 TANs
 * in one call (under 3 s), on SQLite and on PostgreSQL. The server runs in a child process; this
 * process calls it over HTTP, one request at a time, as an administrator, a distributor and a
 * customer would click: every sortable column in both directions, alone and under each usual filter
 * (revoked, product, tag, role, account, TAN, offline), the text filters as a person types them
 * (one character more per request), and deep pages (the last page the numbered pagination offers,
 * and far beyond it through the next-page cursor). Every case is timed SAMPLES times with varying
 * values; the figures are the worst p95 of each list, and the slowest cases are listed, with the
 * query plans of their statements in bench/results/licensing-plans-<database>.txt.
 *
 * The data set is the one of `npm run cli -- seed:bench`, seeded once and kept for the next run:
 * SQLite in BENCH_DATA_DIR (default: the system's temporary folder), PostgreSQL in its own database,
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/lm_bench, created when missing).
 * BENCH_LICENSING_FRESH=1 seeds anew; BENCH_LISTS=tans,users limits the lists; SAMPLES (default 12);
 * BENCH_SHOW_SLOW=<ms> prints every sample slower than that, timed once more.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import { SESSION_COOKIE } from '../../packages/contract/src/index.ts';
import type { Config } from '../../packages/server/src/platform/config.ts';
import type { Figure, Scenario } from '../run.ts';
import { both, casesOf, LICENSE_SORTS, parameters, TAN_SORTS, USER_SORTS, type Case, type Timed } from '../support/licensing-cases.ts';
import { benchDatabases, benchDataDir, benchLicensesText, benchPostgresUrl, benchSizes, machineLoad } from '../support/bench-data.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const POSTGRES_URL = benchPostgresUrl();
const SQLITE_FILE = path.join(benchDataDir(), 'licensing', 'licensing.db');
const RESULTS = path.join(import.meta.dirname, '../results');
const FRESH = process.env.BENCH_LICENSING_FRESH === '1';
const SAMPLES = Number(process.env.SAMPLES ?? 12);
const LISTS = (process.env.BENCH_LISTS ?? 'tans,licenses,users').split(',');
const TARGET_MS = 50;
/** BENCH_SHOW_SLOW=<ms>: each sample slower than that is printed and timed again at once (a pause of the machine, or a slow query?). */
const SHOW_SLOW = Number(process.env.BENCH_SHOW_SLOW ?? 0);
const SLOWEST_SHOWN = 25;
const PLANS_EXPLAINED = 8;
const CREATE_RUNS = 3;
const log = (text: string) => console.log(`  ${text}`);

type Kind = 'sqlite' | 'postgres';

function databaseConfig(kind: Kind): Config['database'] {
  return kind === 'sqlite' ? { kind, file: SQLITE_FILE } : { kind, url: POSTGRES_URL };
}

// ---------------------------------------------------------------------------------------------
// The server half: the real app on the seeded database, plus a route that explains the plans of the
// statements one request runs.

async function serve(kind: Kind): Promise<void> {
  const { buildApp } = await import('../../packages/server/src/app.ts');
  const { loadConfig } = await import('../../packages/server/src/platform/config.ts');
  const { openDatabase } = await import('../../packages/server/src/platform/db/database.ts');
  let captured: { sql: string; parameters: readonly unknown[] }[] | null = null;
  const config = { ...loadConfig({ LOG_LEVEL: 'warn', DATA_DIR: path.dirname(SQLITE_FILE), WEB_DIST: path.join(benchDataDir(), 'no-web') }), rateLimits: false, database: databaseConfig(kind) };
  const database = openDatabase(config.database, { onQuery: (query) => captured?.push(query) });
  const app = await buildApp(config, { database, logger: false });
  app.addHook('onClose', () => database.close());
  app.post('/bench/explain', async (request) => {
    const { url, cookie } = request.body as { url: string; cookie: string };
    captured = [];
    await app.inject({ method: 'GET', url, headers: { cookie } });
    const queries = captured;
    captured = null;
    const plans: string[] = [];
    // In one transaction, with the settings the request made for its statements (set local …).
    await database.db.transaction().execute(async (trx) => {
      for (const query of queries) {
        if (/^\s*set /i.test(query.sql)) {
          await trx.executeQuery(CompiledQuery.raw(query.sql, [...query.parameters]));
          plans.push(query.sql);
        }
        if (!/^\s*(select|with)/i.test(query.sql)) continue;
        const prefix = kind === 'sqlite' ? 'explain query plan ' : 'explain (analyze, buffers, costs off) ';
        const result = await trx.executeQuery(CompiledQuery.raw(prefix + query.sql, [...query.parameters]));
        const lines = (result.rows as Record<string, unknown>[]).map((row) => (kind === 'sqlite' ? `${'  '.repeat(Number(row.parent) ? 1 : 0)}${row.detail}` : String(row['QUERY PLAN'])));
        plans.push(`${query.sql}\n  parameters: ${JSON.stringify(query.parameters)}\n${lines.map((line) => `    ${line}`).join('\n')}`);
      }
    });
    return { plans };
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
  process.send?.(address);
}

function startServer(kind: Kind): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(NODE, [import.meta.filename, '--serve', kind], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (url) => resolve({ child, url: String(url) }));
    child.once('exit', (code) => reject(new Error(`the bench server exited with ${code}`)));
  });
}

async function stopServer(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
}

// ---------------------------------------------------------------------------------------------
// Preparing the data set

async function postgresReady(): Promise<boolean> {
  const url = new URL(POSTGRES_URL);
  const name = url.pathname.slice(1);
  const admin = new pg.Client({ connectionString: Object.assign(new URL(POSTGRES_URL), { pathname: '/postgres' }).toString(), connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
    if (FRESH) await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!exists.rowCount) await admin.query(`CREATE DATABASE "${name}"`);
    return true;
  } catch (error) {
    log(`PostgreSQL at ${url.host} is unreachable (${(error as Error).message}): its figures are missing`);
    return false;
  } finally {
    await admin.end().catch(() => undefined);
  }
}

/** Seeds the database unless it holds the data set already (migrating it to this version first). */
async function seeded(kind: Kind): Promise<void> {
  if (kind === 'sqlite' && FRESH) fs.rmSync(path.dirname(SQLITE_FILE), { recursive: true, force: true });
  const { openDatabase } = await import('../../packages/server/src/platform/db/database.ts');
  const { migrateToLatest } = await import('../../packages/server/src/platform/db/migrate.ts');
  const { seedBench } = await import('../../packages/server/src/modules/bench-seed/service.ts');
  const database = openDatabase(databaseConfig(kind));
  try {
    let started = performance.now();
    await migrateToLatest(database.db);
    const migrated = performance.now() - started;
    if (migrated > 1000) log(`[${kind}] migrations took ${(migrated / 1000).toFixed(1)} s`);
    started = performance.now();
    const report = await seedBench(database.db, benchSizes(), (text) => log(`[${kind}] seeding: ${text}`));
    if (!report.skipped) log(`[${kind}] seeded in ${Math.round((performance.now() - started) / 1000)} s`);
    // As autovacuum would leave a database that has settled: statistics, and the visibility map that
    // index-only scans need (without it, each reads the rows after all).
    if (!report.skipped && kind === 'postgres') await sql`vacuum (analyze)`.execute(database.db);
  } finally {
    await database.close();
  }
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
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

async function timeOnce(address: string, cookie: string): Promise<number> {
  const started = performance.now();
  await (await fetch(address, { headers: { cookie } })).json();
  return performance.now() - started;
}

async function timeCase(url: string, cookie: string, item: Case): Promise<Timed> {
  const durations: number[] = [];
  let rows = 0;
  let example = '';
  // One warm-up call, then SAMPLES calls; a case slower than a second gets fewer samples.
  for (let sample = -1; sample < SAMPLES; sample++) {
    const requestPath = item.path(Math.max(sample, 0) + 1);
    const started = performance.now();
    const response = await fetch(url + requestPath, { headers: { cookie } });
    const body = (await response.json()) as { items?: unknown[] };
    const elapsed = performance.now() - started;
    if (!response.ok || !body.items) throw new Error(`${requestPath}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
    if (sample < 0) continue;
    if (SHOW_SLOW && elapsed > SHOW_SLOW) log(`    slow sample ${elapsed.toFixed(1)} ms (again: ${(await timeOnce(url + requestPath, cookie)).toFixed(1)} ms): ${item.list}: ${item.name} ${requestPath}`);
    durations.push(elapsed);
    rows += body.items.length;
    if (!example || elapsed >= Math.max(...durations)) example = requestPath;
    if (sample >= 2 && durations.reduce((a, b) => a + b, 0) / durations.length > 1000) break;
  }
  durations.sort((a, b) => a - b);
  return {
    list: item.list,
    name: item.name,
    p50: percentile(durations, 0.5),
    p95: percentile(durations, 0.95),
    max: durations.at(-1)!,
    rows: Math.round(rows / durations.length),
    example: { url: example, caller: item.caller },
  };
}

async function benchDatabase(kind: Kind): Promise<Figure[]> {
  await seeded(kind);
  const { BENCH_ACCOUNTS } = await import('../../packages/server/src/modules/bench-seed/service.ts');
  const p = await parameters(databaseConfig(kind));
  const { child, url } = await startServer(kind);
  const figures: Figure[] = [];
  try {
    const cookies: Record<string, string> = {
      admin: await loginAs(url, BENCH_ACCOUNTS.admin),
      distributor: await loginAs(url, BENCH_ACCOUNTS.distributor),
      heavyUser: await loginAs(url, BENCH_ACCOUNTS.heavyUser),
    };
    // A cursor deep in a list: the next-page cursor of the row at that depth (found once, not timed).
    const cursors = new Map<string, string | null>();
    const findCursor = async (list: string, sort: string, query: string, depth: number) => {
      const response = await fetch(`${url}/api/${list}?limit=1&sort=${sort}&offset=${depth}${query ? `&${query}` : ''}`, { headers: { cookie: cookies.admin } });
      const body = (await response.json()) as { nextCursor?: string | null };
      cursors.set(`${list} ${sort} ${query}`, body.nextCursor ? `after=${encodeURIComponent(body.nextCursor)}` : null);
    };
    if (LISTS.includes('tans')) {
      for (const sort of both(TAN_SORTS)) {
        await findCursor('tans', sort, '', 500_000);
        await findCursor('tans', sort, `productId=${p.products[0]}`, 10_000);
      }
    }
    if (LISTS.includes('licenses')) for (const sort of both(LICENSE_SORTS)) await findCursor('licenses', sort, 'scope=all', 500_000);
    if (LISTS.includes('users')) for (const sort of both(USER_SORTS)) await findCursor('users', sort, '', 100_000);
    const cases = casesOf(p, (list, sort, query) => cursors.get(`${list} ${sort} ${query}`) ?? null).filter((item) => LISTS.includes(item.list));
    log(`[${kind}] ${cases.length} cases, ${SAMPLES} samples each; ${machineLoad()}`);
    const timed: Timed[] = [];
    for (const item of cases) timed.push(await timeCase(url, cookies[item.caller], item));
    log(`[${kind}] done; ${machineLoad()}`);

    const slowest = [...timed].sort((a, b) => b.p95 - a.p95);
    log(`[${kind}] the ${SLOWEST_SHOWN} slowest cases (p95, p50, max, rows per page):`);
    for (const item of slowest.slice(0, SLOWEST_SHOWN)) {
      log(`  ${item.p95.toFixed(1).padStart(7)} ms  ${item.p50.toFixed(1).padStart(6)}  ${item.max.toFixed(1).padStart(7)}  ${String(item.rows).padStart(3)}  ${item.list}: ${item.name}`);
    }
    const plans: string[] = [];
    for (const item of slowest.slice(0, PLANS_EXPLAINED)) {
      const response = await fetch(`${url}/bench/explain`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: item.example.url, cookie: cookies[item.example.caller] }),
      });
      const body = (await response.json()) as { plans: string[] };
      plans.push(`## ${item.list}: ${item.name} — p95 ${item.p95.toFixed(1)} ms\n${item.example.caller} GET ${item.example.url}\n\n${body.plans.join('\n\n')}\n`);
    }
    fs.mkdirSync(RESULTS, { recursive: true });
    fs.writeFileSync(path.join(RESULTS, `licensing-plans-${kind}.txt`), plans.join('\n'));
    fs.writeFileSync(path.join(RESULTS, `licensing-cases-${kind}.json`), JSON.stringify(timed, null, 1));

    for (const list of ['tans', 'licenses', 'users'] as const) {
      const ofList = timed.filter((item) => item.list === list);
      if (!ofList.length) continue;
      const worst = ofList.reduce((a, b) => (b.p95 > a.p95 ? b : a));
      figures.push({ name: `[${kind}] ${list}: worst p95 of ${ofList.length} cases (${worst.name})`, value: worst.p95, unit: 'ms', target: { max: TARGET_MS } });
      figures.push({ name: `[${kind}] ${list}: cases over ${TARGET_MS} ms at p95`, value: ofList.filter((item) => item.p95 > TARGET_MS).length, unit: 'count', target: { max: 0 } });
      figures.push({ name: `[${kind}] ${list}: median of the cases' p50`, value: [...ofList.map((item) => item.p50)].sort((a, b) => a - b)[Math.floor(ofList.length / 2)], unit: 'ms' });
    }

    const productId = p.products[0];
    const durations: number[] = [];
    for (let run = 0; run < CREATE_RUNS; run++) {
      const started = performance.now();
      const response = await fetch(`${url}/api/tans?count=10000`, {
        method: 'POST',
        headers: { cookie: cookies.admin, 'content-type': 'application/json' },
        body: JSON.stringify({ productId, licenseCount: 1, tags: ['bench:created'] }),
      });
      const body = (await response.json()) as { totalCount?: number };
      durations.push(performance.now() - started);
      if (response.status !== 201 || body.totalCount !== 10000) throw new Error(`create 10,000 TANs: ${response.status}`);
    }
    log(`[${kind}] create 10,000 TANs: ${durations.map((ms) => `${Math.round(ms)} ms`).join(', ')}`);
    figures.push({ name: `[${kind}] create 10,000 TANs in one call (slowest of ${CREATE_RUNS})`, value: Math.max(...durations) / 1000, unit: 's', target: { max: 3 } });
  } finally {
    await stopServer(child);
  }
  await removeCreatedTans(kind);
  return figures;
}

/** The TANs this run created go again, so that every run measures the same data set. */
async function removeCreatedTans(kind: Kind): Promise<void> {
  const { openDatabase } = await import('../../packages/server/src/platform/db/database.ts');
  const database = openDatabase(databaseConfig(kind));
  try {
    await database.db.transaction().execute(async (trx) => {
      const created = trx.selectFrom('tan_tags').select('tan_id').where('tag', '=', 'bench:created');
      await trx.deleteFrom('change_log').where('model', '=', 'Tan').where('record_id', 'in', created).execute();
      await trx.deleteFrom('tans').where('id', 'in', created).execute();
    });
    // The deleted rows' dead index entries sit at the end of the id indexes, where the planner looks
    // up a column's highest value: until a vacuum, planning a TAN query took 3 ms instead of 0.1, and
    // the next run measured that (autovacuum waits for a fifth of the table to be dead). A plain
    // vacuum leaves the index entries of so few rows (3 % of the pages) in place: index_cleanup on.
    if (kind === 'postgres') await sql`vacuum (index_cleanup on, analyze) tans, tan_tags, change_log`.execute(database.db);
  } finally {
    await database.close();
  }
}

const scenario: Scenario = {
  name: 'licensing',
  description: `TAN, license and user lists at ${benchLicensesText()}, every sort and filter (p95 < 50 ms), and 10,000 TANs per call (< 3 s), ${benchDatabases().join(' and ')}`,
  async run() {
    log(machineLoad());
    const kinds: Kind[] = benchDatabases();
    const figures: Figure[] = [];
    for (const kind of kinds) {
      if (kind === 'postgres' && !(await postgresReady())) continue;
      figures.push(...(await benchDatabase(kind)));
    }
    log(machineLoad());
    return figures;
  },
};

export default scenario;

if (process.argv[2] === '--serve') await serve(process.argv[3] as Kind);
