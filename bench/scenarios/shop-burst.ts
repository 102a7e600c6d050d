/**
 * A burst of shop events (issue 48 item 7): 1,000 Stripe `checkout.session.completed` events, 50
 * at a time, at one connection of the real app on PostgreSQL (its own database, BENCH_SHOP_DATABASE_URL,
 * default postgres://postgres@127.0.0.1:5432/lm_bench_shop, made anew each run), over HTTP. Half the
 * events are bought by 100 returning buyers, a tenth are repeats of an event delivered before: what a
 * shop's launch day sends. Rate limits are off (they are not what is measured). Figures: events per
 * second, and how many were answered 503 (`ERR_DATABASE_UNAVAILABLE`, the pool exhausted): none.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Figure, Scenario } from '../run.ts';
import { stripeSignatureHeader } from '../../packages/server/src/modules/shop/connectors/stripe.ts';

const URL_BASE = process.env.BENCH_SHOP_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/lm_bench_shop';
const EVENTS = Number(process.env.BENCH_SHOP_EVENTS ?? 1000);
const PARALLEL = Number(process.env.BENCH_SHOP_PARALLEL ?? 50);
const SECRET = 'whsec_bench_shop_burst_0123456789';
const log = (text: string) => console.log(`  ${text}`);

async function freshDatabase(): Promise<void> {
  const url = new URL(URL_BASE);
  const name = url.pathname.slice(1);
  const admin = new pg.Client({ connectionString: Object.assign(new URL(URL_BASE), { pathname: '/postgres' }).toString() });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.query(`create database "${name}"`);
  await admin.end();
}

function checkout(eventId: string, price: string, email: string) {
  const session = `cs_${randomBytes(8).toString('hex')}`;
  return {
    id: eventId,
    object: 'event',
    api_version: '2025-03-31.basil',
    created: Math.floor(Date.now() / 1000),
    type: 'checkout.session.completed',
    data: { object: { id: session, object: 'checkout.session', mode: 'payment', payment_status: 'paid', payment_intent: `pi_${randomBytes(8).toString('hex')}`, customer_details: { email, name: 'Ada Lovelace' }, metadata: { items: `${price}:1` } } },
  };
}

const scenario: Scenario = {
  name: 'shop-burst',
  description: `${EVENTS} Stripe events, ${PARALLEL} at a time, on PostgreSQL: throughput and 503s`,
  async run(): Promise<Figure[]> {
    await freshDatabase();
    const { buildApp } = await import('../../packages/server/src/app.ts');
    const { loadConfig } = await import('../../packages/server/src/platform/config.ts');
    const { sealSecret } = await import('../../packages/server/src/modules/webhooks/secrets.ts');
    const config = { ...loadConfig({ DATABASE_URL: URL_BASE, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error', DATA_DIR: `/tmp/lm-bench-shop-${process.pid}` }), rateLimits: false };
    const app = await buildApp(config);
    const db = app.ctx.db;
    const now = new Date().toISOString();
    const product = await db
      .insertInto('products')
      .values({ name: 'Burst', version: '1.0', active: true, trial_days: null, repeat_trial_after_months: null, ignore_trials_before: null, release_date: '2025-01-01', default_license_policy_id: null, notes: null, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const connection = await db.insertInto('shop_connections').values({ provider: 'stripe', name: 'Burst', secret: sealSecret(app.ctx, SECRET), grace_days: 0, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
    await db.insertInto('shop_mappings').values({ connection_id: connection.id, external_id: 'price_burst', product_id: product.id, license_policy_id: null, seats: 1 }).execute();
    const address = await app.listen({ port: 0, host: '127.0.0.1' });

    const bodies: string[] = [];
    for (let index = 0; index < EVENTS; index++) {
      // Every tenth a repeat of an earlier event; half of the others by one of 100 returning buyers.
      if (index % 10 === 9) bodies.push(bodies[index - 5]);
      else bodies.push(JSON.stringify(checkout(`evt_${index}_${randomBytes(6).toString('hex')}`, 'price_burst', index % 2 ? `Returning.${index % 100}@Example.com` : `new.${index}@example.com`)));
    }
    const statuses = new Map<number, number>();
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const response = await fetch(`${address}/api/webhooks/shop/${connection.id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'stripe-signature': stripeSignatureHeader(SECRET, body, Math.floor(Date.now() / 1000)) },
          body,
        });
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    const seconds = (performance.now() - started) / 1000;
    const tans = await db.selectFrom('shop_orders').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    log(`answers: ${[...statuses].map(([status, count]) => `${count}×${status}`).join(', ')}; TANs made: ${tans.count}; ${seconds.toFixed(1)} s`);
    await app.close();
    return [
      { name: 'events per second', value: EVENTS / seconds, unit: 'ev/s' },
      { name: '503 answers (database pool exhausted)', value: statuses.get(503) ?? 0, unit: 'answers', target: { max: 0 } },
      { name: 'answers other than 200', value: EVENTS - (statuses.get(200) ?? 0), unit: 'answers', target: { max: 0 } },
    ];
  },
};

export default scenario;
