/**
 * The desktop protocol against the yardstick of DESIGN.md section 9: the server runs in one child
 * process on the embedded database seeded with 1,000,000 licenses; autocannon drives it from this
 * process with 100 connections. In each of ROUNDS rounds the loads take turns of SLICE seconds until
 * each has run DURATION (support/load.ts), so that whatever else the machine does falls on all of
 * them alike, and every figure is a ratio within one round. A turn ends once the writes its answers
 * left behind (last contacts, seat renewals) are done, and counts their time and CPU:
 *
 *   bare            GET of a bare Fastify server (no plugins, no hooks) in the same process, answering
 *                   a fixed JSON: the machine's ceiling. A lookup alone costs about as much as this whole
 *                   route, so a ratio to it measures the machine, not the code; shown, no target
 *   yardstick 304   POST of the same bare server's yardstick route (support/yardstick.ts): the body
 *                   parsed, one indexed node:sqlite lookup of the machine's license in a table of the
 *                   product's schema and rows plus a stored payload and ETag, and a 304 as the ETag
 *                   matches; with a License-Server-Time header signed once a second
 *   conditional     POST /api/client/v1/license with the ETag of a file the machine got before: 304
 *   yardstick sign  the yardstick route without If-None-Match: one Ed25519 signature of the stored payload
 *   full            POST /api/client/v1/license for random machines, no If-None-Match: a signature each
 *   app route       GET of a route at the app's root answering the fixed JSON: what the hooks every
 *                   route of the app runs (metrics, error handling) leave of bare. Diagnostic
 *   protocol 304    the conditional's request to a route in a scope like the protocol's (its hooks: headers,
 *                   signed time, the body's validation, the per-machine and per-address rate limit) that answers 304 at
 *                   once: what any conditional refresh served by this app could reach with no lookup and
 *                   no check at all. Diagnostic
 *   in protocol 304 the yardstick's own handler (its lookup in its database, its stored ETag) in that scope:
 *   in protocol sign  what the yardstick itself would reach as a route of this app, with the hooks
 *                   every protocol answer needs. The ceiling of both targets' ratios for any
 *                   implementation of the protocol in this app (its answers are not counted in
 *                   /metrics, which the product's are: so a little above the real ceiling). Diagnostic
 *
 * Targets (DESIGN.md section 9, issue 55): in the worst round a conditional refresh reaches 0.5 of
 * the yardstick's 304 throughput with p99 under 25 ms, and a full fetch 0.6 of its signing
 * throughput. The protocol's answers carry the License-Server-Time header (it cannot be turned off).
 * The conditional loads use the ETags that the full loads collected (random machines of the whole
 * fleet); its machines' last-seen rows are then already written for the day, as in a fleet that
 * refreshes several times a day.
 *
 *   npm run bench protocol             (through bench/run.ts)
 *   node bench/scenarios/protocol.ts   (on its own; LICENSES=100000 for a quicker run)
 *   ROUNDS=3 DURATION=10 SLICE=2       (the defaults; SLICE=10: each load in one piece, as before
 *                                       December 2026, when a burst of the shared machine's other
 *                                       work swung a round's ratio by a third either way)
 *   BENCH_CPU_PROFILE=/tmp/prof ...    (writes the server's V8 CPU profile of the rounds, warm-ups left out, there)
 *   BENCH_PROTOCOL_ONLY=conditional    (only those loads in the rounds, after the warm-ups, comma-separated:
 *                                       to profile one or compare two; bare, yardstick-304, yardstick-sign,
 *                                       app-route, protocol-304, yardstick-in-protocol-304,
 *                                       yardstick-in-protocol-sign, full or conditional)
 *   BENCH_YARDSTICK_SIGN=sync          (the yardstick signs on the event loop, not in the thread pool)
 *   BENCH_YARDSTICK_EXTRA_US=5         (the yardstick busy that many µs longer per request: on the 2-core
 *                                       machine of November 2026, 5 µs took it to 0.74-0.78 of itself
 *                                       and 10 µs to 0.62: every µs of work beyond the
 *                                       yardstick's own shows in the ratio)
 *
 * The seeded databases (the product's and the yardstick's) are kept in BENCH_DATA_DIR (default: the
 * system's temporary folder) for the next run; BENCH_PROTOCOL_FRESH=1 seeds anew.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import inspector from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type autocannon from 'autocannon';
import type { Figure, Scenario } from '../run.ts';
import { benchDataDir, machineLoad } from '../support/bench-data.ts';
import { machineIdOf, productOf, seedLicenses } from '../support/protocol-seed.ts';
import { buildYardstickDatabase, registerYardstick, yardstickHandler } from '../support/yardstick.ts';
import { CONNECTIONS, load, SKIPPED, sliced, type Load } from '../support/load.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const LICENSES = Number(process.env.LICENSES ?? 1_000_000);
const DURATION_S = Number(process.env.DURATION ?? 10);
const SLICE_S = Number(process.env.SLICE ?? 2);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const PORT = Number(process.env.BENCH_PORT ?? 3190);

/** The server half: the real app plus one fixed-JSON route on PORT, and a bare Fastify server with the yardstick on PORT + 1. */
async function serve(dataDir: string): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const { buildApp } = await import('../../packages/server/src/app.ts');
  const { loadConfig } = await import('../../packages/server/src/platform/config.ts');
  const { sendNotModified } = await import('../../packages/server/src/modules/license-files/http.ts');
  const { protocolLimiter, registerProtocolHooks } = await import('../../packages/server/src/modules/client-protocol/hooks.ts');
  const { clientLicenseRequest } = await import('@lm/contract/client-protocol');
  // Rate limits stay on: the load comes from many addresses (X-Forwarded-For behind a trusted proxy).
  // A bench machine refreshes far more often than a real one, so its per-machine limit is raised: the
  // counting costs the same whatever the limit.
  const config = loadConfig({ DATA_DIR: dataDir, PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: 'warn', TRUST_PROXY: 'true', PROTOCOL_RATE_LIMIT: '10000000' });
  const app = await buildApp(config);
  const fixed = { status: 'ok', service: 'license-manager', version: 1 };
  app.get('/bench/bare', async () => fixed);
  // The protocol's scope as the product registers it (its hooks, the body's validation, the rate
  // limit), with two handlers: a 304 at once, and the yardstick's own.
  await app.register(async (scope) => {
    registerProtocolHooks(scope, app.ctx);
    // The rate limit as the product's handlers count it (per machine and per address).
    const limit = protocolLimiter(app.ctx);
    const options = {
      schema: { body: clientLicenseRequest },
      preHandler: (request: { ip: string; body: unknown }, _reply: unknown, done: () => void) => {
        limit(request.ip, (request.body as { machineId: string }).machineId);
        done();
      },
    };
    scope.post('/api/bench/not-modified', options, async (_request, reply) => sendNotModified(reply, '"work"'));
    scope.post('/api/bench/yardstick', options, yardstickHandler(yardstickFile(dataDir)));
  });
  await app.listen({ port: config.port, host: config.host });
  const bare = Fastify({ logger: false });
  bare.get('/', async () => fixed);
  registerYardstick(bare, yardstickFile(dataDir));
  await bare.listen({ port: config.port + 1, host: config.host });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void Promise.all([app.close(), bare.close()]).then(() => process.exit(0)));
  }
  if (process.env.BENCH_CPU_PROFILE) profileOnRequest(process.env.BENCH_CPU_PROFILE);
  // The writes the protocol's answers left behind them (last contacts, seat renewals), done on request.
  const { lastSeenRecorder } = await import('../../packages/server/src/modules/license-files/last-seen.ts');
  const { seatRenewals } = await import('../../packages/server/src/modules/license-files/seats.ts');
  process.on('message', (message) => {
    if (message !== 'settle') return;
    void Promise.all([lastSeenRecorder(app.ctx).flush(), seatRenewals(app.ctx).flush()]).then(() => process.send?.('settled'));
  });
  process.send?.('listening');
}

