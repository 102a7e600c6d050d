/**
 * The container image (DESIGN.md section 6e, README "Running in a container"), built and run with
 * Debian's podman as CI runs it: from a base image made here (debootstrap, imported as
 * debian:bookworm-slim, since no image registry is reachable), the data in a volume, logged in,
 * restarted with its data, its health check, and a SIGTERM stop; then compose.yaml and
 * compose.scaled.yaml (two instances behind nginx, PostgreSQL and a streaming replica) brought up with
 * Debian's podman-compose (1.0.3), PostgreSQL and nginx stand-in images (docker/postgres,
 * docker/nginx) since the official ones cannot be pulled. Outside CI it is skipped with a notice where
 * podman (or podman-compose) is missing.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, IN_CI, ROOT } from './processes.ts';

const BASE_IMAGE = 'docker.io/library/debian:bookworm-slim';
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
const which = (command: string) => (process.env.PATH ?? '').split(':').some((dir) => dir && fs.existsSync(path.join(dir, command)));
const present = which('podman');
const composePresent = which('podman-compose');
if (!present) {
  if (IN_CI) console.error('[container] podman is missing and CI=true: the container test will FAIL.');
  else console.warn('[container] NOTICE: podman is not installed; the container test is SKIPPED (apt-get install -y podman runc debootstrap).');
}

// Podman here needs runc and no default ulimits (DESIGN.md section 6e): its own configuration file.
const confDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-podman-'));
fs.writeFileSync(path.join(confDir, 'containers.conf'), '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\n');
const env = { ...process.env, CONTAINERS_CONF: path.join(confDir, 'containers.conf') };

/** Runs a command to its end (however long that takes on a busy machine), answering its output; throws on failure. */
function run(command: string, args: string[], options: { input?: NodeJS.ReadableStream; allowFailure?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env ?? env, cwd: ROOT, stdio: [options.input ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk));
    if (options.input && child.stdin) options.input.pipe(child.stdin);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 && !options.allowFailure) reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${out.slice(-4000)}`));
      else resolve({ code: code ?? -1, out });
    });
  });
}

const podman = (...args: string[]) => run('podman', args);

/** The base image, made once per machine from Debian's own packages. */
async function baseImage(): Promise<void> {
  if ((await run('podman', ['image', 'exists', BASE_IMAGE], { allowFailure: true })).code === 0) return;
  const rootfs = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-rootfs-'));
  try {
    await run('debootstrap', ['--variant=minbase', 'bookworm', rootfs, 'http://deb.debian.org/debian']);
    const tar = spawn('tar', ['-C', rootfs, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    await run('podman', ['import', '-', BASE_IMAGE], { input: tar.stdout });
  } finally {
    fs.rmSync(rootfs, { recursive: true, force: true });
  }
}

/** Whether no process has this id (the run that made a leftover was stopped). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes what an earlier run of this file left when it was killed before its afterAll: containers
 * (a whole scaled stack kept running, and slowing every test after it), networks, volumes and images
 * whose names carry the id of a process that has ended (`suffix` below). A run still going keeps its own.
 */
async function removeLeftovers(): Promise<void> {
  const leftover = (name: string) => {
    const match = /^(?:lm-(?:test|test-data|scaled)-|localhost\/[a-z-]+:test-)(\d+)-[0-9a-f]{8}(?:_|$)/.exec(name);
    return match !== null && gone(Number(match[1]));
  };
  const remove = async (list: string[], removal: string[]) => {
    const found = (await run('podman', list, { allowFailure: true })).out.split('\n').filter(leftover);
    if (found.length) await run('podman', [...removal, '--force', ...found], { allowFailure: true });
  };
  await remove(['ps', '--all', '--format', '{{.Names}}'], ['rm']);
  await remove(['network', 'ls', '--format', '{{.Name}}'], ['network', 'rm']);
  await remove(['volume', 'ls', '--format', '{{.Name}}'], ['volume', 'rm']);
  await remove(['images', '--format', '{{.Repository}}:{{.Tag}}'], ['rmi']);
}

/** Waits for the container's server to answer, as long as the container runs. */
async function healthy(url: string, name: string, deadline = Number.POSITIVE_INFINITY): Promise<void> {
  for (;;) {
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    const state = (await podman('inspect', '--format', '{{.State.Status}}', name)).out.trim();
    if (state !== 'running' || Date.now() > deadline) throw new Error(`The container is ${state}:\n${(await run('podman', ['logs', name], { allowFailure: true })).out.slice(-4000)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function login(url: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: email, password }) });
  expect(response.status, await response.clone().text()).toBe(200);
  return response.headers.getSetCookie().map((cookie) => cookie.split(';')[0]).join('; ');
}

