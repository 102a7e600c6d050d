import { describe, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { createTestApp, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { insertLicense, insertProduct, policyId, unique } from './licensing-fixtures.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition. */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((sample) => sample.name === name && Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted))?.value;
}

async function scrape(app: App, headers: Record<string, string> = {}): Promise<Sample[]> {
  const response = await app.inject({ url: '/metrics', headers });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseMetrics(response.body);
}

describeBothDatabases('/metrics', (t) => {
  it('reports the version, the database kind, its pool, and the event-loop lag', async () => {
    const samples = await scrape(t.app);
    expect(value(samples, 'license_manager_info', { database: t.kind })).toBe(1);
    expect(samples.find((sample) => sample.name === 'license_manager_info')?.labels.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(value(samples, 'license_manager_database_up')).toBe(1);
    expect(value(samples, 'license_manager_db_pool_max')).toBe(t.kind === 'sqlite' ? 1 : 20);
    expect(value(samples, 'license_manager_db_pool_total')).toBeGreaterThanOrEqual(1);
    expect(value(samples, 'license_manager_db_pool_waiting')).toBe(0);
    expect(value(samples, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(value(samples, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
    if (t.kind === 'sqlite') expect(value(samples, 'license_manager_sqlite_file_bytes', { file: 'database' })).toBeGreaterThan(0);
    else expect(value(samples, 'license_manager_sqlite_file_bytes')).toBeUndefined();
  });

  it('counts and times requests by route pattern and status, never by raw URL', async () => {
    const { cookie } = await loggedIn(t.app, 'ADMIN');
    for (let i = 0; i < 3; i++) await t.app.inject({ url: '/api/products/987654321', headers: { cookie } });
    await t.app.inject({ url: '/api/products/123456789' });
    await t.app.inject({ url: '/api/no-such-thing/42' });
    const samples = await scrape(t.app);
    const count = (route: string, status: string) =>
      value(samples, 'license_manager_http_request_duration_seconds_count', { method: 'GET', route, status_code: status });
    expect(count('/api/products/:id', '404')).toBe(3);
    expect(count('/api/products/:id', '401')).toBe(1);
    expect(count('(no route)', '404')).toBeGreaterThanOrEqual(1);
    expect(value(samples, 'license_manager_http_request_duration_seconds_bucket', { route: '/api/products/:id', status_code: '404', le: '+Inf' })).toBe(3);
    expect(samples.some((sample) => /987654321|123456789|no-such-thing/.test(sample.labels.route ?? ''))).toBe(false);
  });

  it('counts protocol answers by outcome, with every known outcome present from the start', async () => {
    const fresh = await t.newApp();
    const before = await scrape(fresh);
    for (const outcome of ['200', 'ERR_NO_LICENSE', 'ERR_LICENSE_REVOKED', 'ERR_LICENSE_EXPIRED', 'ERR_NO_SEAT', 'ERR_TOO_MANY_MACHINES', 'ERR_VALIDATION', 'ERR_RATE_LIMITED']) {
      expect(value(before, 'license_manager_protocol_responses_total', { operation: 'license', outcome }), outcome).toBe(0);
    }
    expect(value(before, 'license_manager_protocol_responses_total', { operation: 'release', outcome: '204' })).toBe(0);

    const product = await insertProduct(fresh);
    const machineId = unique('metrics-machine');
    const { id: ownerId } = await loggedIn(fresh, 'USER');
    await insertLicense(fresh, { ownerId, productId: product.id, policyId: await policyId(fresh, 'SINGLE_HOST_INDEFINITE'), machineId, permanent: true, kind: 'TAN' });
    const protocol = (method: 'POST' | 'DELETE', body: unknown) => fresh.inject({ method, url: '/api/client/v1/license', payload: body as object });
    expect((await protocol('POST', { machineId, product: product.name })).statusCode).toBe(200);
    expect((await protocol('POST', { machineId, product: product.name })).statusCode).toBe(200);
    expectError(await protocol('POST', { machineId: 'unknown-machine', product: product.name }), 404, 'ERR_NO_LICENSE');
    expectError(await protocol('POST', { machineId: '' }), 400, 'ERR_VALIDATION');
    expect((await protocol('DELETE', { machineId, product: product.name })).statusCode).toBe(204);
    expect((await fresh.inject({ url: '/api/client/v1/keys' })).statusCode).toBe(200);

    const after = await scrape(fresh);
    const outcome = (operation: string, name: string) => value(after, 'license_manager_protocol_responses_total', { operation, outcome: name });
    expect(outcome('license', '200')).toBe(2);
    expect(outcome('license', 'ERR_NO_LICENSE')).toBe(1);
    expect(outcome('license', 'ERR_VALIDATION')).toBe(1);
    expect(outcome('license', 'ERR_LICENSE_REVOKED')).toBe(0);
    expect(outcome('release', '204')).toBe(1);
    expect(outcome('keys', '200')).toBe(1);
  });

  it('reports the mail outbox: pending, failed, and the age of the oldest pending mail', async () => {
    const fresh = await t.newApp();
    const empty = await scrape(fresh);
    expect(value(empty, 'license_manager_outbox_messages', { outbox: 'mail', state: 'pending' })).toBe(0);
    expect(value(empty, 'license_manager_outbox_oldest_pending_age_seconds', { outbox: 'mail' })).toBe(0);

    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    const mail = { recipient: 'a@example.com', subject: 'Hello', text_body: 'x', html_body: 'x' };
    // Deferred far ahead, so that the outbox worker leaves them where they are.
    await fresh.ctx.db
      .insertInto('mail_outbox')
      .values([
        { ...mail, created_at: ago(10), next_attempt_at: '2999-01-01T00:00:00.000Z' },
        { ...mail, created_at: ago(2), next_attempt_at: '2999-01-01T00:00:00.000Z' },
        { ...mail, created_at: ago(5000), next_attempt_at: ago(1000), failed_at: ago(600) },
      ])
      .execute();
    const samples = await scrape(fresh);
    expect(value(samples, 'license_manager_outbox_messages', { outbox: 'mail', state: 'pending' })).toBe(2);
    expect(value(samples, 'license_manager_outbox_messages', { outbox: 'mail', state: 'failed' })).toBe(1);
    const age = value(samples, 'license_manager_outbox_oldest_pending_age_seconds', { outbox: 'mail' })!;
    expect(age).toBeGreaterThanOrEqual(600);
    expect(age).toBeLessThan(660);
  });

  it('answers without METRICS_TOKEN only to direct connections from this machine', async () => {
    await scrape(t.app, {});
    expect((await t.app.inject({ url: '/metrics', remoteAddress: '::1' })).statusCode).toBe(200);
    expectError(await t.app.inject({ url: '/metrics', remoteAddress: '203.0.113.7' }), 403, 'ERR_FORBIDDEN');
    // Through the reverse proxy, the peer is the proxy on this machine: still refused.
    expectError(await t.app.inject({ url: '/metrics', headers: { 'x-forwarded-for': '203.0.113.7' } }), 403, 'ERR_FORBIDDEN');
    expectError(await t.app.inject({ url: '/metrics', headers: { forwarded: 'for=203.0.113.7' } }), 403, 'ERR_FORBIDDEN');
  });

  it('asks for METRICS_TOKEN as a Bearer token when it is set, from anywhere', async () => {
    const token = 'metrics-token-0123456789abcdef';
    const guarded = await t.newApp({ env: { METRICS_TOKEN: token } });
    const refused = await guarded.inject({ url: '/metrics' });
    expectError(refused, 401, 'ERR_UNAUTHENTICATED');
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expectError(await guarded.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}x` } }), 401, 'ERR_UNAUTHENTICATED');
    expectError(await guarded.inject({ url: '/metrics', headers: { authorization: token } }), 401, 'ERR_UNAUTHENTICATED');
    expect((await guarded.inject({ url: '/metrics', remoteAddress: '203.0.113.7', headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '198.51.100.1' } })).statusCode).toBe(200);
    await scrape(guarded, { authorization: `bearer ${token}` });
  });
});

describe('SQLite connection use', () => {
  it('counts queries waiting for the one connection while a transaction holds it', async () => {
    const testApp = await createTestApp('sqlite');
    try {
      const { ctx } = testApp.app;
      let finish!: () => void;
      const held = new Promise<void>((resolve) => (finish = resolve));
      let started!: () => void;
      const inside = new Promise<void>((resolve) => (started = resolve));
      const transaction = ctx.db.transaction().execute(async (trx) => {
        await trx.selectFrom('users').select('id').execute();
        started();
        await held;
      });
      await inside;
      const waitingQueries = [ctx.db.selectFrom('users').select('id').execute(), ctx.db.selectFrom('products').select('id').execute()];
      await new Promise((resolve) => setImmediate(resolve));
      expect(ctx.poolUsage()).toEqual({ max: 1, total: 1, idle: 0, waiting: 2, lockWaiting: 0, waitTimeouts: 0 });
      // The scrape reads the pool as it finds it, then waits for the connection like everyone else.
      const scraping = testApp.app.inject({ url: '/metrics' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      finish();
      await transaction;
      await Promise.all(waitingQueries);
      const samples = parseMetrics((await scraping).body);
      expect(value(samples, 'license_manager_db_pool_waiting')).toBe(2);
      expect(value(samples, 'license_manager_db_pool_idle')).toBe(0);
      expect(value(samples, 'license_manager_database_up')).toBe(1);
      expect(ctx.poolUsage()).toEqual({ max: 1, total: 1, idle: 1, waiting: 0, lockWaiting: 0, waitTimeouts: 0 });
    } finally {
      await testApp.close();
    }
  });
});

