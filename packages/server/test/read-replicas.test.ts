/**
 * Read replicas (issue 55, DESIGN.md section 9) against a real streaming replica made with
 * pg_basebackup (replica-cluster.ts): who reads where, a person's own writes seen at once through a
 * lagging replica, and a replica that stops, lags for minutes or is promoted failing no request.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import type { Config } from '../src/platform/config.ts';
import { openDatabase, type Database } from '../src/platform/db/database.ts';
import { buildTestApp, client, loggedIn, testConfig } from './harness.ts';
import { activate, createTans, insertPolicy, insertProduct, machine, type Client } from './licensing-test-data.ts';
import { canMakeReplicaCluster, makeReplicaCluster, type ReplicaCluster } from './replica-cluster.ts';

const IN_CI = /^(true|1)$/i.test(process.env.CI ?? '');
if (!canMakeReplicaCluster && !IN_CI) console.warn('read-replicas.test.ts: skipped, PostgreSQL programs (pg_basebackup) or the postgres user missing');

const replicaReads = (metrics: string, name: string) => Number(new RegExp(`db_reads_total\\{database="${name.replace(/[/.]/g, '\\$&')}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0);

describe.skipIf(!canMakeReplicaCluster && !IN_CI)('read replicas', () => {
  let cluster: ReplicaCluster;
  let database: Database;
  let app: App;
  let replicaName: string;

  async function openApp(replicas: { maxLagMs: number; readYourWritesMs: number }, urls = [cluster.replicaUrl]) {
    const config: Config = testConfig({ kind: 'postgres', url: cluster.primaryUrl, replicas: { urls, ...replicas } });
    const opened = openDatabase(config.database, { log: { warn: () => undefined, info: () => undefined } });
    try {
      return { database: opened, app: await buildTestApp(config, opened) };
    } catch (error) {
      await opened.close();
      throw error;
    }
  }

  // The replicas are looked at every second: a state not reached in minutes is a fault, said with what the app saw.
  const waitFor = async (condition: () => boolean) => {
    const started = Date.now();
    while (!condition()) {
      if (Date.now() - started > 300_000) throw new Error(`replica state not reached: ${JSON.stringify(database?.replicas?.states)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const usable = () => database.replicas!.states[0].usable;

  beforeAll(async () => {
    cluster = await makeReplicaCluster();
    // A replica is followed at any lag (up to 10 minutes) here: what it has not replayed shows who reads where.
    ({ database, app } = await openApp({ maxLagMs: 600_000, readYourWritesMs: 601_000 }));
    replicaName = database.replicas!.states[0].name;
    await waitFor(usable);
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
    await cluster?.close();
  });

  it("reads a person's lists from the replica, and their own change from the primary at once, on every instance", async () => {
    const admin = client(app, (await loggedIn(app, 'ADMIN')).cookie);
    const productId = (await insertProduct(app)).id;
    const policyId = await insertPolicy(app);
    const [tan] = await createTans(admin, { productId, licensePolicyId: policyId, licenseCount: 5 });
    const customer = await loggedIn(app, 'USER');
    const bystander = client(app, (await loggedIn(app, 'USER')).cookie);
    await cluster.caughtUp();
    await cluster.delayReplay(600_000);

    const before = replicaReads(await app.ctx.metrics.render(), replicaName);
    expect((await bystander.get('/api/licenses')).statusCode).toBe(200);
    expect(replicaReads(await app.ctx.metrics.render(), replicaName)).toBeGreaterThan(before);

    // The customer activates; the replica holds the change back for minutes.
    const machineId = machine();
    const customerApi = client(app, customer.cookie);
    expect((await activate(customerApi, tan.code, machineId)).statusCode).toBe(201);
    // Their own list, through this instance and through a second one on the same databases.
    expect((await customerApi.get('/api/licenses')).json().items).toHaveLength(1);
    const second = await openApp({ maxLagMs: 600_000, readYourWritesMs: 601_000 });
    try {
      expect((await client(second.app, customer.cookie).get('/api/licenses')).json().items).toHaveLength(1);
    } finally {
      await second.app.close();
      await second.database.close();
    }
    // The desktop software of that machine gets its file at once: a machine the replica does not know is looked up on the primary.
    const file = await app.inject({ method: 'POST', url: '/api/client/v1/license', payload: { machineId, product: (await admin.get(`/api/products/${productId}`)).json().name } });
    expect(file.statusCode, file.body).toBe(200);
    // Someone else reads the replica, which has not replayed the activation yet.
    expect((await admin.get(`/api/tans/${tan.id}`)).json().activatedCount).toBe(1); // the admin wrote (created the TAN)
    expect((await bystander.get('/api/licenses')).json().items).toHaveLength(0);
    await cluster.delayReplay(0);
    await cluster.caughtUp();
  });

  it('skips a replica lagging past READ_REPLICA_MAX_LAG_MS: every read from the primary, nothing stale', async () => {
    const strict = await openApp({ maxLagMs: 500, readYourWritesMs: 1500 });
    try {
      await waitFor(() => strict.database.replicas!.states[0].usable);
      await cluster.delayReplay(600_000);
      const productId = (await insertProduct(strict.app)).id;
      await waitFor(() => strict.database.replicas!.states[0].reason === 'lagging');
      const reader = client(strict.app, (await loggedIn(strict.app, 'ADMIN')).cookie);
      expect((await reader.get(`/api/products/${productId}`)).statusCode).toBe(200);
      const metrics = await strict.app.ctx.metrics.render();
      expect(metrics).toMatch(/db_replica_usable\{replica="[^"]+"\} 0/);
      expect(Number(/db_replica_lag_seconds\{replica="[^"]+"\} ([\d.]+)/.exec(metrics)?.[1])).toBeGreaterThan(0.5);
    } finally {
      await cluster.delayReplay(0);
      await cluster.caughtUp();
      await strict.app.close();
      await strict.database.close();
    }
  });

  it('fails no request while the replica is stopped, and uses it again once it is back', async () => {
    const reader: Client = client(app, (await loggedIn(app, 'ADMIN')).cookie);
    await waitFor(usable);
    cluster.stopReplica();
    const answers = await Promise.all(Array.from({ length: 12 }, () => reader.get('/api/licenses')));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(12).fill(200));
    await waitFor(() => !usable());
    expect((await reader.get('/api/products')).statusCode).toBe(200);
    cluster.startReplica();
    await waitFor(usable);
    const before = replicaReads(await app.ctx.metrics.render(), replicaName);
    expect((await reader.get('/api/licenses')).statusCode).toBe(200);
    expect(replicaReads(await app.ctx.metrics.render(), replicaName)).toBeGreaterThan(before);
  });

  it('looks at a replica that does not answer one look at a time, not one more each second', async () => {
    // A replica address that takes connections and never answers: each look waits out its connect timeout (3 s).
    let open = 0;
    let mostOpen = 0;
    let accepted = 0;
    const sockets = new Set<net.Socket>();
    let thirdLook: () => void;
    const threeLooks = new Promise<void>((resolve) => (thirdLook = resolve));
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      // Read (and drop) what arrives, so that the client's close is seen.
      socket.resume();
      mostOpen = Math.max(mostOpen, ++open);
      if (++accepted === 3) thirdLook();
      socket.on('close', () => open--);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `postgres://postgres@127.0.0.1:${(silent.address() as net.AddressInfo).port}/postgres`;
    const opened = openDatabase({ kind: 'postgres', url: cluster.primaryUrl, replicas: { urls: [url], maxLagMs: 1000, readYourWritesMs: 0 } }, { log: { warn: () => undefined, info: () => undefined } });
    try {
      await opened.replicas!.start();
      await threeLooks;
      // Looks started every second whether or not the last had ended held several connection attempts at once.
      expect(mostOpen).toBe(1);
      expect(opened.replicas!.states[0].reason).toBe('down');
    } finally {
      await opened.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('stops the start with the replica named when it refuses the login, and shows no password', async () => {
    const wrong = cluster.replicaUrl.replace('postgres@', 'nobody:secret-word@');
    const attempt = openApp({ maxLagMs: 1000, readYourWritesMs: 5000 }, [wrong]);
    await expect(attempt).rejects.toThrow(/DATABASE_READ_URL: the read replica 127\.0\.0\.1:\d+\/postgres refused the login/);
    await expect(attempt).rejects.not.toThrow(/secret-word/);
  });

  it('reads nothing from a replica that was promoted (it no longer follows the primary)', async () => {
    const reader: Client = client(app, (await loggedIn(app, 'ADMIN')).cookie);
    cluster.promoteReplica();
    await waitFor(() => database.replicas!.states[0].reason === 'promoted');
    const before = replicaReads(await app.ctx.metrics.render(), replicaName);
    expect((await reader.get('/api/licenses')).statusCode).toBe(200);
    expect(replicaReads(await app.ctx.metrics.render(), replicaName)).toBe(before);
  });
});