/** A product made by the administrator, with the policy every fresh database has. */
async function makeProduct(url: string, cookie: string, name: string): Promise<void> {
  const policies = (await (await fetch(`${url}/api/license-policies?limit=100`, { headers: { cookie } })).json()) as { items: { id: number; name: string }[] };
  const policy = policies.items.find((item) => item.name === 'SINGLE_HOST_INDEFINITE')!;
  const created = await fetch(`${url}/api/products`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, origin: url },
    body: JSON.stringify({ name, version: '1.0', active: true, defaultLicensePolicyId: policy.id }),
  });
  expect(created.status, await created.clone().text()).toBe(201);
}

/** Builds an image from one of the stand-in Dockerfiles unless an earlier test did. */
async function standInImage(file: string, tag: string): Promise<void> {
  if ((await run('podman', ['image', 'exists', tag], { allowFailure: true })).code === 0) return;
  await podman('build', '--pull=never', '--format', 'docker', '--network', 'host', '--file', file, '--tag', tag, '.');
}

/**
 * A GET made inside an app container to its own port: a direct connection from that machine (which
 * /metrics answers without METRICS_TOKEN), to one instance, whether or not the host reaches the
 * compose network. Status 0: no answer (the error in `body`).
 */
async function getInside(container: string, pathAndQuery: string, cookie = ''): Promise<{ status: number; body: string }> {
  const script = `fetch('http://127.0.0.1:3000' + process.argv[1], { headers: process.env.COOKIE ? { cookie: process.env.COOKIE } : {} })
    .then(async (r) => console.log(JSON.stringify({ status: r.status, body: await r.text() })), (e) => console.log(JSON.stringify({ status: 0, body: String(e) })))`;
  const { out } = await run('podman', ['exec', '--env', `COOKIE=${cookie}`, container, 'node', '-e', script, pathAndQuery], { allowFailure: true });
  try {
    return JSON.parse(out.trim().split('\n').at(-1) ?? '') as { status: number; body: string };
  } catch {
    return { status: 0, body: out };
  }
}

/** The sum of a metric's samples whose labels include `labels` (Prometheus text format). */
function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    if (Object.entries(labels).every(([label, value]) => (match[2] ?? '').includes(`${label}="${value}"`))) sum += Number(match[3]);
  }
  return sum;
}

/** Asks `probe` once a second until it answers true; past the deadline, fails with `explain()`. */
async function poll(what: string, deadline: number, probe: () => Promise<boolean>, explain: () => Promise<string>): Promise<void> {
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}, still not after the deadline:\n${await explain()}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** The end of each container's log, for a failure's message. */
async function logsOf(containers: string[]): Promise<string> {
  const parts = await Promise.all(containers.map(async (name) => `--- ${name}:\n${(await run('podman', ['logs', name], { allowFailure: true })).out.slice(-2500)}`));
  return parts.join('\n');
}

