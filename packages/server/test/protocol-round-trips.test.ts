/**
 * The desktop protocol's cost in database round trips (issue 55 item 3, DESIGN.md section 9): on
 * PostgreSQL a conditional refresh that answers 304 runs one statement, for a machine-bound and a
 * floating license alike; its bookkeeping (last contact, seat renewal) is written later, off the path.
 * The write-behind timers are stopped before each measured request (its own bookkeeping starts a new
 * one, which first runs FLUSH_INTERVAL_MS later), so that only the request's statements are counted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { lastSeenRecorder } from '../src/modules/license-files/last-seen.ts';
import { seatRenewals } from '../src/modules/license-files/seats.ts';
import { openDatabase, type Database } from '../src/platform/db/database.ts';
import { buildTestApp, freshDatabase, loggedIn, postgresReachable, testConfig, type TestDatabase } from './harness.ts';
import { flushLastSeen, flushSeatRenewals, insertLicense, insertPolicy, insertProduct, insertTan, policyId, unique } from './licensing-fixtures.ts';

const IN_CI = /^(true|1)$/i.test(process.env.CI ?? '');

describe.skipIf(!postgresReachable && !IN_CI)('protocol round trips [postgres]', () => {
  let measuring: string[] | null = null;
  let fresh: TestDatabase;
  let counted: Database;
  let app: App;

  beforeAll(async () => {
    fresh = await freshDatabase('postgres');
    counted = openDatabase(fresh.config, { onQuery: ({ sql }) => measuring?.push(sql) });
    app = await buildTestApp(testConfig(fresh.config), counted);
  });

  afterAll(async () => {
    await app?.close();
    await counted?.close();
    await fresh?.dispose();
  });

  const ask = (machineId: string, product: string, etag?: string) =>
    app.inject({ method: 'POST', url: '/api/client/v1/license', payload: { machineId, product }, headers: etag ? { 'if-none-match': etag } : {} });

  /** The statements one request ran. */
  async function statementsOf(send: () => Promise<{ statusCode: number }>, status: number): Promise<string[]> {
    await Promise.all([lastSeenRecorder(app.ctx).stop(), seatRenewals(app.ctx).stop()]);
    const statements: string[] = (measuring = []);
    try {
      expect((await send()).statusCode).toBe(status);
    } finally {
      measuring = null;
    }
    return statements;
  }

  async function heldFile(policy: number, options: { floating?: boolean } = {}) {
    const owner = await loggedIn(app);
    const product = await insertProduct(app);
    const tanId = options.floating ? await insertTan(app, { productId: product.id, policyId: policy, licenseCount: 2 }) : null;
    const machineId = unique('machine');
    await insertLicense(app, { ownerId: owner.id, productId: product.id, policyId: policy, machineId, tanId, kind: 'TAN', permanent: true });
    const first = await ask(machineId, product.name);
    expect(first.statusCode, first.body).toBe(200);
    await flushLastSeen(app);
    await flushSeatRenewals(app);
    return { machineId, product: product.name, etag: first.headers.etag as string };
  }

  it('answers a conditional refresh of a machine-bound license with one statement', async () => {
    const held = await heldFile(await policyId(app, 'SINGLE_HOST_INDEFINITE'));
    const statements = await statementsOf(() => ask(held.machineId, held.product, held.etag), 304);
    expect(statements).toHaveLength(1);
  });

  it('answers a conditional refresh of a floating seat with one statement (the renewal is written later)', async () => {
    const policy = await insertPolicy(app, { type: 'FLOATING', licenseMaxValidDays: 1, refetchIntervalSeconds: 900, refetchBeforeExpirySeconds: 3600 });
    const held = await heldFile(policy, { floating: true });
    const statements = await statementsOf(() => ask(held.machineId, held.product, held.etag), 304);
    expect(statements, statements.join('\n')).toHaveLength(1);
  });

  it('counts what it should: a refresh of a machine the catalogue cache does not know yet costs more', async () => {
    const held = await heldFile(await policyId(app, 'SINGLE_HOST_INDEFINITE'));
    const { catalogueCache } = await import('../src/modules/license-files/catalogue-cache.ts');
    catalogueCache(app.ctx).clear();
    const statements = await statementsOf(() => ask(held.machineId, held.product, held.etag), 304);
    expect(statements.length).toBeGreaterThan(1);
  });
});