/** The server's CPU profile, from the parent's 'profile:start' to its 'profile:stop' (the rounds, not the warm-ups). */
function profileOnRequest(dir: string): void {
  const session = new inspector.Session();
  session.connect();
  process.on('message', (message) => {
    if (message === 'profile:start') void session.post('Profiler.enable').then(() => session.post('Profiler.start'));
    if (message === 'profile:stop') {
      void session.post('Profiler.stop').then(({ profile }) => {
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, `protocol-${new Date().toISOString().replaceAll(':', '-')}.cpuprofile`), JSON.stringify(profile));
        process.send?.('profile:written');
      });
    }
  });
}

/** The server's writes behind the answers done (serve's 'settle'). */
function settled(server: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    const done = (message: unknown) => {
      if (message !== 'settled') return;
      server.off('message', done);
      resolve();
    };
    server.on('message', done);
    server.send('settle');
  });
}

function startServer(dataDir: string): Promise<ChildProcess> {
  const flags = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(NODE, [...flags, import.meta.filename, '--serve', dataDir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`the bench server exited with ${code}`)));
  });
}

const randomAddress = () => `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 250)}`;

/** ETags of files the full loads received, by license index: what the conditional loads send back. One store per server. */
class TagStore {
  readonly tags = new Map<number, string>();
  readonly tagged: number[] = [];

