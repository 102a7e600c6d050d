/**
 * The server and its CLI as real processes, for the tests of what an operator or a vendor runs:
 * `npm start`, `npm run cli`, and the SDK tarball against a listening server.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../../..');
/** The project's Node 24 (the `node` dependency), as npm scripts run it. */
export const PROJECT_NODE = path.join(ROOT, 'node_modules/.bin/node');
export const CLI = path.join(ROOT, 'packages/server/src/cli.ts');
export const IN_CI = /^(true|1)$/i.test(process.env.CI ?? '');
/**
 * How long a synchronous child process may run before the test gives up on it: a guard against one
 * that hangs (spawnSync blocks the test's own timeout), never a budget of its work, which a busy
 * 2-core runner does many times slower than an idle one (issue 39).
 */
export const HANG_GUARD_MS = 600_000;

/**
 * The machine's own Node, not the project's: the first `node` on PATH outside any node_modules
 * (npm puts the project's first while it runs the tests). Null when there is none.
 */
export function machineNode(): { path: string; version: string } | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir || dir.includes('node_modules')) continue;
    const candidate = path.join(dir, 'node');
    if (!fs.existsSync(candidate)) continue;
    const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout.trim();
    if (version) return { path: candidate, version };
  }
  return null;
}

/** A port nothing listens on right now (taken from the OS, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** An environment without the test runner's configuration, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(VITEST|TEST_|DATABASE_URL$|DATA_DIR$|PORT$|METRICS_TOKEN$|ADMIN_)/.test(name)) env[name] = value;
  }
  return { ...env, ...extra };
}

export function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): SpawnSyncReturns<string> {
  return spawnSync(PROJECT_NODE, [CLI, ...args], { cwd: options.cwd ?? os.tmpdir(), env: cleanEnv(options.env), encoding: 'utf8', timeout: HANG_GUARD_MS });
}

export interface ServerProcess {
  url: string;
  dataDir: string;
  env: Record<string, string>;
  pid: number;
  output(): string;
  /** Resolves with the exit code (null when a signal ended it) once the process has ended. */
  exited(): Promise<number | null>;
  stop(): Promise<void>;
}

/**
 * Starts `script` (default: the server's main.ts) on a free port with a fresh data directory and
 * waits until /api/health answers. It runs in that data directory unless told otherwise, so that a
 * developer's `.env` in the checkout does not reach the tests.
 */
export async function startServerProcess(options: { env?: Record<string, string>; script?: string; cwd?: string } = {}): Promise<ServerProcess> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-process-'));
  const env = cleanEnv({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'warn',
    WEB_DIST: path.join(dataDir, 'no-web-app'),
    ...options.env,
  });
  const child: ChildProcess = spawn(PROJECT_NODE, [options.script ?? path.join(ROOT, 'packages/server/src/main.ts')], {
    cwd: options.cwd ?? dataDir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + HANG_GUARD_MS;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`The server exited:\n${output}`);
    }
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`The server did not answer within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, dataDir, env, pid: child.pid!, output: () => output, exited: () => exit, stop };
}

/** JSON over HTTP with an optional session cookie; answers the status, body and the session cookie set. */
export async function call(url: string, options: { method?: string; body?: unknown; cookie?: string } = {}): Promise<{ status: number; body: any; cookie?: string }> {
  const response = await fetch(url, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...(options.cookie ? { cookie: options.cookie } : {}) },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  const setCookie = response.headers.get('set-cookie')?.split(';')[0];
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body, cookie: setCookie };
}

/** A child process that takes the write lock of `file` (BEGIN IMMEDIATE) and keeps it until told. */
export async function holdWriteLock(file: string): Promise<{ release(): Promise<void> }> {
  const script = `
    const { DatabaseSync } = require('node:sqlite');
    const db = new DatabaseSync(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    process.stdin.once('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });
  `;
  const child: ChildProcess = spawn(PROJECT_NODE, ['-e', script, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code}) before locking`)));
  });
  return {
    async release() {
      child.stdin!.write('go\n');
      await exited;
    },
  };
}
