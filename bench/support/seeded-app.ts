/**
 * The app on the licensing bench's data set (`npm run cli -- seed:bench`: 1,000,000 licenses, kept in
 * BENCH_DATA_DIR and in PostgreSQL's database BENCH_DATABASE_URL, default lm_bench) plus logins and
 * desktop contacts (bench/statistics-data.ts), added once; and timing of its routes through app.inject.
 */
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { SESSION_COOKIE } from '../../packages/contract/src/index.ts';
import { buildApp, type App } from '../../packages/server/src/app.ts';
import { loadConfig, type Config } from '../../packages/server/src/platform/config.ts';
import { openDatabase } from '../../packages/server/src/platform/db/database.ts';
import { foldCounterDeltas } from '../../packages/server/src/modules/statistics/repo.ts';
import { seedBench } from '../../packages/server/src/modules/bench-seed/service.ts';
import { addStatisticsActivity } from '../statistics-data.ts';
import { benchDatabases as wantedDatabases, benchDataDir, benchPostgresUrl, benchSizes } from './bench-data.ts';

export type BenchDatabase = 'sqlite' | 'postgres';
export const POSTGRES_URL = benchPostgresUrl();
const SQLITE_FILE = path.join(benchDataDir(), 'licensing', 'licensing.db');
export const log = (text: string) => console.log(`  ${text}`);

export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The databases BENCH_SCALE and BENCH_DATABASES ask for (bench-data.ts), PostgreSQL only when it answers. */
export async function benchDatabases(): Promise<BenchDatabase[]> {
  const wanted = wantedDatabases();
  if (!wanted.includes('postgres') || (await postgresReachable())) return wanted;
  log(`PostgreSQL at ${new URL(POSTGRES_URL).host} is unreachable: only SQLite is measured`);
  return wanted.filter((kind) => kind === 'sqlite');
}

function configFor(kind: BenchDatabase): Config {
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: path.dirname(SQLITE_FILE) });
  const database: Config['database'] = kind === 'sqlite' ? { kind, file: SQLITE_FILE } : { kind, url: POSTGRES_URL };
  return { ...config, rateLimits: false, database };
}

/** Opens the database, seeding it first unless an earlier run left the full data set, and adds the activity once. */
export async function seededApp(kind: BenchDatabase): Promise<App> {
  const config = configFor(kind);
  const database = openDatabase(config.database);
  const app = await buildApp(config, { database, logger: false });
  app.addHook('onClose', () => database.close());
  const report = await seedBench(app.ctx.db, benchSizes(), (text) => log(`[${kind}] seeding: ${text}`));
  if (!report.skipped) log(`[${kind}] seeded ${report.licenses.toLocaleString('en')} licenses in ${Math.round(report.seconds)} s`);
  if (await addStatisticsActivity(app.ctx.db, (text) => log(`[${kind}] ${text}`))) {
    // The first read folds the deltas the triggers wrote while seeding: a one-time cost, shown apart.
    const started = performance.now();
    await foldCounterDeltas(app.ctx.db);
    log(`[${kind}] folding the counters of the seeded rows: ${Math.round(performance.now() - started)} ms`);
    // The steady state of a running installation: statistics known to the planner, and on PostgreSQL
    // the dead rows of the folded deltas cleared, as autovacuum does.
    await sql.raw(kind === 'postgres' ? 'vacuum analyze' : 'analyze').execute(app.ctx.db);
  }
  return app;
}

export async function cookieOf(app: App, account: { email: string; password: string }): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/api/session', payload: { username: account.email, password: account.password } });
  const cookie = response.cookies.find((c) => c.name === SESSION_COOKIE);
  if (!cookie) throw new Error(`login failed: ${response.body}`);
  return `${cookie.name}=${cookie.value}`;
}

/** Durations of `runs` calls of one URL after one warm-up call, sorted, in ms. */
export async function timings(app: App, cookie: string, url: string, runs: number): Promise<number[]> {
  const durations: number[] = [];
  for (let run = 0; run <= runs; run++) {
    const started = performance.now();
    const response = await app.inject({ method: 'GET', url, headers: { cookie } });
    const elapsed = performance.now() - started;
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
    if (run > 0) durations.push(elapsed);
  }
  return durations.sort((a, b) => a - b);
}

/** The value below which `share` (0 to 1) of the sorted durations fall. */
export const percentile = (sorted: number[], share: number) => sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)];