  add(index: number, etag: string): void {
    if (this.tags.has(index)) return;
    this.tags.set(index, etag);
    this.tagged.push(index);
  }
}
const productTags = new TagStore();
const yardstickTags = new TagStore();

function protocolRequest(conditional: boolean, store: TagStore, path = '/api/client/v1/license'): autocannon.Request {
  return {
    method: 'POST',
    path,
    setupRequest: (request, context) => {
      const index = conditional ? store.tagged[Math.floor(Math.random() * store.tagged.length)] : Math.floor(Math.random() * LICENSES);
      (context as { index: number }).index = index;
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-forwarded-for': randomAddress() };
      if (conditional) headers['if-none-match'] = store.tags.get(index)!;
      return { ...request, headers, body: JSON.stringify({ machineId: machineIdOf(index), product: productOf(index) }) };
    },
    onResponse: (status, _body, context, headers) => {
      const etag = (headers as Record<string, string> | undefined)?.etag;
      if (!conditional && status === 200 && etag) store.add((context as { index: number }).index, etag);
    },
  };
}

/** The product's route: a full fetch, or (conditional) a refresh with the ETag of a file it answered before. */
const productLoad = (base: string, conditional: boolean): autocannon.Options => ({ url: base, requests: [protocolRequest(conditional, productTags)] });
/** The yardstick's route, likewise. */
const yardstickLoad = (bareUrl: string, conditional: boolean): autocannon.Options => ({ url: bareUrl, requests: [protocolRequest(conditional, yardstickTags, '/license')] });
/** The conditional's request to a route of the protocol's scope that answers 304 at once. */
const protocolNotModifiedLoad = (base: string): autocannon.Options => ({ url: base, requests: [protocolRequest(true, productTags, '/api/bench/not-modified')] });
/** The yardstick's requests to its handler served in the protocol's scope (its own ETags: they are its database's). */
const yardstickInProtocolLoad = (base: string, conditional: boolean): autocannon.Options => ({
  url: base,
  requests: [protocolRequest(conditional, yardstickTags, '/api/bench/yardstick')],
});

