/**
 * The end-to-end harness: a real server (its own data directory, SQLite by default, PostgreSQL with
 * E2E_DATABASE_URL) serving the built web app, driven by Debian's Chromium through playwright-core.
 *
 * Without Chromium the journeys are skipped with a notice, except with CI=true, where they fail.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';

export const ROOT = path.resolve(import.meta.dirname, '..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const IN_CI = /^(true|1)$/i.test(process.env.CI ?? '');
export const ADMIN = { email: 'admin@e2e.test', password: 'admin-secret-1' };

const chromiumPresent = fs.existsSync(CHROMIUM);
if (!chromiumPresent) {
  const message = `Chromium not found at ${CHROMIUM}`;
  if (IN_CI) console.error(`[e2e] ${message} and CI=true: the browser journeys will FAIL.`);
  else console.warn(`[e2e] NOTICE: ${message}; the browser journeys are SKIPPED (apt-get install -y chromium).`);
}

/** `describe` for a journey file: skipped without Chromium outside CI. */
export const describeJourney = chromiumPresent || IN_CI ? describe : describe.skip;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface TestServer {
  url: string;
  dataDir: string;
  env: Record<string, string>;
  /** Runs `npm run cli -- …` against this server's database. */
  cli(...args: string[]): string;
  stop(): Promise<void>;
}

/** Starts the server as `npm start` does (without the build: scripts/test.ts builds the web app once). */
export async function startServer(extraEnv: Record<string, string> = {}): Promise<TestServer> {
  if (!fs.existsSync(path.join(ROOT, 'packages/web/dist/index.html'))) {
    const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('The web app did not build');
  }
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-e2e-'));
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'warn',
    ...(process.env.E2E_DATABASE_URL ? { DATABASE_URL: process.env.E2E_DATABASE_URL } : {}),
    ...extraEnv,
  };
  const child: ChildProcess = spawn(NODE, [path.join(ROOT, 'packages/server/src/main.ts')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The server exited:\n${output}`);
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`The server did not start within 30 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  return {
    url,
    dataDir,
    env,
    cli(...args: string[]) {
      const result = spawnSync(NODE, [path.join(ROOT, 'packages/server/src/cli.ts'), ...args], { cwd: ROOT, env, encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`cli ${args.join(' ')} failed:\n${result.stderr}${result.stdout}`);
      return result.stdout;
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * The server and Chromium of one describe block's journeys: started before them, stopped after
 * them. Read `server` and `browser` inside hooks and tests, once they have started.
 */
export function journeySetup(): { server: TestServer; browser: Browser } {
  const setup = {} as { server: TestServer; browser: Browser };
  beforeAll(async () => {
    setup.server = await startServer();
    setup.browser = await launchBrowser();
  });
  afterAll(async () => {
    await setup.browser?.close();
    await setup.server?.stop();
  });
  return setup;
}

export interface ContextOptions {
  locale?: string;
  viewport?: { width: number; height: number };
}

/** A fresh browser profile: no cookies, the cookie banner already answered unless asked otherwise. */
export async function newContext(browser: Browser, server: TestServer, options: ContextOptions & { cookieBanner?: boolean } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: server.url, locale: options.locale ?? 'en-US', viewport: options.viewport ?? { width: 1280, height: 800 }, acceptDownloads: true });
  if (!options.cookieBanner) await context.addInitScript(() => localStorage.setItem('cookieConsent', 'yes'));
  return context;
}

export async function login(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel(/e-mail/i).first().fill(email);
  await page.getByLabel(/password/i).first().fill(password);
  await page.getByRole('button', { name: 'Log in' }).last().click();
  await expect.poll(() => new URL(page.url()).pathname).not.toBe('/login');
}

/** Creates a confirmed account through the CLI. */
export function createAccount(server: TestServer, email: string, role: 'ADMIN' | 'DISTRIBUTOR' | 'USER', password = 'secret-pass-1'): { email: string; password: string } {
  server.cli('user:create', '--email', email, '--role', role, '--password', password);
  return { email, password };
}

const SHOT_DIR = path.join(ROOT, 'e2e/screenshots');

/** Keeps a screenshot of what a person saw, for review (e2e/screenshots, not committed). */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SHOT_DIR, `${name}.png`), fullPage: true });
}
