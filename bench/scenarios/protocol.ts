/**
 * The desktop protocol against a bare Fastify server (DESIGN.md section 9): the server runs in one
 * child process on the embedded database seeded with 1,000,000 licenses; autocannon drives it from
 * this process with 100 connections. The loads alternate in each of ROUNDS rounds, so that whatever
 * else the machine does falls on all of them alike:
 *
 *   bare         GET of a bare Fastify server (no plugins, no hooks) in the same process, answering a
 *                fixed JSON: the baseline DESIGN.md names, and the one the targets are ratios to
 *   app route    GET of a route at the app's root answering the same JSON: what the hooks every route of
 *                the app runs (metrics, error handling) leave of bare, shown apart. Like the protocol, it
 *                runs none of the web app's (page headers, cookies, CSRF, session and token checks)
 *   app 304      the conditional's request (POST, JSON body, If-None-Match, per-address rate limit) to a
 *                route of the app that answers 304 at once: the ceiling of any conditional refresh
 *                served by this app, with no lookup and no check at all
 *   full         POST /api/client/v1/license for random machines, no If-None-Match: a signature each
 *   conditional  the same with the ETag of a file the machine got before: 304, no signature
 *   bare + N µs  POST of the bare server answering a 304 like the conditional's after N µs of busy work
 *                (N = 0, 25 and 50): no database and no hooks. What a route with that much work of its
 *                own reaches on this machine, in the same round: the yardstick for reading the
 *                ratios above. On the 2-core VM (2026-11-26, bare 40,000-53,000 req/s at 18-28 µs of
 *                server CPU) 0 µs gave 0.53-0.72 of bare, 25 µs 0.34-0.39 and 50 µs 0.23-0.25. The
 *                conditional refresh's own work costs about 100 µs of server CPU under this load: its
 *                lookup in 1,000,000 licenses alone adds 30 µs to a validated route (8-10 µs in a
 *                loop of lookups alone: under load every request finds SQLite's pages and the
 *                code colder), the file check and the hooks the rest. So on this machine no
 *                refresh that reads the database reaches 0.5 of bare
 *
 * The figures are the worst round's ratios to the bare server of the same round, and the worst p99.
 * The conditional load uses the ETags that the full loads collected (random machines of the whole
 * fleet); its machines' last-seen rows are then already written for the day, as in a fleet that
 * refreshes several times a day.
 *
 *   npm run bench protocol             (through bench/run.ts)
 *   node bench/scenarios/protocol.ts   (on its own; LICENSES=100000 for a quicker run)
 *   BENCH_CPU_PROFILE=/tmp/prof ...    (writes the server's V8 CPU profile there)
 *   BENCH_PROTOCOL_ONLY=conditional    (only that load in the rounds, after the warm-ups: to profile it;
 *                                       bare, work, app-route, app-304, full or conditional)
 *
 * The seeded database is kept in BENCH_DATA_DIR (default: the system's temporary folder) for the
 * next run; BENCH_PROTOCOL_FRESH=1 seeds anew.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import type { Figure, Scenario } from '../run.ts';
import { benchDataDir, machineLoad } from '../support/bench-data.ts';
import { machineIdOf, productOf, seedLicenses } from '../support/protocol-seed.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const LICENSES = Number(process.env.LICENSES ?? 1_000_000);
const CONNECTIONS = 100;
const DURATION_S = Number(process.env.DURATION ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const PORT = Number(process.env.BENCH_PORT ?? 3190);
/** The busy work of the bare server's yardstick routes, in µs. */
const WORK_MICROS = [0, 25, 50] as const;

/** The server half: the real app plus one fixed-JSON route on PORT, and a bare Fastify server on PORT + 1. */
async function serve(dataDir: string): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const { buildApp } = await import('../../packages/server/src/app.ts');
  const { loadConfig } = await import('../../packages/server/src/platform/config.ts');
  const { sendNotModified } = await import('../../packages/server/src/modules/license-files/http.ts');
  const { PER_ADDRESS } = await import('../../packages/server/src/modules/client-protocol/routes.ts');
  // Rate limits stay on: the load comes from many addresses (X-Forwarded-For behind a trusted proxy).
  const config = loadConfig({ DATA_DIR: dataDir, PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: 'warn', TRUST_PROXY: 'true' });
  const app = await buildApp(config);
  const fixed = { status: 'ok', service: 'license-manager', version: 1 };
  app.get('/bench/bare', async () => fixed);
  app.post('/api/bench/not-modified', { config: PER_ADDRESS }, async (_request, reply) => sendNotModified(reply, '"work"'));
  await app.listen({ port: config.port, host: config.host });
  const bare = Fastify({ logger: false });
  bare.get('/', async () => fixed);
  for (const micros of WORK_MICROS) {
    bare.post(`/work/${micros}`, async (_request, reply) => {
      const end = performance.now() + micros / 1000;
      while (performance.now() < end);
      return sendNotModified(reply, '"work"');
    });
  }
  await bare.listen({ port: config.port + 1, host: config.host });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void Promise.all([app.close(), bare.close()]).then(() => process.exit(0)));
  }
  process.send?.('listening');
}