/** The seeded database of an earlier run with as many licenses, or a new one. */
async function seededDataDir(): Promise<string> {
  const dataDir = path.join(benchDataDir(), `protocol-${LICENSES}`);
  const done = path.join(dataDir, 'seeded');
  if (process.env.BENCH_PROTOCOL_FRESH === '1' || !fs.existsSync(done)) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.mkdirSync(dataDir, { recursive: true });
    const started = Date.now();
    await seedLicenses(path.join(dataDir, 'license-manager.db'), LICENSES);
    fs.writeFileSync(done, new Date().toISOString());
    console.log(`  seeded ${LICENSES.toLocaleString('en')} licenses in ${((Date.now() - started) / 1000).toFixed(1)} s (kept in ${dataDir})`);
  }
  if (!fs.existsSync(yardstickFile(dataDir))) {
    const started = Date.now();
    buildYardstickDatabase(path.join(dataDir, 'license-manager.db'), yardstickFile(dataDir));
    console.log(`  built the yardstick's table in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return dataDir;
}

/** The yardstick's database, beside the product's. */
const yardstickFile = (dataDir: string) => path.join(dataDir, 'yardstick.db');

const describeLoad = (name: string, result: Load) =>
  `${name.padEnd(16)} ${Math.round(result.rps).toString().padStart(6)} req/s  p50 ${result.p50.toFixed(1).padStart(5)} ms  p99 ${result.p99.toFixed(1).padStart(5)} ms  ` +
  `${Math.round(result.cpuPerRequest)} µs CPU/request (${Math.round(result.systemCpuPerRequest)} in the kernel)  ${JSON.stringify(result.statuses)}${result.errors ? ` ${result.errors} errors` : ''}`;

interface Round {
  bare: Load;
  yardstickNotModified: Load;
  conditional: Load;
  yardstickSign: Load;
  full: Load;
  appRoute: Load;
  protocolNotModified: Load;
  yardstickInProtocolNotModified: Load;
  yardstickInProtocolSign: Load;
  /** The 1-minute load average after the round. */
  loadAverage: number;
}

/** Answers that none of the protocol's or the yardstick's loads should get: anything but 200 for a full fetch and 304 for a conditional one. */
function unexpectedAnswers(rounds: Round[]): number {
  const others = (result: Load, expected: string) =>
    result.errors + Object.entries(result.statuses).reduce((n, [status, count]) => n + (status === expected ? 0 : count), 0);
  return rounds.reduce(
    (sum, round) =>
      sum +
      others(round.full, '2xx') +
      others(round.yardstickSign, '2xx') +
      others(round.conditional, '3xx') +
      others(round.yardstickNotModified, '3xx') +
      others(round.yardstickInProtocolNotModified, '3xx') +
      others(round.yardstickInProtocolSign, '2xx'),
    0,
  );
}

function figures(rounds: Round[]): Figure[] {
  const worst = (pick: (round: Round) => number) => Math.min(...rounds.map(pick));
  const highest = (pick: (round: Round) => number) => Math.max(...rounds.map(pick));
  return [
    { name: 'machine: load average, 1 minute (highest round)', value: highest((r) => r.loadAverage), unit: 'load' },
    { name: 'bare Fastify route (ceiling): req/s (lowest round)', value: worst((r) => r.bare.rps), unit: 'req/s' },
    { name: 'yardstick 304: req/s (lowest round)', value: worst((r) => r.yardstickNotModified.rps), unit: 'req/s' },
    { name: 'yardstick 304: p99 latency (highest round)', value: highest((r) => r.yardstickNotModified.p99), unit: 'ms' },
    { name: 'conditional refresh (304): req/s (lowest round)', value: worst((r) => r.conditional.rps), unit: 'req/s' },
    { name: 'conditional refresh: p99 latency (highest round)', value: highest((r) => r.conditional.p99), unit: 'ms', target: { max: 25 } },
    { name: 'conditional refresh: server CPU per request (highest)', value: highest((r) => r.conditional.cpuPerRequest), unit: 'µs' },
    { name: 'yardstick 304: server CPU per request (highest round)', value: highest((r) => r.yardstickNotModified.cpuPerRequest), unit: 'µs' },
    { name: 'conditional refresh / yardstick 304 (worst round)', value: worst((r) => r.conditional.rps / r.yardstickNotModified.rps), unit: 'ratio', target: { min: 0.5 } },
    { name: 'yardstick signing: req/s (lowest round)', value: worst((r) => r.yardstickSign.rps), unit: 'req/s' },
    { name: 'full fetch (signed): req/s (lowest round)', value: worst((r) => r.full.rps), unit: 'req/s' },
    { name: 'full fetch: p99 latency (highest round)', value: highest((r) => r.full.p99), unit: 'ms' },
    { name: 'full fetch / yardstick signing (worst round)', value: worst((r) => r.full.rps / r.yardstickSign.rps), unit: 'ratio', target: { min: 0.6 } },
    // The same comparison by the server's CPU per request: steadier than throughput on a busy machine. Diagnostic.
    { name: 'yardstick 304 CPU / conditional CPU per request (worst)', value: worst((r) => r.yardstickNotModified.cpuPerRequest / r.conditional.cpuPerRequest), unit: 'ratio' },
    { name: 'yardstick signing CPU / full fetch CPU per request (worst)', value: worst((r) => r.yardstickSign.cpuPerRequest / r.full.cpuPerRequest), unit: 'ratio' },
    { name: 'conditional refresh / bare (worst round)', value: worst((r) => r.conditional.rps / r.bare.rps), unit: 'ratio' },
    { name: 'yardstick 304 / bare (worst round)', value: worst((r) => r.yardstickNotModified.rps / r.bare.rps), unit: 'ratio' },
    { name: 'app route (fixed JSON) / bare (worst round)', value: worst((r) => r.appRoute.rps / r.bare.rps), unit: 'ratio' },
    // What the protocol's scope leaves of the yardstick before any work of the product's own: the
    // ceiling of the two targets' ratios for any implementation served in it. Diagnostic.
    { name: 'protocol 304 (no work) / yardstick 304 (worst round)', value: worst((r) => r.protocolNotModified.rps / r.yardstickNotModified.rps), unit: 'ratio' },
    { name: "yardstick's 304 in the protocol's scope / yardstick 304 (worst)", value: worst((r) => r.yardstickInProtocolNotModified.rps / r.yardstickNotModified.rps), unit: 'ratio' },
    { name: "yardstick's signing in the protocol's scope / yardstick signing (worst)", value: worst((r) => r.yardstickInProtocolSign.rps / r.yardstickSign.rps), unit: 'ratio' },
    { name: 'answers other than 200 (full) and 304 (conditional)', value: unexpectedAnswers(rounds), unit: 'count', target: { max: 0 } },
  ];
}

const scenario: Scenario = {
  name: 'protocol',
  description: `desktop protocol vs the yardstick of DESIGN.md 9 (bare Fastify + node:sqlite), ${CONNECTIONS} connections, SQLite with ${LICENSES.toLocaleString('en')} licenses, one server process, ${ROUNDS} rounds of loads taking ${SLICE_S} s turns`,
  async run(): Promise<Figure[]> {
    const dataDir = await seededDataDir();
    let server: ChildProcess | undefined;
    try {
      server = await startServer(dataDir);
      const base = `http://127.0.0.1:${PORT}`;
      const bareUrl = `http://127.0.0.1:${PORT + 1}`;
      console.log(`  ${machineLoad()}`);
      // Warm each path (JIT, SQLite page cache) and collect the first ETags.
      await load(server, { url: bareUrl, duration: 3 });
      await load(server, { url: `${base}/bench/bare`, duration: 3 });
      await load(server, { ...productLoad(base, false), duration: 5 });
      await load(server, { ...productLoad(base, true), duration: 3 });
      await load(server, { ...yardstickLoad(bareUrl, false), duration: 5 });
      await load(server, { ...yardstickLoad(bareUrl, true), duration: 3 });
      await load(server, { ...protocolNotModifiedLoad(base), duration: 2 });
      await load(server, { ...yardstickInProtocolLoad(base, true), duration: 2 });

      const only = process.env.BENCH_PROTOCOL_ONLY?.split(',');
      // Each measured load beside its yardstick: the pairs share the machine's state.
      const loads: Record<string, autocannon.Options> = {
        bare: { url: bareUrl },
        'yardstick-304': yardstickLoad(bareUrl, true),
        conditional: productLoad(base, true),
        'yardstick-sign': yardstickLoad(bareUrl, false),
        full: productLoad(base, false),
        'app-route': { url: `${base}/bench/bare` },
        'protocol-304': protocolNotModifiedLoad(base),
        'yardstick-in-protocol-304': yardstickInProtocolLoad(base, true),
        'yardstick-in-protocol-sign': yardstickInProtocolLoad(base, false),
      };
      const measured = Object.fromEntries(Object.entries(loads).filter(([name]) => !only || only.includes(name)));
      const rounds: Round[] = [];
      if (process.env.BENCH_CPU_PROFILE) server.send('profile:start');
      for (let round = 1; round <= ROUNDS; round++) {
        const results = await sliced(server, measured, DURATION_S, SLICE_S, () => settled(server!));
        const of = (name: string) => results[name] ?? SKIPPED;
        const [bare, yardstickNotModified, conditional, yardstickSign, full] = ['bare', 'yardstick-304', 'conditional', 'yardstick-sign', 'full'].map(of);
        const [appRoute, protocolNotModified, yardstickInProtocolNotModified, yardstickInProtocolSign] = ['app-route', 'protocol-304', 'yardstick-in-protocol-304', 'yardstick-in-protocol-sign'].map(of);
        const loadAverage = os.loadavg()[0];
        rounds.push({ bare, yardstickNotModified, conditional, yardstickSign, full, appRoute, protocolNotModified, yardstickInProtocolNotModified, yardstickInProtocolSign, loadAverage });
        console.log(`  round ${round}:`);
        const named = {
          bare,
          'yardstick 304': yardstickNotModified,
          conditional,
          'yardstick sign': yardstickSign,
          full,
          'app route': appRoute,
          'protocol 304': protocolNotModified,
          'in protocol 304': yardstickInProtocolNotModified,
          'in protocol sign': yardstickInProtocolSign,
        };
        for (const [name, result] of Object.entries(named)) console.log(`    ${describeLoad(name, result)}`);
        console.log(
          `    conditional / yardstick 304 ${(conditional.rps / yardstickNotModified.rps).toFixed(2)} (p99 ${conditional.p99.toFixed(1)} ms), ` +
            `full / yardstick signing ${(full.rps / yardstickSign.rps).toFixed(2)}; to bare: conditional ${(conditional.rps / bare.rps).toFixed(2)}, ` +
            `yardstick 304 ${(yardstickNotModified.rps / bare.rps).toFixed(2)}; ${machineLoad()}`,
        );
      }
      if (process.env.BENCH_CPU_PROFILE) {
        const written = new Promise((resolve) => server!.once('message', resolve));
        server.send('profile:stop');
        await written;
      }
      return figures(rounds);
    } finally {
      server?.kill('SIGTERM');
      if (server && server.exitCode === null) await new Promise((resolve) => server!.once('exit', resolve));
    }
  },
};

export default scenario;

if (process.argv[2] === '--serve') {
  await serve(process.argv[3]);
} else if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const figure of await scenario.run()) console.log(`${figure.name.padEnd(50)} ${figure.value.toFixed(2).padStart(12)} ${figure.unit}`);
}
