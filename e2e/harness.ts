/**
 * The end-to-end harness: a real server (its own data directory, SQLite by default, PostgreSQL with
 * E2E_DATABASE_URL) serving the built web app, driven by Debian's Chromium through playwright-core.
 *
 * Without Chromium the journeys are skipped with a notice, except with CI=true, where they fail.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { ROOT, runCli, startServerProcess } from '../packages/server/test/processes.ts';

export { ROOT };

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
  const server = await startServerProcess({
    env: {
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      WEB_DIST: path.join(ROOT, 'packages/web/dist'),
      ...(process.env.E2E_DATABASE_URL ? { DATABASE_URL: process.env.E2E_DATABASE_URL } : {}),
      ...extraEnv,
    },
  });
  return {
    ...server,
    cli(...args: string[]) {
      const result = runCli(args, { env: server.env, cwd: server.dataDir });
      if (result.status !== 0) throw new Error(`cli ${args.join(' ')} failed:\n${result.stderr}${result.stdout}`);
      return result.stdout;
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
  /** The system's wish for less motion (prefers-reduced-motion), which the app honours. */
  reducedMotion?: 'reduce' | 'no-preference';
}

/** The requests each page of newContext has in flight, and who waits for none. */
const inFlight = new WeakMap<Page, { count: number; waiting: (() => void)[] }>();

function watchRequests(page: Page): void {
  const requests = { count: 0, waiting: [] as (() => void)[] };
  inFlight.set(page, requests);
  const ended = () => {
    requests.count -= 1;
    if (!requests.count) for (const resolve of requests.waiting.splice(0)) resolve();
  };
  page.on('request', () => (requests.count += 1));
  // A redirect ends its request too, and a new one follows.
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
}

/** Resolves once the page has drawn two more frames (run in the page: the e2e project has no DOM types). */
const TWO_FRAMES = 'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))';

/**
 * Waits until a page of newContext has no request in flight, and still none after it has drawn two
 * more frames (what the answers render may ask for more). Playwright's `networkidle` waits for 500 ms
 * without requests, on every page: with some hundred page visits a journey, minutes.
 */
export async function requestsSettled(page: Page): Promise<void> {
  const requests = inFlight.get(page);
  if (!requests) throw new Error('requestsSettled: not a page of newContext');
  for (;;) {
    if (requests.count) await new Promise<void>((resolve) => requests.waiting.push(resolve));
    await page.evaluate(TWO_FRAMES);
    if (!requests.count) return;
  }
}

/** A fresh browser profile: no cookies, the cookie banner already answered unless asked otherwise. */
export async function newContext(browser: Browser, server: TestServer, options: ContextOptions & { cookieBanner?: boolean } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL: server.url,
    locale: options.locale ?? 'en-US',
    viewport: options.viewport ?? { width: 1280, height: 800 },
    reducedMotion: options.reducedMotion ?? 'no-preference',
    acceptDownloads: true,
  });
  context.on('page', watchRequests);
  if (!options.cookieBanner) await context.addInitScript(() => localStorage.setItem('cookieConsent', 'yes'));
  return context;
}

/** Logs in on /login, in whatever language the page speaks (the fields are found by their types). */
export async function login(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.locator('main input[type=email]').first().fill(email);
  await page.locator('main input[type=password]').first().fill(password);
  await page.locator('main form button[type=submit]').first().click();
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
  const file = path.join(SHOT_DIR, `${name}.png`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: true });
}
