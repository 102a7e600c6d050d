/**
 * The server test harness: every server suite runs once on SQLite and once on PostgreSQL, each time
 * on a fresh database, through `app.inject` (no port is opened).
 *
 *   describeBothDatabases('settings', (t) => {
 *     it('…', async () => { const response = await t.app.inject({ url: '/api/settings' }); … });
 *   });
 *
 * SQLite: a file in a fresh temporary directory. PostgreSQL: a fresh schema `t_<random>` in
 * TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), dropped afterwards. When that
 * server is unreachable the PostgreSQL variant is skipped with a notice, except with CI=true, where it
 * fails instead.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { SESSION_COOKIE, type Role } from '@lm/contract';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig, type Config } from '../src/platform/config.ts';
import { openDatabase, type Database } from '../src/platform/db/database.ts';
import { createUserFromCli } from '../src/modules/users/cli.ts';

export type DatabaseKind = 'sqlite' | 'postgres';
export const DATABASE_KINDS: readonly DatabaseKind[] = ['sqlite', 'postgres'];

export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const IN_CI = /^(true|1)$/i.test(process.env.CI ?? '');

// ---------------------------------------------------------------------------------------------
// PostgreSQL availability

function canConnect(url: string, timeoutMs = 1500): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname || '127.0.0.1', port: Number(port || 5432) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Whether the PostgreSQL variant runs: yes when reachable, and always in CI (where it then fails). */
export const postgresReachable = await canConnect(POSTGRES_URL);
const runPostgres = postgresReachable || IN_CI;
if (!postgresReachable) {
  const where = new URL(POSTGRES_URL).host;
  if (IN_CI) {
    console.error(`[harness] PostgreSQL at ${where} is unreachable and CI=true: the PostgreSQL variants will FAIL.`);
  } else {
    console.warn(`[harness] NOTICE: PostgreSQL at ${where} is unreachable; the PostgreSQL variants are SKIPPED (set CI=true to fail instead).`);
  }
}

// ---------------------------------------------------------------------------------------------
// Fresh databases and apps

export interface TestDatabase {
  kind: DatabaseKind;
  database: Database;
  /** The connection settings, for a second app on the same database. */
  config: Config['database'];
  /** Closes the connection and removes the database (file or schema). */
  dispose(): Promise<void>;
}

