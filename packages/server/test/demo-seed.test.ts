/**
 * `npm run cli -- seed:demo` as an operator runs it, on a new SQLite file and on a new PostgreSQL
 * database: fourteen months of a vendor's history made through the API, that the web app then shows
 * to each kind of person, and a refusal on an installation that holds anything already.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import type { Config } from '../src/platform/config.ts';
import { openDatabase } from '../src/platform/db/database.ts';
import { DATABASE_KINDS, POSTGRES_URL, postgresReachable, buildTestApp, client, login, testConfig, type DatabaseKind } from './harness.ts';
import { IN_CI, runCli } from './processes.ts';

const PASSWORD = 'demo-secret-1';
const ADMIN_PASSWORD = 'the-operators-own-secret';
const DAY_MS = 86_400_000;

interface Installation {
  env: Record<string, string>;
  database: Config['database'];
  dispose(): Promise<void>;
}

async function newInstallation(kind: DatabaseKind): Promise<Installation> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-demo-'));
  const removeDir = () => fs.rmSync(dataDir, { recursive: true, force: true });
  if (kind === 'sqlite') {
    return { env: { DATA_DIR: dataDir }, database: { kind, file: path.join(dataDir, 'license-manager.db') }, dispose: async () => removeDir() };
  }
  const name = `lm_demo_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = Object.assign(new URL(POSTGRES_URL), { pathname: `/${name}` }).toString();
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url },
    database: { kind, url },
    async dispose() {
      removeDir();
      const cleanup = new pg.Client({ connectionString: POSTGRES_URL });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

for (const kind of DATABASE_KINDS) {
  describe.skipIf(kind === 'postgres' && !postgresReachable && !IN_CI)(`seed:demo [${kind}]`, () => {
    let installation: Installation;
    let seeded: ReturnType<typeof runCli>;
    let app: App;
    let closeDatabase: () => Promise<void>;

    beforeAll(async () => {
      installation = await newInstallation(kind);
      // The demo may run before the first start: it then creates the first administrator, as the server would.
      seeded = runCli(['seed:demo', '--password', PASSWORD], { env: { ...installation.env, ADMIN_EMAIL: 'owner@example.org', ADMIN_PASSWORD } });
      const database = openDatabase(installation.database);
      closeDatabase = () => database.close();
      app = await buildTestApp(testConfig(installation.database), database);
    }, 120_000);

    afterAll(async () => {
      await app?.close();
      await closeDatabase?.();
      await installation?.dispose();
    });

    it('reports what it made and how to log in, and leaves nobody signed in', async () => {
      expect(seeded.status, seeded.stderr).toBe(0);
      expect(seeded.stderr).toBe('');
      expect(seeded.stdout).toMatch(/^Seeded in [\d.]+ s: 5 products, 7 features, \d+ TANs, \d+ licenses, 25 accounts\.$/m);
      expect(seeded.stdout).toContain('owner@example.org with the password of ADMIN_PASSWORD (created now as the first administrator)');
      expect(seeded.stdout).toContain('distributor@example.com');
      expect(seeded.stdout).toContain(`each with the password ${PASSWORD}`);
      expect(Number((await app.ctx.db.selectFrom('sessions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)).toBe(0);
      expect(Number((await app.ctx.db.selectFrom('mail_outbox').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)).toBe(0);
    });

    it("gives a customer licenses of each kind, an upgrade taken and one offered, on the customer's own page", async () => {
      const customer = client(app, await login(app, 'juergen.mueller@example.com', PASSWORD));
      const page = (await customer.get('/api/licenses', { query: { limit: '100' } })).json() as { items: { kind: string; productName: string; upgradedToId: number | null; freeUpgrade: unknown; revoked: boolean }[] };
      expect(new Set(page.items.map((license) => license.kind))).toEqual(new Set(['TAN', 'TEMPORARY']));
      expect(page.items.map((license) => license.productName)).toEqual(expect.arrayContaining(['Acme CAD 5', 'Acme Render Server 3']));
      // Across all customers, some took the free upgrade to version 6 and some still see it offered.
      const admin = client(app, await login(app, 'owner@example.org', ADMIN_PASSWORD));
      const customers = (await admin.get('/api/users', { query: { accessRole: 'USER', limit: '100' } })).json() as { items: { id: number }[] };
      expect(customers.items).toHaveLength(24);
      const all = (await Promise.all(customers.items.map(async ({ id }) => (await admin.get('/api/licenses', { query: { userId: String(id), limit: '100' } })).json().items))).flat() as typeof page.items;
      expect(all.filter((license) => license.productName === 'Acme CAD 6').length).toBeGreaterThan(3);
      expect(all.some((license) => license.upgradedToId !== null)).toBe(true);
      expect(all.some((license) => license.freeUpgrade !== null)).toBe(true);
      expect(all.filter((license) => license.revoked)).toHaveLength(1);
    });

    it('gives the distributor its own TANs, one of them revoked', async () => {
      const distributor = client(app, await login(app, 'distributor@example.com', PASSWORD));
      const tans = (await distributor.get('/api/tans', { query: { limit: '100' } })).json() as { items: { distributorName: string | null; revoked: boolean; activatedCount: number; tags: string[] }[]; totalCount: number };
      expect(tans.totalCount).toBeGreaterThan(10);
      expect(tans.items.every((tan) => tan.tags.includes('northwind'))).toBe(true);
      expect(tans.items.filter((tan) => tan.revoked)).toHaveLength(1);
      expect(tans.items.filter((tan) => tan.activatedCount > 0).length).toBeGreaterThan(10);
    });

    it('fills the statistics with fourteen months of history, as the change log records it', async () => {
      const admin = client(app, await login(app, 'owner@example.org', ADMIN_PASSWORD));
      const today = new Date().toISOString().slice(0, 10);
      const from = new Date(Date.now() - 14 * 31 * DAY_MS).toISOString().slice(0, 10);
      const statistics = async (category: string) => (await admin.get(`/api/statistics/${category}`, { query: { from, to: today } })).json() as { months: { values: Record<string, number> }[]; totals: Record<string, number> };
      const activations = await statistics('tan-activations');
      expect(activations.months.filter((month) => month.values.activations > 0).length).toBeGreaterThanOrEqual(11);
      const trials = await statistics('trial-licenses');
      expect(trials.totals.converted).toBeGreaterThan(0);
      expect(trials.totals.converted).toBeLessThan(trials.totals.machines);
      expect((await statistics('new-users')).months.filter((month) => month.values.users > 0).length).toBeGreaterThanOrEqual(11);
      expect((await statistics('active-machines')).totals.machines).toBeGreaterThan(40);
      expect((await statistics('tan-free-updates-expired')).totals.tans).toBeGreaterThan(0);

      const changes = (await admin.get('/api/changes/License', { query: { limit: '1000', sort: 'timestamp' } })).json() as { items: { timestamp: string; operation: string }[] };
      const first = Date.parse(changes.items[0].timestamp);
      const last = Date.parse(changes.items.at(-1)!.timestamp);
      expect(last - first).toBeGreaterThan(365 * DAY_MS);
      expect(last).toBeLessThanOrEqual(Date.now());
      expect(changes.items.map((change) => change.operation)).toEqual(expect.arrayContaining(['insert', 'update']));
    });

    it('refuses an installation that holds anything already, saying what and changing nothing', async () => {
      const licensesBefore = (await app.ctx.db.selectFrom('licenses').select('id').execute()).length;
      const again = runCli(['seed:demo', '--password', PASSWORD], { env: installation.env });
      expect(again.status).toBe(1);
      expect(again.stdout).toBe('');
      expect(again.stderr.trim()).toMatch(
        /^Error: seed:demo fills a new installation only, and this one already has 5 products, 7 features, \d+ TANs, \d+ licenses, 25 accounts besides administrators\. Point DATA_DIR or DATABASE_URL at a new database to try the demo\.$/,
      );
      expect((await app.ctx.db.selectFrom('licenses').select('id').execute()).length).toBe(licensesBefore);
    });
  });
}
