/**
 * What the conformance kit needs to drive a client: a real server on SQLite (stopped and started
 * again on the same data and port to take it offline or rotate its key), the administrator's API
 * for the setup, and each client's harness (DESIGN.md section 6d; contract in README.md).
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { cleanEnv, freePort, PROJECT_NODE, ROOT } from '../../packages/server/test/processes.ts';

export const CLIENTS_DIR = path.join(ROOT, 'clients');
const CLI = path.join(ROOT, 'packages/server/src/cli.ts');
const ADMIN = { email: 'kit-admin@example.com', password: 'kit-admin-secret' };
export const HOUR = 3600;
export const DAY = 24 * HOUR;

/** Debian's libfaketime (package faketime), preloaded to move a server's clock. */
export const FAKETIME_LIBRARY = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/faketime/libfaketime.so.1'].find((file) => fs.existsSync(file));

export const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/** Every client folder that ships an executable `harness` (clients/<lang>/harness). */
export function clientsWithHarness(): string[] {
  return fs
    .readdirSync(CLIENTS_DIR)
    .filter((name) => {
      try {
        fs.accessSync(path.join(CLIENTS_DIR, name, 'harness'), fs.constants.X_OK);
        return fs.statSync(path.join(CLIENTS_DIR, name, 'harness')).isFile();
      } catch {
        return false;
      }
    })
    .sort();
}

/** The license server as a process on one data directory and port, for the whole suite of one client. */
/** The clients whose harness usage (`harness --help`) names every one of `commands`. */
export function clientsWithCommands(...commands: string[]): string[] {
  return clientsWithHarness().filter((client) => {
    const result = spawnSync(path.join(CLIENTS_DIR, client, 'harness'), ['--help'], { encoding: 'utf8', timeout: 120_000 });
    const help = `${result.stdout ?? ''}${result.stderr ?? ''}`;
    return commands.every((command) => new RegExp(`\\b${command}\\b`).test(help));
  });
}

/** Runs `clients/<client>/harness <args>`; its exit code, last JSON line and stderr. */
export function runHarness<Line = Record<string, unknown>>(client: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ exitCode: number | null; line: Line; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(CLIENTS_DIR, client, 'harness'), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (exitCode) => {
      try {
        resolve({ exitCode, line: JSON.parse(stdout.trim().split('\n').at(-1)!) as Line, stderr });
      } catch {
        reject(new Error(`${client}/harness printed no JSON line (exit ${exitCode}):\n${stdout}\n${stderr}`));
      }
    });
  });
}

export class KitServer {
  readonly dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-kit-'));
  /** Settings beyond the kit's own (DEVICE_POLL_INTERVAL_SECONDS for the desktop sign-in). */
  private readonly settings: Record<string, string>;

  constructor(settings: Record<string, string> = {}) {
    this.settings = settings;
  }
  url = '';
  private port = 0;
  private child: ChildProcess | undefined;
  private output = '';
  private cookie = '';

  private env(): Record<string, string> {
    return cleanEnv({ PORT: String(this.port), HOST: '127.0.0.1', DATA_DIR: this.dataDir, PUBLIC_URL: this.url, LOG_LEVEL: 'warn', WEB_DIST: path.join(this.dataDir, 'no-web-app'), ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, ...this.settings });
  }

