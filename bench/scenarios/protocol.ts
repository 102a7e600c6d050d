/**
 * The desktop protocol against a bare route (DESIGN.md section 9): the server runs in one child
 * process on the embedded database seeded with 1,000,000 licenses, autocannon drives it from this
 * process with 100 connections, first a bare route answering a fixed JSON, then
 * `POST /api/client/v1/license` for random machines. Both routes live in the same server, so the
 * ratio is the cost of the protocol itself. A third route in between has the protocol's shape
 * without its work (the same body, validation and rate limit, answering one file signed once): it
 * shows how much of the bare route's throughput HTTP alone leaves to the protocol.
 *
 *   npm run bench protocol             (through bench/run.ts)
 *   node bench/scenarios/protocol.ts   (on its own; LICENSES=100000 for a quicker run)
 *   BENCH_CPU_PROFILE=/tmp/prof ...    (writes the server's V8 CPU profile there)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import type { Figure, Scenario } from '../run.ts';
import type { LicenseFileJson } from '@lm/contract/license-file';
import { machineIdOf, productOf, seedLicenses, type SeedSummary } from '../support/protocol-seed.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const LICENSES = Number(process.env.LICENSES ?? 1_000_000);
const CONNECTIONS = 100;
const DURATION_S = Number(process.env.DURATION ?? 15);
const PORT = Number(process.env.BENCH_PORT ?? 3190);

/** The server half: the real app plus one bare route, listening on PORT. */
async function serve(dataDir: string): Promise<void> {
  const { buildApp } = await import('../../packages/server/src/app.ts');
  const { loadConfig } = await import('../../packages/server/src/platform/config.ts');
  const { PER_ADDRESS } = await import('../../packages/server/src/modules/client-protocol/routes.ts');
  const { fetchClientLicense } = await import('../../packages/server/src/modules/client-protocol/service.ts');
  const { sendJsonLicenseFile } = await import('../../packages/server/src/modules/license-files/http.ts');
  const { clientLicenseRequest } = await import('@lm/contract/client-protocol');
  // Rate limits stay on: the load comes from many addresses (X-Forwarded-For behind a trusted proxy).
  const config = loadConfig({ DATA_DIR: dataDir, PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: 'warn', TRUST_PROXY: 'true' });
  const app = await buildApp(config);
  const fixed = { status: 'ok', service: 'license-manager', version: 1 };
  app.get('/bench/bare', async () => fixed);
  let signedOnce: LicenseFileJson | undefined;
  app.post('/bench/fixed-file', { schema: { body: clientLicenseRequest }, config: PER_ADDRESS }, async (_request, reply) => {
    signedOnce ??= await fetchClientLicense(app.ctx, { machineId: machineIdOf(1), product: productOf(1) });
    return sendJsonLicenseFile(reply, signedOnce);
  });
  await app.listen({ port: config.port, host: config.host });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void app.close().then(() => process.exit(0)));
  }
  process.send?.('listening');
}

function startServer(dataDir: string): Promise<ChildProcess> {
  const profile = process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : [];
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
  non2xx: number;
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

async function load(server: ChildProcess | undefined, options: autocannon.Options): Promise<Load> {
  const cpuBefore = processCpuMicros(server?.pid);
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...options });
  const cpuPerRequest = (processCpuMicros(server?.pid) - cpuBefore) / Math.max(result.requests.total, 1);
  return { rps: result.requests.average, p99: result.latency.p99, p50: result.latency.p50, non2xx: result.non2xx, errors: result.errors, cpuPerRequest };
}

const randomAddress = () => `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 250)}`;

function protocolRequest(seed: SeedSummary, path = '/api/client/v1/license'): autocannon.Request {
  return {
    method: 'POST',
    path,
    setupRequest: (request) => {
      const index = Math.floor(Math.random() * seed.licenses);
      return {
        ...request,
        headers: { 'content-type': 'application/json', 'x-forwarded-for': randomAddress() },
        body: JSON.stringify({ machineId: seed.machineIdOf(index), product: seed.productOf(index) }),
      };
    },
  };
}

const scenario: Scenario = {
  name: 'protocol',
  description: `desktop protocol vs a bare route, ${CONNECTIONS} connections, SQLite with ${LICENSES.toLocaleString('en')} licenses, one server process`,
  async run(): Promise<Figure[]> {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-bench-protocol-'));
    let server: ChildProcess | undefined;
    try {
      const started = Date.now();
      const seed = await seedLicenses(path.join(dataDir, 'license-manager.db'), LICENSES);
      console.log(`  seeded ${seed.licenses.toLocaleString('en')} licenses in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      server = await startServer(dataDir);
      const base = `http://127.0.0.1:${PORT}`;
      // Warm both paths (JIT, SQLite page cache) before measuring.
      await load(server, { url: `${base}/bench/bare`, duration: 3 });
      await load(server, { url: base, duration: 3, requests: [protocolRequest(seed, '/bench/fixed-file')] });
      await load(server, { url: base, duration: 3, requests: [protocolRequest(seed)] });

      const bare = await load(server, { url: `${base}/bench/bare` });
      const shape = await load(server, { url: base, requests: [protocolRequest(seed, '/bench/fixed-file')] });
      const protocol = await load(server, { url: base, requests: [protocolRequest(seed)] });
      if (protocol.non2xx || protocol.errors) console.log(`  protocol: ${protocol.non2xx} non-2xx answers, ${protocol.errors} errors`);
      return [
        { name: 'bare route: requests per second', value: bare.rps, unit: 'req/s' },
        { name: 'bare route: p99 latency', value: bare.p99, unit: 'ms' },
        { name: 'bare route: server CPU per request', value: bare.cpuPerRequest, unit: 'µs' },
        { name: 'protocol shape, file signed once: requests per second', value: shape.rps, unit: 'req/s' },
        { name: 'protocol shape, file signed once: server CPU per request', value: shape.cpuPerRequest, unit: 'µs' },
        { name: 'protocol shape / bare route throughput', value: shape.rps / bare.rps, unit: 'ratio' },
        { name: 'protocol: requests per second', value: protocol.rps, unit: 'req/s' },
        { name: 'protocol: p50 latency', value: protocol.p50, unit: 'ms' },
        { name: 'protocol: p99 latency', value: protocol.p99, unit: 'ms', target: { max: 10 } },
        { name: 'protocol: server CPU per request (signing included)', value: protocol.cpuPerRequest, unit: 'µs' },
        { name: 'protocol throughput / bare route throughput', value: protocol.rps / bare.rps, unit: 'ratio', target: { min: 0.5 } },
        { name: 'protocol: answers other than 200', value: protocol.non2xx + protocol.errors, unit: 'count', target: { max: 0 } },
      ];
    } finally {
      server?.kill('SIGTERM');
      if (server && server.exitCode === null) await new Promise((resolve) => server!.once('exit', resolve));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
};

export default scenario;

if (process.argv[2] === '--serve') {
  await serve(process.argv[3]);
} else if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const figure of await scenario.run()) console.log(`${figure.name.padEnd(50)} ${figure.value.toFixed(2).padStart(12)} ${figure.unit}`);
}