(present || IN_CI ? describe : describe.skip)('the container image', () => {
  // The process's id in every name: a later run removes what this one leaves if it is killed.
  const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const image = `localhost/license-manager:test-${suffix}`;
  const name = `lm-test-${suffix}`;
  const volume = `lm-test-data-${suffix}`;
  const admin = { email: 'admin@container.test', password: `container-${suffix}` };
  const standIn = `localhost/lm-postgres-standin:test-${suffix}`;
  const nginxStandIn = `localhost/lm-nginx-standin:test-${suffix}`;
  /** The compose projects brought up, for afterAll to take down whatever happened. */
  const stacks: { file: string; project: string; env: NodeJS.ProcessEnv }[] = [];
  const down = async ({ file, project, env: composeEnv }: (typeof stacks)[number]) => {
    await run('podman-compose', ['-f', file, '-p', project, 'down', '-v'], { allowFailure: true, env: composeEnv });
    // podman-compose 1.0 leaves the project's network behind.
    await run('podman', ['network', 'rm', '--force', `${project}_default`], { allowFailure: true });
  };
  /** The environment of a compose file brought up with the image tested here and the stand-ins. */
  const composeEnvironment = (port: number): NodeJS.ProcessEnv => ({
    ...env,
    LICENSE_MANAGER_IMAGE: image,
    POSTGRES_IMAGE: standIn,
    NGINX_IMAGE: nginxStandIn,
    LICENSE_MANAGER_PORT: String(port),
    SECRET_KEY: `compose-secret-${suffix}-long-enough`,
    POSTGRES_PASSWORD: `db-${suffix}`,
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    // Unset optional variables stay unset in the container (podman-compose 1.0 left `${SMTP_URL:-}` as text).
    SMTP_URL: undefined,
    METRICS_TOKEN: undefined,
  });
  /** The compose tests use the image the first test built: without it, podman-compose would build one of its own. */
  const imageBuilt = async () => expect((await run('podman', ['image', 'exists', image], { allowFailure: true })).code, `${image} was not built (see the first test)`).toBe(0);

  afterAll(async () => {
    if (!present) return;
    for (const stack of stacks) await down(stack);
    await run('podman', ['rmi', '--force', standIn, nginxStandIn], { allowFailure: true });
    await run('podman', ['rm', '--force', name], { allowFailure: true });
    await run('podman', ['volume', 'rm', '--force', volume], { allowFailure: true });
    await run('podman', ['rmi', '--force', image], { allowFailure: true });
    fs.rmSync(confDir, { recursive: true, force: true });
  });

  it('builds, runs as a non-root user with its data in a volume, keeps it across a restart, and stops on SIGTERM', { timeout: 60 * 60_000 }, async () => {
    await removeLeftovers();
    await baseImage();
    const secret = fs.existsSync(CA_BUNDLE) ? ['--secret', `id=ca_bundle,src=${CA_BUNDLE}`] : [];
    await podman('build', '--pull=never', '--format', 'docker', '--network', 'host', ...secret, '--tag', image, '.');

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    await podman('run', '--detach', '--name', name, '--publish', `127.0.0.1:${port}:3000`, '--volume', `${volume}:/data`, '--env', `ADMIN_EMAIL=${admin.email}`, '--env', `ADMIN_PASSWORD=${admin.password}`, image);
    await healthy(url, name);
    expect((await podman('exec', name, 'id', '-u')).out.trim()).toBe('10001');
    expect((await podman('exec', name, 'stat', '-c', '%U %a', '/data')).out.trim()).toBe('license-manager 700');
    expect((await run('podman', ['healthcheck', 'run', name], { allowFailure: true })).code).toBe(0);

    // Something to find again after the restart: a product made by the administrator.
    let cookie = await login(url, admin.email, admin.password);
    await makeProduct(url, cookie, 'Container Studio');

    await podman('restart', name);
    await healthy(url, name);
    cookie = await login(url, admin.email, admin.password);
    const products = (await (await fetch(`${url}/api/products?filter=Container`, { headers: { cookie } })).json()) as { items: { name: string }[] };
    expect(products.items.map((product) => product.name)).toEqual(['Container Studio']);

    // `podman stop` sends SIGTERM and waits: the server ends by itself, with status 0, long before the 60 s after which podman would kill it.
    await podman('stop', '--time', '60', name);
    expect((await podman('inspect', '--format', '{{.State.ExitCode}}', name)).out.trim()).toBe('0');
  });

  // Runs after the image test above, whose image it uses (compose.yaml's `build` is skipped for an image that exists).
  it.skipIf(!composePresent && !IN_CI)('compose.yaml comes up with podman-compose: the app waits for PostgreSQL, starts healthy, and takes a login', { timeout: 30 * 60_000 }, async () => {
    expect(composePresent, 'podman-compose is missing (apt-get install -y podman-compose)').toBe(true);
    await imageBuilt();
    await standInImage('docker/postgres/Dockerfile', standIn);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const stack = { file: 'compose.yaml', project: `lm-compose-${suffix}`, env: composeEnvironment(port) };
    stacks.push(stack);
    const up = await run('podman-compose', ['-f', stack.file, '-p', stack.project, 'up', '-d'], { env: stack.env });
    expect(up.code).toBe(0);
    await healthy(url, `${stack.project}_app_1`, Date.now() + 10 * 60_000);
    await login(url, admin.email, admin.password);
    const environment = (await podman('inspect', '--format', '{{range .Config.Env}}{{println .}}{{end}}', `${stack.project}_app_1`)).out;
    expect(environment).toContain('DATABASE_URL=postgres://');
    expect(environment).not.toMatch(/^SMTP_URL=/m);
    // Down before the next stack comes up, to spare a small machine (afterAll does it after a failure).
    await down(stacks.pop()!);
  });

  // Also after the image test, whose image both instances run; the PostgreSQL stand-in serves the primary and the replica.
  it.skipIf(!composePresent && !IN_CI)(
    'compose.scaled.yaml comes up with podman-compose: both instances serve through nginx, share the database, and read from a streaming replica',
    { timeout: 30 * 60_000 },
    async () => {
      expect(composePresent, 'podman-compose is missing (apt-get install -y podman-compose)').toBe(true);
      await imageBuilt();
      await standInImage('docker/postgres/Dockerfile', standIn);
      await standInImage('docker/nginx/Dockerfile', nginxStandIn);
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const stack = { file: 'compose.scaled.yaml', project: `lm-scaled-${suffix}`, env: { ...composeEnvironment(port), PUBLIC_URL: url } };
      stacks.push(stack);
      const [proxy, app1, app2, db, replica] = ['proxy', 'app1', 'app2', 'db', 'replica'].map((service) => `${stack.project}_${service}_1`);
      const all = [proxy, app1, app2, db, replica];
      expect((await run('podman-compose', ['-f', stack.file, '-p', stack.project, 'up', '-d'], { env: stack.env })).code).toBe(0);

      // The proxy answers healthy once one instance does; then each instance must, on its own.
      const deadline = Date.now() + 10 * 60_000;
      await poll('the proxy answers /api/health', deadline, async () => (await fetch(`${url}/api/health`).catch(() => null))?.ok === true, () => logsOf(all));
      for (const app of [app1, app2]) await poll(`${app} answers /api/health`, deadline, async () => (await getInside(app, '/api/health')).status === 200, () => logsOf(all));
      // The proxy keeps /metrics to the instances themselves.
      expect((await fetch(`${url}/metrics`)).status).toBe(403);

      const psql = (container: string, query: string) => run('podman', ['exec', container, 'psql', '-U', 'license_manager', '-d', 'licenses', '-Atc', query], { allowFailure: true });
      // What a refused request leaves to look at: each instance's connections, what the database's are doing, the logs.
      const connectionsState = async () => {
        const instances = await Promise.all([app1, app2].map(async (app) => `--- ${app} /metrics:\n${(await getInside(app, '/metrics')).body.split('\n').filter((line) => line.startsWith('license_manager_db_')).join('\n')}`));
        const activity = await psql(db, "select application_name, client_addr, state, wait_event_type, wait_event, now() - xact_start, left(query, 100) from pg_stat_activity where datname = 'licenses'");
        return `${instances.join('\n')}\n--- ${db} pg_stat_activity:\n${activity.out}\n${await logsOf(all)}`;
      };

      /**
       * A read as a client makes it: a 503 is the server's "try again in a moment", so it is tried
       * again until the deadline, and told in the log with the connections' state (on a busy 2-core CI
       * machine an instance that had just started once took over 5 s to open a connection to the
       * database); any other answer than 200 fails at once, with that state.
       */
      const readAsAClient = async (what: string, read: () => Promise<{ status: number; body: string }>) => {
        let answer = { status: 0, body: '' };
        await poll(
          what,
          deadline,
          async () => {
            answer = await read();
            if (answer.status === 200) return true;
            const state = await connectionsState();
            if (answer.status !== 503) expect.fail(`${what}: ${answer.status} ${answer.body}\n${state}`);
            console.warn(`${what}: ${answer.status} ${answer.body}, tried again in a second\n${state}`);
            return false;
          },
          async () => `${answer.status} ${answer.body}\n${await connectionsState()}`,
        );
        return answer;
      };

      const cookie = await login(url, admin.email, admin.password);
      await makeProduct(url, cookie, 'Scaled Studio');
      // The proxy takes turns: each instance answers some of these (counted in its own /metrics).
      for (let i = 0; i < 6; i++) {
        await readAsAClient('a read through the proxy', async () => {
          const answer = await fetch(`${url}/api/products?filter=Scaled`, { headers: { cookie } });
          return { status: answer.status, body: await answer.text() };
        });
      }
      for (const app of [app1, app2]) {
        const metrics = await getInside(app, '/metrics');
        expect(metrics.status, metrics.body).toBe(200);
        expect(metricValue(metrics.body, 'license_manager_http_request_duration_seconds_count', { method: 'GET', route: '/api/products' }), `${app} answered none of the proxied reads`).toBeGreaterThan(0);
      }
      // Either instance, asked directly with the session made through the proxy, finds the product.
      for (const app of [app1, app2]) {
        const products = await readAsAClient(`a read of ${app}`, () => getInside(app, '/api/products?filter=Scaled', cookie));
        expect((JSON.parse(products.body) as { items: { name: string }[] }).items.map((product) => product.name)).toEqual(['Scaled Studio']);
      }

      // The replica is a standby streaming from the primary, and has the product.
      await poll('the replica runs as a standby', deadline, async () => (await psql(replica, 'select pg_is_in_recovery()')).out.trim() === 't', () => logsOf([db, replica]));
      await poll('the primary streams to the replica', deadline, async () => (await psql(db, 'select state from pg_stat_replication')).out.trim() === 'streaming', () => logsOf([db, replica]));
      await poll('the replica has the product', deadline, async () => (await psql(replica, "select count(*) from products where name = 'Scaled Studio'")).out.trim() === '1', () => logsOf([db, replica]));
      // Each instance reports it usable (within READ_REPLICA_MAX_LAG_MS) and reads from it: the session's
      // reads go to the primary for READ_YOUR_WRITES_MS after its last write, then to the replica.
      for (const app of [app1, app2]) {
        let metrics = '';
        const dbMetrics = async () => `${metrics.split('\n').filter((line) => line.startsWith('license_manager_db_')).join('\n')}\n${await logsOf([app])}`;
        await poll(
          `${app} reports the replica usable`,
          deadline,
          async () => {
            metrics = (await getInside(app, '/metrics')).body;
            return metricValue(metrics, 'license_manager_db_replica_usable', { replica: 'replica:5432/licenses' }) === 1;
          },
          dbMetrics,
        );
        expect(metrics).toMatch(/^license_manager_db_replica_lag_seconds\{replica="replica:5432\/licenses"\} /m);
        await poll(
          `${app} reads from the replica`,
          deadline,
          async () => {
            expect((await getInside(app, '/api/products?filter=Scaled', cookie)).status).toBe(200);
            metrics = (await getInside(app, '/metrics')).body;
            return metricValue(metrics, 'license_manager_db_reads_total', { database: 'replica:5432/licenses' }) > 0;
          },
          dbMetrics,
        );
      }
    },
  );
});
