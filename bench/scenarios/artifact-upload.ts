/**
 * A large release artifact (DESIGN.md section 6i): uploaded through tus to the real server (its own
 * process, SQLite), the connection cut in the middle, resumed from the offset the server reports,
 * then saved as an artifact whose SHA-256 (computed while the bytes streamed in) must equal the
 * client's. Figures: the server's resident memory above its idle level at its peak (flat: the file
 * streams to disk, never into memory), and the throughput. Size: BENCH_ARTIFACT_MB (default 2048).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Figure, Scenario } from '../run.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const MB = 1024 * 1024;
const EMAIL = 'bench-admin@example.com';
const PASSWORD = 'bench password 123';

/** The server half: the real app, an administrator, and its memory watched every 50 ms. */
async function serve(dataDir: string): Promise<void> {
  const { buildApp } = await import('../../packages/server/src/app.ts');
  const { loadConfig } = await import('../../packages/server/src/platform/config.ts');
  const { createUserFromCli } = await import('../../packages/server/src/modules/users/cli.ts');
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ARTIFACT_MAX_SIZE: String(16 * 1024 * MB) });
  const app = await buildApp({ ...config, rateLimits: false });
  await createUserFromCli(app.ctx, { email: EMAIL, role: 'ADMIN', password: PASSWORD });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  global.gc?.();
  const idle = process.memoryUsage().rss;
  let peak = idle;
  setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50).unref();
  process.on('message', () => process.send?.({ idle, peak }));
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
  process.send?.(address);
}

function startServer(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(NODE, [import.meta.filename, '--serve', dataDir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (url) => resolve({ child, url: String(url) }));
    child.once('exit', (code) => reject(new Error(`the bench server exited with ${code}`)));
  });
}

/** The bytes of the artifact, generated piece by piece (1 MB blocks, each different). */
function* blocks(base: Buffer, from: number, size: number): Generator<Buffer> {
  for (let offset = from; offset < size; ) {
    const index = Math.floor(offset / MB);
    const block = Buffer.from(base);
    block.writeUInt32BE(index, 0);
    const start = offset - index * MB;
    const end = Math.min(MB, size - index * MB);
    yield block.subarray(start, end);
    offset += end - start;
  }
}

/** PATCHes from `offset`; with `cutAt`, the connection is destroyed once that many bytes are sent. */
function patch(url: string, location: string, cookie: string, base: Buffer, offset: number, size: number, cutAt?: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const target = new URL(location, url);
    const request = http.request(target, {
      method: 'PATCH',
      headers: { cookie, 'tus-resumable': '1.0.0', 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream', 'content-length': String(size - offset) },
    });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => (response.statusCode === 204 ? resolve() : reject(new Error(`PATCH answered ${response.statusCode}`))));
    });
    request.on('error', (error) => (cutAt !== undefined ? resolve() : reject(error)));
    (async () => {
      let sent = offset;
      for (const block of blocks(base, offset, size)) {
        if (cutAt !== undefined && sent >= cutAt) {
          request.destroy();
          return;
        }
        if (!request.write(block)) await new Promise((next) => request.once('drain', next));
        sent += block.length;
      }
      request.end();
    })().catch(reject);
  });
}

const scenario: Scenario = {
  name: 'artifact-upload',
  description: 'a large artifact uploaded through tus, cut in the middle and resumed: server memory and throughput',
  async run(): Promise<Figure[]> {
    const size = Number(process.env.BENCH_ARTIFACT_MB ?? 2048) * MB;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-bench-artifacts-'));
    const { child, url } = await startServer(dataDir);
    try {
      const login = await fetch(`${url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: EMAIL, password: PASSWORD }) });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
      const base = randomBytes(MB);
      const expected = createHash('sha256');
      for (const block of blocks(base, 0, size)) expected.update(block);
      const sha256 = expected.digest('hex');

      const started = performance.now();
      const created = await fetch(`${url}/api/uploads`, { method: 'POST', headers: { cookie, 'tus-resumable': '1.0.0', 'upload-length': String(size) } });
      const location = created.headers.get('location')!;
      await patch(url, location, cookie, base, 0, size, Math.floor(size / 2));
      let offset = 0;
      for (let attempt = 0; attempt < 100; attempt++) {
        const head = await fetch(new URL(location, url), { method: 'HEAD', headers: { cookie, 'tus-resumable': '1.0.0' } });
        offset = Number(head.headers.get('upload-offset'));
        if (offset > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      console.log(`  cut after ${(size / 2 / MB).toFixed(0)} MB sent; the server had ${(offset / MB).toFixed(1)} MB, resumed from there`);
      await patch(url, location, cookie, base, offset, size);
      const seconds = (performance.now() - started) / 1000;
      const policies = (await (await fetch(`${url}/api/license-policies`, { headers: { cookie } })).json()) as { items: { id: number }[] };
      const product = await fetch(`${url}/api/products`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Bench', version: '1', defaultLicensePolicyId: policies.items[0].id }),
      });
      if (!product.ok) console.log(`  product: ${product.status}`);
      const productId = ((await product.json()) as { id: number }).id;
      const release = await fetch(`${url}/api/products/${productId}/releases`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ version: '1.0.0', releasedAt: new Date().toISOString() }),
      });
      const releaseId = ((await release.json()) as { id: number }).id;
      const saveStarted = performance.now();
      const added = await fetch(`${url}/api/releases/${releaseId}/artifacts`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ uploadId: location.split('/').pop(), platform: 'linux', arch: 'x86_64', filename: 'big.tar.gz' }),
      });
      const addedBody = (await added.json()) as { artifacts?: { sha256: string }[] };
      if (!added.ok) console.log(`  saving answered ${added.status}: ${JSON.stringify(addedBody)}`);
      const artifact = addedBody.artifacts?.[0];
      const saveSeconds = (performance.now() - saveStarted) / 1000;
      const memory = await new Promise<{ idle: number; peak: number }>((resolve) => {
        child.once('message', (answer) => resolve(answer as { idle: number; peak: number }));
        child.send('rss');
      });
      return [
        { name: `artifact of ${(size / MB).toFixed(0)} MB: SHA-256 right after the cut and resume`, value: artifact?.sha256 === sha256 ? 1 : 0, unit: 'yes', target: { min: 1 } },
        { name: 'server memory above idle at its peak', value: (memory.peak - memory.idle) / MB, unit: 'MB', target: { max: 150 } },
        { name: 'upload throughput (cut and resume included)', value: size / MB / seconds, unit: 'MB/s' },
        { name: 'saving it as an artifact (hash of the part before the cut re-read once)', value: saveSeconds, unit: 's' },
      ];
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
};

export default scenario;

if (process.argv[2] === '--serve') await serve(process.argv[3]);
else if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const figure of await scenario.run()) console.log(`${figure.name.padEnd(60)} ${figure.value.toFixed(1).padStart(10)} ${figure.unit}`);
}
