/**
 * The container image (DESIGN.md section 6e, README "Running in a container"), built and run with
 * Debian's podman as CI runs it: from a base image made here (debootstrap, imported as
 * debian:bookworm-slim, since no image registry is reachable), the data in a volume, logged in,
 * restarted with its data, its health check, and a SIGTERM stop; then compose.yaml brought up with
 * Debian's podman-compose (1.0.3), the database a stand-in image (docker/postgres) since the official
 * one cannot be pulled. Outside CI it is skipped with a notice where podman (or podman-compose) is missing.
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

(present || IN_CI ? describe : describe.skip)('the container image', () => {
  const suffix = randomBytes(4).toString('hex');
  const image = `localhost/license-manager:test-${suffix}`;
  const name = `lm-test-${suffix}`;
  const volume = `lm-test-data-${suffix}`;
  const admin = { email: 'admin@container.test', password: `container-${suffix}` };
  const standIn = `localhost/lm-postgres-standin:test-${suffix}`;
  const project = `lm-compose-${suffix}`;
  let composeEnv: NodeJS.ProcessEnv | undefined;

  afterAll(async () => {
    if (!present) return;
    if (composeEnv) await run('podman-compose', ['-p', project, 'down', '-v'], { allowFailure: true, env: composeEnv });
    await run('podman', ['rmi', '--force', standIn], { allowFailure: true });
    await run('podman', ['rm', '--force', name], { allowFailure: true });
    await run('podman', ['volume', 'rm', '--force', volume], { allowFailure: true });
    await run('podman', ['rmi', '--force', image], { allowFailure: true });
    fs.rmSync(confDir, { recursive: true, force: true });
  });

  it('builds, runs as a non-root user with its data in a volume, keeps it across a restart, and stops on SIGTERM', { timeout: 60 * 60_000 }, async () => {
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
    const policies = (await (await fetch(`${url}/api/license-policies?limit=100`, { headers: { cookie } })).json()) as { items: { id: number; name: string }[] };
    const policy = policies.items.find((item) => item.name === 'SINGLE_HOST_INDEFINITE')!;
    const created = await fetch(`${url}/api/products`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, origin: url },
      body: JSON.stringify({ name: 'Container Studio', version: '1.0', active: true, defaultLicensePolicyId: policy.id }),
    });
    expect(created.status, await created.clone().text()).toBe(201);

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
    await podman('build', '--pull=never', '--format', 'docker', '--network', 'host', '--file', 'docker/postgres/Dockerfile', '--tag', standIn, '.');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    composeEnv = {
      ...env,
      LICENSE_MANAGER_IMAGE: image,
      POSTGRES_IMAGE: standIn,
      LICENSE_MANAGER_PORT: String(port),
      SECRET_KEY: `compose-secret-${suffix}-long-enough`,
      POSTGRES_PASSWORD: `db-${suffix}`,
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      // Unset optional variables stay unset in the container (podman-compose 1.0 left `${SMTP_URL:-}` as text).
      SMTP_URL: undefined,
    };
    const up = await run('podman-compose', ['-p', project, 'up', '-d'], { env: composeEnv });
    expect(up.code).toBe(0);
    await healthy(url, `${project}_app_1`, Date.now() + 10 * 60_000);
    await login(url, admin.email, admin.password);
    const environment = (await podman('inspect', '--format', '{{range .Config.Env}}{{println .}}{{end}}', `${project}_app_1`)).out;
    expect(environment).toContain('DATABASE_URL=postgres://');
    expect(environment).not.toMatch(/^SMTP_URL=/m);
  });
});
