/**
 * The staff home (`GET /api/dashboard`, issue 49) with 1,000,000 TANs and licenses, on SQLite and on
 * PostgreSQL, as an administrator (every TAN) and as a distributor (its own): p95 of 40 calls, target
 * 50 ms like a list page (DESIGN.md section 9). The licensing bench's data set (support/seeded-app.ts)
 * gets, once, TANs that need someone: 1 in 97 suspended, 1 in 89 with a subscription ending within
 * 14 days, 1 in 83 at 4 in 5 of its count.
 */
import { sql } from 'kysely';
import { addDays, todayOf } from '../../packages/contract/src/license.ts';
import type { App } from '../../packages/server/src/app.ts';
import { BENCH_ACCOUNTS } from '../../packages/server/src/modules/bench-seed/service.ts';
import type { Figure, Scenario } from '../run.ts';
import { machineLoad } from '../support/bench-data.ts';
import { benchDatabases, cookieOf, log, percentile, seededApp, timings } from '../support/seeded-app.ts';

const RUNS = 40;

/** TANs in each attention state, added once (none suspended yet: a fresh data set). */
async function addAttention(app: App, kind: string): Promise<void> {
  const db = app.ctx.db;
  if (await db.selectFrom('tans').select('id').where('suspended', '=', true).limit(1).executeTakeFirst()) return;
  const started = performance.now();
  await sql`update tans set suspended = true where id % 97 = 0`.execute(db);
  await sql`update tans set valid_until = ${addDays(todayOf(), 5)} where id % 89 = 0`.execute(db);
  await sql`update tans set license_count = 5, activated_count = 4 where id % 83 = 0`.execute(db);
  await sql.raw(kind === 'postgres' ? 'vacuum analyze tans' : 'analyze tans').execute(db);
  log(`[${kind}] TANs that need someone added in ${Math.round(performance.now() - started)} ms`);
}

const scenario: Scenario = {
  name: 'dashboard',
  description: 'the staff home with 1,000,000 TANs and licenses, administrator and distributor, on both databases (target: p95 under 50 ms)',
  async run() {
    const figures: Figure[] = [];
    log(machineLoad());
    for (const kind of await benchDatabases()) {
      const app = await seededApp(kind);
      try {
        await addAttention(app, kind);
        for (const [who, account] of [
          ['administrator', BENCH_ACCOUNTS.admin],
          ['distributor', BENCH_ACCOUNTS.distributor],
        ] as const) {
          const cookie = await cookieOf(app, account);
          const durations = await timings(app, cookie, '/api/dashboard', RUNS);
          const answer = (await app.inject({ url: '/api/dashboard', headers: { cookie } })).json();
          log(`[${kind}] ${who}: suspended ${answer.suspended.count}, ending ${answer.subscriptionsEnding.count}, near count ${answer.tansNearCount.count}, activations ${answer.activations.count}`);
          figures.push({ name: `${kind} dashboard, ${who} (p95 of ${RUNS})`, value: percentile(durations, 0.95), unit: 'ms', target: { max: 50 } });
          figures.push({ name: `${kind} dashboard, ${who} (median)`, value: percentile(durations, 0.5), unit: 'ms' });
        }
      } finally {
        await app.close();
      }
    }
    log(machineLoad());
    return figures;
  },
};

export default scenario;