/** A new empty database of the kind (not yet migrated: buildApp migrates). */
export async function freshDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-test-'));
    const config = { kind: 'sqlite' as const, file: path.join(dir, 'test.db') };
    const database = openDatabase(config);
    return {
      kind,
      database,
      config,
      async dispose() {
        await database.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (!postgresReachable) {
    throw new Error(`PostgreSQL at ${new URL(POSTGRES_URL).host} is unreachable, and CI=true requires the PostgreSQL variant to run`);
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE SCHEMA ${schema}`);
  const config = { kind: 'postgres' as const, url: POSTGRES_URL, schema };
  const database = openDatabase(config);
  return {
    kind,
    database,
    config,
    async dispose() {
      await database.close();
      await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}

async function adminQuery(statement: string): Promise<void> {
  await withSchemaLock(async (client) => {
    await client.query(statement);
  });
}

/** Any number, the same in every test process: the advisory lock that serializes schema DDL. */
const SCHEMA_LOCK = 741_852_963;

/**
 * Kysely's migrator introspects every table of the database, in every schema; a schema that another
 * test file drops during that scan fails it ("schema … does not exist"). Creating, migrating and
 * dropping test schemas therefore take turns, across test workers and processes.
 */
export async function withSchemaLock<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [SCHEMA_LOCK]);
    return await work(client);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [SCHEMA_LOCK]).catch(() => undefined);
    await client.end();
  }
}

export interface TestAppOptions {
  /** Environment variables for loadConfig (the harness supplies safe ones). */
  env?: Record<string, string>;
  /** Overrides of the loaded config, e.g. `{ rateLimits: true }`. */
  config?: Partial<Omit<Config, 'database'>>;
  /** Where the app logs (at the env's LOG_LEVEL); without it the app logs nothing. */
  logStream?: NodeJS.WritableStream;
}

/** The config of a test app: quiet, no web app, rate limits off unless asked for. */
export function testConfig(database: Config['database'], options: TestAppOptions = {}): Config {
  const config = loadConfig({
    DATA_DIR: path.join(os.tmpdir(), 'lm-test-data'),
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'http://localhost:3000',
    ADMIN_EMAIL: 'admin@example.com',
    WEB_DIST: path.join(os.tmpdir(), 'lm-test-no-web-app'),
    ...options.env,
  });
  return { ...config, rateLimits: false, ...options.config, database };
}

export interface TestApp {
  kind: DatabaseKind;
  app: App;
  config: Config;
  close(): Promise<void>;
}

/**
 * Builds an app on an open database, quietly. On PostgreSQL its migrations run under the schema
 * lock: every app a test builds must come through here, or its migrator can trip over a schema
 * another test file is dropping.
 */
export function buildTestApp(config: Config, database: Database, logStream?: NodeJS.WritableStream): Promise<App> {
  const build = () => buildApp(config, { database, ...(logStream ? { logStream } : { logger: false }) });
  return config.database.kind === 'postgres' ? withSchemaLock(build) : build();
}

/** Builds the app on a fresh database of the kind; `close()` removes both. */
export async function createTestApp(kind: DatabaseKind, options: TestAppOptions = {}): Promise<TestApp> {
  const fresh = await freshDatabase(kind);
  let app: App;
  const config = testConfig(fresh.config, options);
  try {
    app = await buildTestApp(config, fresh.database, options.logStream);
  } catch (error) {
    await fresh.dispose();
    throw error;
  }
  return {
    kind,
    app,
    config,
    async close() {
      await app.close();
      await fresh.dispose();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// One suite per database

export interface Harness {
  readonly kind: DatabaseKind;
  /** The app of this suite (built in beforeAll; read it inside tests and hooks only). */
  readonly app: App;
  readonly config: Config;
  /** Another app on its own fresh database of the same kind, closed after the suite. */
  newApp(options?: TestAppOptions): Promise<App>;
}

/**
 * Runs `body` once per database kind, as `name [sqlite]` and `name [postgres]`, with one app on a
 * fresh database shared by the suite's tests (give each test its own users: see uniqueEmail).
 */
export function describeBothDatabases(name: string, body: (t: Harness) => void, options: TestAppOptions = {}): void {
  for (const kind of DATABASE_KINDS) {
    const skip = kind === 'postgres' && !runPostgres;
    describe.skipIf(skip)(`${name} [${kind}]`, () => {
      let main: TestApp | undefined;
      const extra: TestApp[] = [];
      const harness: Harness = {
        kind,
        get app() {
          if (!main) throw new Error('t.app is available inside tests and hooks only');
          return main.app;
        },
        get config() {
          if (!main) throw new Error('t.config is available inside tests and hooks only');
          return main.config;
        },
        async newApp(more = {}) {
          const testApp = await createTestApp(kind, {
            env: { ...options.env, ...more.env },
            config: { ...options.config, ...more.config },
            logStream: more.logStream ?? options.logStream,
          });
          extra.push(testApp);
          return testApp.app;
        },
      };
      beforeAll(async () => {
        main = await createTestApp(kind, options);
      });
      afterAll(async () => {
        for (const testApp of [...extra, ...(main ? [main] : [])]) await testApp.close();
      });
      body(harness);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Users, sessions and requests

export const DEFAULT_PASSWORD = 'correct horse battery';

/** An address no other test uses (the login throttle is per process and per address). */
export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}@example.com`;
}

export interface CreatedUser {
  id: number;
  email: string;
  password: string;
  role: Role;
}

/** A confirmed account, created as `npm run cli -- user:create` does. */
export async function createUser(app: App, input: { email?: string; role?: Role; password?: string } = {}): Promise<CreatedUser> {
  const role = input.role ?? 'USER';
  const email = (input.email ?? uniqueEmail(role.toLowerCase())).toLowerCase();
  const password = input.password ?? DEFAULT_PASSWORD;
  const { id } = await createUserFromCli(app.ctx, { email, role, password });
  return { id, email, password, role };
}

/** The `name=value` of the session cookie a response sets, or null. */
export function sessionCookieOf(response: LightMyRequestResponse): string | null {
  const cookie = response.cookies.find((c) => c.name === SESSION_COOKIE && c.value);
  return cookie ? `${cookie.name}=${cookie.value}` : null;
}

/** Logs in and returns the Cookie header value of the session. */
export async function login(app: App, email: string, password: string = DEFAULT_PASSWORD): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/api/session', payload: { username: email, password } });
  expect(response.statusCode, `login of ${email}: ${response.body}`).toBe(200);
  const cookie = sessionCookieOf(response);
  if (!cookie) throw new Error(`login of ${email} set no session cookie`);
  return cookie;
}

/** A user of the role, logged in: its record and its Cookie header. */
export async function loggedIn(app: App, role: Role = 'USER'): Promise<CreatedUser & { cookie: string }> {
  const user = await createUser(app, { role });
  return { ...user, cookie: await login(app, user.email, user.password) };
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  cookie?: string | null;
  body?: unknown;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

/** One request through app.inject; a body is sent as JSON. */
export function request(app: App, method: Method, url: string, options: RequestOptions = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.cookie) headers.cookie = options.cookie;
  const inject: InjectOptions = { method, url, headers, query: options.query };
  if (options.body !== undefined) inject.payload = options.body as InjectOptions['payload'];
  return app.inject(inject);
}

/** Requests as one caller (a cookie, or anonymous with none). */
export function client(app: App, cookie: string | null = null) {
  const as = (method: Method) => (url: string, options: Omit<RequestOptions, 'cookie'> = {}) => request(app, method, url, { ...options, cookie });
  return { get: as('GET'), post: as('POST'), put: as('PUT'), patch: as('PATCH'), delete: as('DELETE') };
}

type Client = ReturnType<typeof client>;

/**
 * A logged-in caller of each role for a suite's tests, an anonymous one, and their session cookies
 * (for fixtures that take one). The callers log in before the suite's tests.
 */
export function callersOfEachRole(t: Harness) {
  const cookies: Record<Role, string> = { ADMIN: '', DISTRIBUTOR: '', USER: '' };
  beforeAll(async () => {
    for (const role of Object.keys(cookies) as Role[]) cookies[role] = (await loggedIn(t.app, role)).cookie;
  });
  // The suite's app and the cookies exist once the hooks have run: each request reads them then.
  const as = (role: Role | null): Client => {
    const call = (method: keyof Client): Client[keyof Client] => (url, options) => client(t.app, role && cookies[role])[method](url, options);
    return { get: call('get'), post: call('post'), put: call('put'), patch: call('patch'), delete: call('delete') };
  };
  return { cookies, admin: as('ADMIN'), distributor: as('DISTRIBUTOR'), user: as('USER'), anonymous: as(null) };
}

/** Asserts the status and the error code of an error answer, and returns its body. */
export function expectError(response: LightMyRequestResponse, status: number, code: string) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json() as { error: string; message: string; details?: { path: string; message: string; code?: string; params?: Record<string, string | number> }[]; params?: Record<string, string | number> };
  expect(body.error).toBe(code);
  expect(typeof body.message).toBe('string');
  return body;
}

/** Asserts that `GET /api/session` answered a visitor without a session: 200, no account, anonymous rules. */
export function expectAnonymousSession(response: LightMyRequestResponse) {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json()).toMatchObject({ id: null, username: null, accessRole: null, rules: expect.any(Array) });
}
