/**
 * What the licensing invariants suites share: a catalogue made through the administrator's API, and
 * races of parallel requests. On PostgreSQL the racers alternate between two app instances on one
 * schema (each with its own connection pool), as behind a load balancer; on SQLite one instance's
 * requests interleave in its event loop while the database runs one write transaction at a time.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../src/app.ts';
import { openDatabase } from '../src/platform/db/database.ts';
import { buildTestApp, client, loggedIn, testConfig, type Harness } from './harness.ts';

export type Client = ReturnType<typeof client>;
export type Response = LightMyRequestResponse;

export const RACERS = 10;
export const uniqueName = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
export const machine = () => `M-${randomBytes(6).toString('hex')}`;

/** The statuses and error codes of a race's answers, as `{ '201': 1, '409 ERR_MACHINE_ID_USED': 9 }`. */
export function outcomes(responses: readonly Response[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const response of responses) {
    const code = response.statusCode >= 400 ? ` ${(response.json() as { error?: string }).error}` : '';
    const key = `${response.statusCode}${code}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

export interface PolicyOptions {
  type?: 'PERPETUAL' | 'FLOATING';
  maxDifferentMachinesCount?: number;
  maxDifferentMachinesIntervalHours?: number;
  refetchIntervalSeconds?: number;
  refetchBeforeExpirySeconds?: number;
  maxBorrowDays?: number;
  leaseMode?: 'MACHINE' | 'INSTANCE';
  leaseTtlSeconds?: number;
}

export interface ProductOptions {
  policyId?: number;
  trialDays?: number | null;
  repeatTrialAfterMonths?: number | null;
  version?: string;
  name?: string;
  releaseDate?: string;
}

/** One suite's apps, administrator and catalogue helpers; call at the top of a describeBothDatabases body. */
export function invariantsSetup(t: Harness) {
  let second: App | undefined;
  let admin: Client;
  const apps = () => (second ? [t.app, second] : [t.app]);

  const cookies = { admin: '' };
  beforeAll(async () => {
    cookies.admin = (await loggedIn(t.app, 'ADMIN')).cookie;
    admin = client(t.app, cookies.admin);
    if (t.kind === 'postgres') second = await buildTestApp(testConfig(t.config.database), openDatabase(t.config.database));
  });
  afterAll(async () => {
    if (!second) return;
    await second.close();
    await second.ctx.close();
  });

  /** A caller with a cookie, answered by the instance of racer `i`. */
  const as = (cookie: string | null, i = 0): Client => client(apps()[i % apps().length], cookie);

  async function created(response: Response): Promise<{ id: number } & Record<string, unknown>> {
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  async function policy(options: PolicyOptions = {}): Promise<number> {
    const body = {
      name: uniqueName('INVARIANT_POLICY'),
      type: options.type ?? 'PERPETUAL',
      publicName: { en: 'Invariant policy' },
      licenseMaxValidDays: 30,
      refetchIntervalSeconds: options.refetchIntervalSeconds ?? 3600,
      refetchBeforeExpirySeconds: options.refetchBeforeExpirySeconds ?? 900,
      maxDifferentMachinesCount: options.maxDifferentMachinesCount ?? 100,
      maxDifferentMachinesIntervalHours: options.maxDifferentMachinesIntervalHours ?? 720,
      freeUpdatesPeriodDays: 366,
      maxBorrowDays: options.maxBorrowDays ?? 0,
      ...(options.leaseMode ? { leaseMode: options.leaseMode, leaseTtlSeconds: options.leaseTtlSeconds ?? null } : {}),
    };
    return (await created(await admin.post('/api/license-policies', { body }))).id;
  }

  return {
    get admin() {
      return admin;
    },
    /** The suite's app instances (two on PostgreSQL), for what each keeps in memory. */
    apps,
    /** The administrator's session cookie, for a request on another instance. */
    cookies,
    as,
    /** `n` requests at once; racer `i` goes to instance `i mod 2` on PostgreSQL. */
    race(n: number, request: (i: number) => Promise<Response>): Promise<Response[]> {
      return Promise.all(Array.from({ length: n }, (_, i) => request(i)));
    },
    async customer(): Promise<{ id: number; email: string; cookie: string; api: Client }> {
      const user = await loggedIn(t.app, 'USER');
      return { ...user, api: as(user.cookie) };
    },
    policy,
    async product(options: ProductOptions = {}): Promise<{ id: number; name: string; version: string }> {
      const body = {
        name: options.name ?? uniqueName('Invariant'),
        version: options.version ?? '1.0',
        trialDays: options.trialDays === undefined ? 30 : options.trialDays,
        repeatTrialAfterMonths: options.repeatTrialAfterMonths ?? null,
        releaseDate: options.releaseDate ?? '2025-01-01',
        defaultLicensePolicyId: options.policyId ?? (await policy()),
      };
      const product = await created(await admin.post('/api/products', { body }));
      return { id: product.id, name: product.name as string, version: product.version as string };
    },
    async tans(body: { productId: number; licensePolicyId?: number; licenseCount?: number; freeUpdatesUntil?: string }, count = 1) {
      const response = await admin.post('/api/tans', { query: { count: String(count) }, body: { licenseCount: 1, ...body } });
      expect(response.statusCode, response.body).toBe(201);
      return response.json().items as { id: number; code: string }[];
    },
    /** The database, to read the rows a race left. */
    db: () => t.app.ctx.db,
  };
}

export const today = () => new Date().toISOString().slice(0, 10);
export const daysFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
