/**
 * The first load of `/` as Chromium really loads it (DESIGN.md section 9: under 250 KB compressed):
 * the web app is built, served by the real server (pre-compressed files, its cache headers) on an
 * empty database, and Debian's Chromium opens `/` with an empty cache until the login form shows and
 * the network is idle. Every answer counts (HTML, JavaScript, CSS, the locale's messages, icons,
 * fonts, API calls) with the bytes that crossed the wire: the compressed body plus the headers.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { Figure, Scenario } from '../run.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WEB = path.join(ROOT, 'packages/web');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** The server half: the real app on an empty SQLite database, serving the build, on a free port. */
async function serve(dataDir: string): Promise<void> {
  const { buildApp } = await import('../../packages/server/src/app.ts');
  const { loadConfig } = await import('../../packages/server/src/platform/config.ts');
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', WEB_DIST: path.join(WEB, 'dist') });
  const app = await buildApp(config);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
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

interface Loaded {
  url: string;
  type: string;
  status: number;
  encoding: string;
  /** Bytes on the wire: compressed body and headers. */
  transferred: number;
  /** The body once decoded. */
  decoded: number;
}

const kb = (bytes: number) => bytes / 1024;

const scenario: Scenario = {
  name: 'web-bundle',
  description: 'the first load of / in Chromium, every file counted as transferred (DESIGN.md section 9: under 250 KB)',
  async run(): Promise<Figure[]> {
    const build = spawnSync(NODE, [path.join(ROOT, 'scripts/build.ts')], { cwd: ROOT, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(build.stderr || build.stdout);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-bench-bundle-'));
    const { child, url } = await startServer(dataDir);
    // A browser that cannot start (Chromium missing) leaves no server behind.
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }).catch((error: unknown) => {
      child.kill('SIGTERM');
      fs.rmSync(dataDir, { recursive: true, force: true });
      throw error;
    });
    try {
      const page = await (await browser.newContext({ locale: 'en-US' })).newPage();
      const loaded: Loaded[] = [];
      const pending: Promise<void>[] = [];
      page.on('requestfinished', (request) => {
        pending.push(
          (async () => {
            const response = await request.response();
            if (!response) return;
            const sizes = await request.sizes();
            const headers = await response.allHeaders();
            loaded.push({
              url: request.url().replace(url, ''),
              type: request.resourceType(),
              status: response.status(),
              encoding: headers['content-encoding'] ?? 'identity',
              transferred: sizes.responseBodySize + sizes.responseHeadersSize,
              decoded: (await response.body().catch(() => Buffer.alloc(0))).length,
            });
          })(),
        );
      });
      await page.goto(`${url}/`, { waitUntil: 'networkidle' });
      await page.getByRole('button', { name: /log in/i }).first().waitFor({ timeout: 30_000 });
      await page.waitForLoadState('networkidle');
      await Promise.all(pending);

      loaded.sort((a, b) => b.transferred - a.transferred);
      for (const file of loaded) {
        console.log(`  ${(kb(file.transferred).toFixed(1) + ' KB').padStart(9)} ${file.encoding.padEnd(8)} ${file.type.padEnd(10)} ${file.status} ${file.url} (${kb(file.decoded).toFixed(1)} KB decoded)`);
      }
      const total = loaded.reduce((sum, file) => sum + file.transferred, 0);
      const scripts = loaded.filter((file) => file.type === 'script').reduce((sum, file) => sum + file.transferred, 0);
      const uncompressed = loaded.filter((file) => file.encoding === 'identity' && file.decoded > 1024 && /\.(js|css|json|html|svg)$|^\/$/.test(file.url.split('?')[0]));
      const encodings = [...new Set(loaded.map((file) => file.encoding))].join(', ');
      console.log(`  ${loaded.length} answers, encodings: ${encodings}`);
      return [
        { name: `first load of / in Chromium: all ${loaded.length} answers, transferred`, value: kb(total), unit: 'KB', target: { max: 250 } },
        { name: 'of which JavaScript', value: kb(scripts), unit: 'KB' },
        { name: 'of which everything decoded (what the browser parses)', value: kb(loaded.reduce((sum, file) => sum + file.decoded, 0)), unit: 'KB' },
        { name: 'text files over 1 KB sent uncompressed', value: uncompressed.length, unit: 'count', target: { max: 0 } },
      ];
    } finally {
      await browser.close();
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