function startServer(dataDir: string): Promise<ChildProcess> {
  const profile = [...(process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : []), ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [])];
  const child = spawn(NODE, [...profile, import.meta.filename, '--serve', dataDir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`the bench server exited with ${code}`)));
  });
}

interface Load {
  rps: number;
  p99: number;
  p50: number;
  /** Answers by status. */
  statuses: Record<string, number>;
  errors: number;
  /** CPU time of the server process (all its threads) per answered request, in µs; NaN off Linux. */
  cpuPerRequest: number;
}

/** The CPU time a process has used so far, in µs (Linux /proc; clock ticks of 10 ms). */
function processCpuMicros(pid: number | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}

async function load(server: ChildProcess, options: autocannon.Options): Promise<Load> {
  const cpuBefore = processCpuMicros(server.pid);
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...options });
  const cpuPerRequest = (processCpuMicros(server.pid) - cpuBefore) / Math.max(result.requests.total, 1);
  const statuses: Record<string, number> = {};
  for (const [key, value] of Object.entries(result as unknown as Record<string, unknown>)) {
    if (/^[1-5]xx$/.test(key) && typeof value === 'number' && value) statuses[key] = value;
  }
  return { rps: result.requests.average, p99: result.latency.p99, p50: result.latency.p50, statuses, errors: result.errors, cpuPerRequest };
}

const randomAddress = () => `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 250)}`;

/** ETags of files the full loads received, by license index: what the conditional load sends back. */
const tags = new Map<number, string>();
const tagged: number[] = [];

function protocolRequest(conditional: boolean): autocannon.Request {
  return {
    method: 'POST',
    path: '/api/client/v1/license',
    setupRequest: (request, context) => {
      const index = conditional ? tagged[Math.floor(Math.random() * tagged.length)] : Math.floor(Math.random() * LICENSES);
      (context as { index: number }).index = index;
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-forwarded-for': randomAddress() };
      if (conditional) headers['if-none-match'] = tags.get(index)!;
      return { ...request, headers, body: JSON.stringify({ machineId: machineIdOf(index), product: productOf(index) }) };
    },
    onResponse: (status, _body, context, headers) => {
      const index = (context as { index: number }).index;
      const etag = (headers as Record<string, string> | undefined)?.etag;
      if (!conditional && status === 200 && etag && !tags.has(index)) {
        tags.set(index, etag);
        tagged.push(index);
      }
    },
  };
}

/** A yardstick load: the conditional's request (so parsing its body counts too) to the bare server's route with that much busy work. */
const workLoad = (micros: number, bareUrl: string): autocannon.Options => ({ url: bareUrl, requests: [{ ...protocolRequest(true), path: `/work/${micros}` }] });
/** The conditional's request to the app's route that answers 304 at once. */
const appNotModifiedLoad = (base: string): autocannon.Options => ({ url: base, requests: [{ ...protocolRequest(true), path: '/api/bench/not-modified' }] });

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
  return dataDir;
}

const describeLoad = (name: string, result: Load) =>
  `${name.padEnd(12)} ${Math.round(result.rps).toString().padStart(6)} req/s  p50 ${result.p50.toFixed(1).padStart(5)} ms  p99 ${result.p99.toFixed(1).padStart(5)} ms  ` +
  `${Math.round(result.cpuPerRequest)} µs CPU/request  ${JSON.stringify(result.statuses)}${result.errors ? ` ${result.errors} errors` : ''}`;

