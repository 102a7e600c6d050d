/**
 * Each statistics category with 1,000,000 licenses (DESIGN.md section 9: under 300 ms), on SQLite
 * and on PostgreSQL, through the real HTTP route as an administrator: the last twelve months (the
 * page's default) and all three years, for all products and for one. The data set is the licensing
 * bench's (`npm run cli -- seed:bench`, kept in BENCH_DATA_DIR and in PostgreSQL's database
 * BENCH_DATABASE_URL, default lm_bench) plus logins and desktop contacts (bench/statistics-data.ts),
 * added once. Seeding happens in the licensing bench; run it first on a fresh machine.
 */
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { STATISTICS_CATEGORIES, SESSION_COOKIE } from '../../packages/contract/src/index.ts';
import { buildApp, type App } from '../../packages/server/src/app.ts';
import { loadConfig, type Config } from '../../packages/server/src/platform/config.ts';
import { openDatabase } from '../../packages/server/src/platform/db/database.ts';
import { foldCounterDeltas } from '../../packages/server/src/modules/statistics/repo.ts';
import { BENCH_ACCOUNTS, seedBench } from '../../packages/server/src/modules/bench-seed/service.ts';
import type { Figure, Scenario } from '../run.ts';
import { addStatisticsActivity } from '../statistics-data.ts';
import { benchDatabases, benchDataDir, benchLicensesText, benchPostgresUrl, benchSizes, machineLoad } from '../support/bench-data.ts';

const POSTGRES_URL = benchPostgresUrl();
const SQLITE_FILE = path.join(benchDataDir(), 'licensing', 'licensing.db');
const RUNS = 7;
const ADMIN = BENCH_ACCOUNTS.admin;
const log = (text: string) => console.log(`  ${text}`);

async function postgresReachable(): Promise<boolean> {
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

function configFor(kind: 'sqlite' | 'postgres'): Config {
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: path.dirname(SQLITE_FILE) });
  const database: Config['database'] = kind === 'sqlite' ? { kind, file: SQLITE_FILE } : { kind, url: POSTGRES_URL };
  return { ...config, rateLimits: false, database };
}

/** Opens the database, seeding it first unless an earlier run left the full data set, and adds the activity once. */
async function prepare(kind: 'sqlite' | 'postgres'): Promise<App> {
  const config = configFor(kind);
  const database = openDatabase(config.database);
  const app = await buildApp(config, { database, logger: false });
  app.addHook('onClose', () => database.close());
  const report = await seedBench(app.ctx.db, benchSizes(), (text) => log(`[${kind}] seeding: ${text}`));
  if (!report.skipped) log(`[${kind}] seeded ${report.licenses.toLocaleString('en')} licenses in ${Math.round(report.seconds)} s`);
  const seen = await app.ctx.db.selectFrom('license_last_seen').select('license_id').limit(1).executeTakeFirst();
  if (!seen) {
    await addStatisticsActivity(app.ctx.db, (text) => log(`[${kind}] ${text}`));
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

async function cookieOf(app: App): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/api/session', payload: { username: ADMIN.email, password: ADMIN.password } });
  const cookie = response.cookies.find((c) => c.name === SESSION_COOKIE);
  if (!cookie) throw new Error(`login failed: ${response.body}`);
  return `${cookie.name}=${cookie.value}`;
}

/** The median and the slowest of several calls, after one warm-up call. */
async function time(app: App, cookie: string, url: string): Promise<{ median: number; max: number }> {
  const durations: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const started = performance.now();
    const response = await app.inject({ method: 'GET', url, headers: { cookie } });
    const elapsed = performance.now() - started;
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
    if (run > 0) durations.push(elapsed);
  }
  durations.sort((a, b) => a - b);
  return { median: durations[Math.floor(durations.length / 2)], max: durations[durations.length - 1] };
}

const threeYearsAgo = () => new Date(Date.now() - 3 * 365 * 86_400_000).toISOString().slice(0, 10);

const scenario: Scenario = {
  name: 'statistics',
  description: `each statistics category with ${benchLicensesText()}, on ${benchDatabases().join(' and ')} (target: under 300 ms)`,
  async run() {
    const figures: Figure[] = [];
    log(machineLoad());
    const kinds: ('sqlite' | 'postgres')[] = benchDatabases().filter((kind) => kind === 'sqlite');
    if (benchDatabases().includes('postgres') && (await postgresReachable())) kinds.push('postgres');
    else if (benchDatabases().includes('postgres')) log(`PostgreSQL at ${new URL(POSTGRES_URL).host} is unreachable: only SQLite is measured`);
    for (const kind of kinds) {
      const app = await prepare(kind);
      try {
        const cookie = await cookieOf(app);
        const product = await firstProduct(app);
        const allYears = `from=${threeYearsAgo()}&to=${new Date().toISOString().slice(0, 10)}`;
        const ranges = [
          { name: 'last 12 months', query: '' },
          { name: 'last 12 months, one product', query: `?productId=${product}` },
          { name: 'all 3 years', query: `?${allYears}` },
          { name: 'all 3 years, one product', query: `?${allYears}&productId=${product}` },
        ];
        for (const category of STATISTICS_CATEGORIES) {
          for (const range of ranges) {
            const { median, max } = await time(app, cookie, `/api/statistics/${category}${range.query}`);
            figures.push({ name: `${kind} ${category}, ${range.name} (median)`, value: median, unit: 'ms', target: { max: 300 } });
            figures.push({ name: `${kind} ${category}, ${range.name} (slowest of ${RUNS})`, value: max, unit: 'ms' });
          }
        }
      } finally {
        await app.close();
      }
    }
    log(machineLoad());
    return figures;
  },
};

async function firstProduct(app: App): Promise<number> {
  const row = await app.ctx.db.selectFrom('products').select('id').where('name', 'like', 'Bench Product %').orderBy('id').executeTakeFirstOrThrow();
  return row.id;
}

export default scenario;
