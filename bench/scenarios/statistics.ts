/**
 * Each statistics category with 1,000,000 licenses (DESIGN.md section 9: under 300 ms), on SQLite
 * and on PostgreSQL, through the real HTTP route as an administrator: the last twelve months (the
 * page's default) and all three years, for all products and for one. The data set is the licensing
 * bench's (`npm run cli -- seed:bench`, kept in BENCH_DATA_DIR and in PostgreSQL's database
 * BENCH_DATABASE_URL, default lm_bench) plus logins and desktop contacts (bench/statistics-data.ts),
 * added once. Seeding happens in the licensing bench; run it first on a fresh machine.
 */
import { STATISTICS_CATEGORIES } from '../../packages/contract/src/index.ts';
import type { App } from '../../packages/server/src/app.ts';
import { BENCH_ACCOUNTS } from '../../packages/server/src/modules/bench-seed/service.ts';
import type { Figure, Scenario } from '../run.ts';
import { benchDatabases as wantedDatabases, benchLicensesText, machineLoad } from '../support/bench-data.ts';
import { benchDatabases, cookieOf, log, seededApp, timings } from '../support/seeded-app.ts';

const RUNS = 7;

/** The median and the slowest of several calls, after one warm-up call. */
async function time(app: App, cookie: string, url: string): Promise<{ median: number; max: number }> {
  const durations = await timings(app, cookie, url, RUNS);
  return { median: durations[Math.floor(durations.length / 2)], max: durations[durations.length - 1] };
}

const threeYearsAgo = () => new Date(Date.now() - 3 * 365 * 86_400_000).toISOString().slice(0, 10);

const scenario: Scenario = {
  name: 'statistics',
  description: `each statistics category with ${benchLicensesText()}, on ${wantedDatabases().join(' and ')} (target: under 300 ms)`,
  async run() {
    const figures: Figure[] = [];
    log(machineLoad());
    for (const kind of await benchDatabases()) {
      const app = await seededApp(kind);
      try {
        const cookie = await cookieOf(app, BENCH_ACCOUNTS.admin);
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