const scenario: Scenario = {
  name: 'protocol',
  description: `desktop protocol vs a bare Fastify server, ${CONNECTIONS} connections, SQLite with ${LICENSES.toLocaleString('en')} licenses, one server process, ${ROUNDS} alternating rounds`,
  async run(): Promise<Figure[]> {
    const dataDir = await seededDataDir();
    let server: ChildProcess | undefined;
    try {
      server = await startServer(dataDir);
      const base = `http://127.0.0.1:${PORT}`;
      const bareUrl = `http://127.0.0.1:${PORT + 1}/`;
      console.log(`  ${machineLoad()}`);
      // Warm each path (JIT, SQLite page cache) and collect the first ETags.
      await load(server, { url: bareUrl, duration: 3 });
      await load(server, { url: `${base}/bench/bare`, duration: 3 });
      await load(server, { url: base, duration: 5, requests: [protocolRequest(false)] });
      await load(server, { url: base, duration: 3, requests: [protocolRequest(true)] });
      await load(server, { ...workLoad(WORK_MICROS[0], bareUrl), duration: 2 });
      await load(server, { ...appNotModifiedLoad(base), duration: 2 });

      const only = process.env.BENCH_PROTOCOL_ONLY;
      const skipped: Load = { rps: Number.NaN, p99: Number.NaN, p50: Number.NaN, statuses: {}, errors: 0, cpuPerRequest: Number.NaN };
      const measure = (name: string, options: autocannon.Options) => (!only || only === name ? load(server!, options) : Promise.resolve(skipped));
      const rounds: { bare: Load; appRoute: Load; appNotModified: Load; full: Load; conditional: Load; work: Load[] }[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const bare = await measure('bare', { url: bareUrl });
        const work: Load[] = [];
        for (const micros of WORK_MICROS) work.push(await measure('work', workLoad(micros, bareUrl)));
        const appRoute = await measure('app-route', { url: `${base}/bench/bare` });
        const appNotModified = await measure('app-304', appNotModifiedLoad(base));
        const full = await measure('full', { url: base, requests: [protocolRequest(false)] });
        const conditional = await measure('conditional', { url: base, requests: [protocolRequest(true)] });
        rounds.push({ bare, appRoute, appNotModified, full, conditional, work });
        console.log(`  round ${round}:`);
        const named = { bare, ...Object.fromEntries(WORK_MICROS.map((micros, index) => [`bare + ${micros} µs`, work[index]])), 'app route': appRoute, 'app 304': appNotModified, full, conditional };
        for (const [name, result] of Object.entries(named)) console.log(`    ${describeLoad(name, result)}`);
        const ratio = (result: Load) => (result.rps / bare.rps).toFixed(2);
        const yardsticks = WORK_MICROS.map((micros, index) => `bare + ${micros} µs ${ratio(work[index])}`).join(', ');
        console.log(`    to bare: conditional ${ratio(conditional)}, full ${ratio(full)}, app route ${ratio(appRoute)}, app 304 ${ratio(appNotModified)}, ${yardsticks}; ${machineLoad()}`);
      }
      const worst = (pick: (round: (typeof rounds)[number]) => number) => Math.min(...rounds.map(pick));
      const highest = (pick: (round: (typeof rounds)[number]) => number) => Math.max(...rounds.map(pick));
      const unexpected = rounds.reduce(
        (sum, round) =>
          sum +
          round.full.errors +
          round.conditional.errors +
          Object.entries(round.full.statuses).reduce((n, [status, count]) => n + (status === '2xx' ? 0 : count), 0) +
          Object.entries(round.conditional.statuses).reduce((n, [status, count]) => n + (status === '3xx' ? 0 : count), 0),
        0,
      );
      return [
        { name: 'bare Fastify server: requests per second (lowest round)', value: worst((r) => r.bare.rps), unit: 'req/s' },
        { name: 'bare Fastify server: p99 latency (highest round)', value: highest((r) => r.bare.p99), unit: 'ms' },
        { name: 'bare Fastify server: CPU per request (highest round)', value: highest((r) => r.bare.cpuPerRequest), unit: 'µs' },
        { name: 'app route (fixed JSON) / bare (worst round)', value: worst((r) => r.appRoute.rps / r.bare.rps), unit: 'ratio' },
        { name: 'app route: CPU per request (highest round)', value: highest((r) => r.appRoute.cpuPerRequest), unit: 'µs' },
        { name: 'app 304 (no work) / bare (worst round)', value: worst((r) => r.appNotModified.rps / r.bare.rps), unit: 'ratio' },
        { name: 'app 304: CPU per request (highest round)', value: highest((r) => r.appNotModified.cpuPerRequest), unit: 'µs' },
        ...WORK_MICROS.map((micros, index) => ({
          name: `bare + ${micros} µs of busy work / bare (worst round)`,
          value: worst((r) => r.work[index].rps / r.bare.rps),
          unit: 'ratio',
        })),
        { name: 'conditional refresh (304): requests per second (lowest round)', value: worst((r) => r.conditional.rps), unit: 'req/s' },
        { name: 'conditional refresh: p99 latency (highest round)', value: highest((r) => r.conditional.p99), unit: 'ms', target: { max: 25 } },
        { name: 'conditional refresh: server CPU per request (highest round)', value: highest((r) => r.conditional.cpuPerRequest), unit: 'µs' },
        { name: 'conditional refresh / bare (worst round)', value: worst((r) => r.conditional.rps / r.bare.rps), unit: 'ratio', target: { min: 0.5 } },
        { name: 'conditional refresh / app route (worst round)', value: worst((r) => r.conditional.rps / r.appRoute.rps), unit: 'ratio' },
        { name: 'conditional refresh / app 304 (worst round)', value: worst((r) => r.conditional.rps / r.appNotModified.rps), unit: 'ratio' },
        { name: 'full fetch (signed): requests per second (lowest round)', value: worst((r) => r.full.rps), unit: 'req/s' },
        { name: 'full fetch: p99 latency (highest round)', value: highest((r) => r.full.p99), unit: 'ms' },
        { name: 'full fetch: server CPU per request (highest round)', value: highest((r) => r.full.cpuPerRequest), unit: 'µs' },
        { name: 'full fetch / bare (worst round)', value: worst((r) => r.full.rps / r.bare.rps), unit: 'ratio', target: { min: 0.15 } },
        { name: 'answers other than 200 (full) and 304 (conditional)', value: unexpected, unit: 'count', target: { max: 0 } },
      ];
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