  /**
   * Starts the server, with its clock moved ahead by `clockOffsetSeconds` through Debian's libfaketime
   * (package faketime) when asked: a staged key's activation passes without waiting for it.
   */
  async start(clockOffsetSeconds = 0): Promise<void> {
    if (!this.port) {
      this.port = await freePort();
      this.url = `http://127.0.0.1:${this.port}`;
    }
    const clock = clockOffsetSeconds ? { LD_PRELOAD: FAKETIME_LIBRARY, FAKETIME: `+${clockOffsetSeconds}s`, FAKETIME_DONT_FAKE_MONOTONIC: '1' } : {};
    const child = spawn(PROJECT_NODE, [path.join(ROOT, 'packages/server/src/main.ts')], { cwd: this.dataDir, env: { ...this.env(), ...clock }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    for (;;) {
      if (child.exitCode !== null) throw new Error(`The server exited:\n${this.output}`);
      try {
        if ((await fetch(`${this.url}/api/health`)).ok) break;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    this.cookie = '';
  }

  /** Stops the process (SIGTERM, waits for its exit); the data stays for the next start. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  async dispose(): Promise<void> {
    await this.stop();
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }

  /**
   * `npm run cli -- keys:rotate` on this server's data (the server stopped, so it signs with the new key
   * when started), or with `activateAt` a staged key: published at once, signing from that time.
   */
  async rotateKeys(activateAt?: Date): Promise<void> {
    await promisify(execFile)(PROJECT_NODE, [CLI, 'keys:rotate', ...(activateAt ? ['--activate-at', activateAt.toISOString()] : [])], { cwd: this.dataDir, env: this.env() });
  }

  /** The administrator's session cookie (logged in once per start). */
  async adminCookie(): Promise<string> {
    if (!this.cookie) {
      const login = await fetch(`${this.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: ADMIN.email, password: ADMIN.password }) });
      if (!login.ok) throw new Error(`login: ${login.status} ${await login.text()}`);
      this.cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    }
    return this.cookie;
  }

  /** A call of the administrator. */
  async api<T = any>(method: string, url: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.url}${url}`, {
      method,
      headers: { cookie: await this.adminCookie(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`);
    return (text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as T;
  }

  /** Writes `GET /api/client/v1/keys` (all or some keys) to a file for the harness's --keys. */
  async keysFile(dir: string, only?: (kid: string) => boolean): Promise<{ file: string; kids: string[] }> {
    const published = (await (await fetch(`${this.url}/api/client/v1/keys`)).json()) as { keys: { kid: string }[] };
    const keys = published.keys.filter((key) => !only || only(key.kid));
    const file = path.join(dir, `keys-${unique('k')}.json`);
    fs.writeFileSync(file, JSON.stringify({ keys }));
    return { file, kids: keys.map((key) => key.kid) };
  }

  /** How many protocol answers of an outcome (`200`, `304`, an error code) the server gave, from /metrics. */
  async protocolAnswers(outcome: string): Promise<number> {
    const text = await (await fetch(`${this.url}/metrics`)).text();
    const line = text.split('\n').find((candidate) => candidate.includes('protocol_responses_total{') && candidate.includes('operation="license"') && candidate.includes(`outcome="${outcome}"`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  }
}

/** A catalogue of the suite: a product with an INDEFINITE and a FLOATING policy, and TANs of them. */
export async function setUpCatalogue(server: KitServer) {
  const policy = (type: string, extra: Record<string, unknown>) =>
    server.api<{ id: number }>('POST', '/api/license-policies', { name: unique(`Kit ${type}`), type, maxDifferentMachinesCount: 100, maxDifferentMachinesIntervalHours: 24, ...extra });
  // INDEFINITE is the built-in policy's type (no other may have it): the kit sets its times.
  const builtIn = await server.api<{ items: { id: number; name: string }[] }>('GET', '/api/license-policies?limit=1000');
  const indefinite = builtIn.items.find((candidate) => candidate.name === 'SINGLE_HOST_INDEFINITE')!;
  await server.api('PUT', `/api/license-policies/${indefinite.id}`, { licenseMaxValidDays: 10, refetchIntervalSeconds: HOUR, refetchBeforeExpirySeconds: DAY, maxDifferentMachinesCount: 100 });
  const floating = await policy('FLOATING', { licenseMaxValidDays: 1, refetchIntervalSeconds: 15 * 60, refetchBeforeExpirySeconds: HOUR });
  const product = await server.api<{ id: number; name: string; version: string }>('POST', '/api/products', { name: unique('Kit Studio'), version: '2.0', defaultLicensePolicyId: indefinite.id });
  const tan = async (licensePolicyId: number, licenseCount = 1) => {
    const created = await server.api<{ items: { id: number; code: string }[] }>('POST', '/api/tans', { productId: product.id, licensePolicyId, licenseCount });
    return created.items[0]!;
  };
  /** Activates a new TAN of the policy for a machine (as the administrator's own license); the license's id. */
  const activate = async (machineId: string, licensePolicyId = indefinite.id) => {
    const { code } = await tan(licensePolicyId);
    return (await server.api<{ id: number }>('POST', '/api/licenses/activate', { tan: code, machineId })).id;
  };
  return { product, indefinite, floating, tan, activate };
}

export interface HarnessResult {
  exitCode: number | null;
  status: { valid: boolean; reason: string | null; licenseId: number | null; offline: boolean; expiresAt: string | null };
  stderr: string;
}

/** Runs `clients/<client>/harness check …` with its clock moved by `clockOffsetSeconds` (the documented test hook). */
export async function harness(client: string, args: { server: string; product: string; machine: string; store: string; keys: string; version?: string; borrowDays?: number; release?: boolean; clockOffsetSeconds?: number }): Promise<HarnessResult> {
  const argv = ['check', '--server', args.server, '--product', args.product, '--machine', args.machine, '--store', args.store, '--keys', args.keys];
  if (args.version) argv.push('--version', args.version);
  if (args.borrowDays) argv.push('--borrow-days', String(args.borrowDays));
  if (args.release) argv.push('--release');
  const env = { ...process.env, LICENSE_HARNESS_CLOCK_OFFSET_SECONDS: String(args.clockOffsetSeconds ?? 0) };
  const { exitCode, line, stderr } = await runHarness<HarnessResult['status']>(client, argv, env);
  return { exitCode, status: line, stderr };
}

/** The license files a client keeps in its store (any `.json`/`.lic` there, as the harness contract says). */
export function storedLicenseFiles(store: string): string[] {
  if (!fs.existsSync(store)) return [];
  return fs
    .readdirSync(store)
    .filter((name) => /\.(json|lic)$/i.test(name))
    .map((name) => path.join(store, name));
}

/** Changes one byte in the middle of a file (a base64 letter to another): still well-formed, no longer genuine. */
export function changeOneByte(file: string): void {
  const bytes = fs.readFileSync(file);
  let at = bytes.length >> 1;
  while (!/[A-Za-z0-9]/.test(String.fromCharCode(bytes[at]!))) at++;
  bytes[at] = bytes[at] === 0x41 ? 0x42 : 0x41;
  fs.writeFileSync(file, bytes);
}

/** The key id a stored `.json` or `.lic` file names. */
export function kidOfFile(file: string): string {
  let text = fs.readFileSync(file, 'utf8').trim();
  if (text.startsWith('-----BEGIN')) text = Buffer.from(text.split('\n').slice(1, -1).join(''), 'base64').toString('utf8');
  return (JSON.parse(text) as { kid: string }).kid;
}

/**
 * One client's suite, at the top of its describe: a server of its own on SQLite with the kit's
 * catalogue and the keys pinned in a file, a work folder, and the harness bound to them.
 */
export function clientSuite(client: string, settings: Record<string, string> = {}) {
  const server = new KitServer(settings);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `lm-kit-${client}-`));
  const state = {} as { catalogue: Awaited<ReturnType<typeof setUpCatalogue>>; keys: string };
  beforeAll(async () => {
    await server.start();
    state.catalogue = await setUpCatalogue(server);
    state.keys = (await server.keysFile(work)).file;
  });
  afterAll(async () => {
    await server.dispose();
    fs.rmSync(work, { recursive: true, force: true });
  });
  return {
    server,
    work,
    get catalogue() {
      return state.catalogue;
    },
    /** The file of the pinned keys (the harness's --keys). */
    get keys() {
      return state.keys;
    },
    /** A new store folder in the work folder. */
    store: () => path.join(work, unique('store')),
    /** The harness for this client with the suite's server, product and keys unless told otherwise. */
    check: (machine: string, storeDir: string, more: Partial<Parameters<typeof harness>[1]> = {}) =>
      harness(client, { server: server.url, product: state.catalogue.product.name, machine, store: storeDir, keys: state.keys, ...more }),
  };
}
