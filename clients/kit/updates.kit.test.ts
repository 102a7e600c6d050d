/**
 * Updates for entitled licenses (DESIGN.md section 6i), the same in every client: the harness's
 * `updates` asks `POST /api/client/v1/updates` with the machine's license and, with `--out`, downloads
 * the release's file through its signed link, keeping it only once size, SHA-256 and the server's
 * signature over `artifact/` + SHA-256 are right. Entitled, not entitled (free updates over), yanked,
 * beta, and a tampered file refused with nothing kept.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientSuite, clientsWithCommands, clientsWithHarness, runHarness, unique, type KitServer } from './support.ts';

/** The clients whose harness usage names the `updates` command. */
const CLIENTS = clientsWithCommands('updates');

interface UpdatesLine {
  latest: string | null;
  newer: string | null;
  reason: string | null;
  file: string | null;
  error: string | null;
}

/** Runs `clients/<client>/harness updates …`; its exit code, last JSON line and stderr. */
const updates = (client: string, args: string[]) => runHarness<UpdatesLine>(client, ['updates', ...args]);

/** A tus upload of `bytes` (one PATCH) as the Releases page's uploader makes it, as the administrator; the upload's id. */
async function upload(server: KitServer, bytes: Buffer): Promise<string> {
  const cookie = await server.adminCookie();
  const tus = { 'tus-resumable': '1.0.0', cookie };
  const created = await fetch(`${server.url}/api/uploads`, { method: 'POST', headers: { ...tus, 'upload-length': String(bytes.length) } });
  expect(created.status, await created.text()).toBe(201);
  const location = new URL(created.headers.get('location')!, server.url).toString();
  const patched = await fetch(location, { method: 'PATCH', headers: { ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, body: bytes });
  expect(patched.status, await patched.text()).toBe(204);
  return location.split('/').pop()!;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

it('every client with a harness checks for updates', () => {
  expect(CLIENTS).toEqual(clientsWithHarness());
  if (process.env.CI === 'true') expect(CLIENTS).toEqual(['c', 'java', 'node', 'python']);
});

describe.runIf(CLIENTS.length > 0).each(CLIENTS)('client %s: updates for entitled licenses', (client) => {
  const suite = clientSuite(client);
  const { server, work } = suite;
  const machines = { entitled: unique('updates-entitled'), ended: unique('updates-ended'), beta: unique('updates-beta') };
  const files = { current: randomBytes(3000), next: randomBytes(4000) };
  const run = (machine: string, more: string[] = []) =>
    updates(client, ['--server', server.url, '--product', suite.catalogue.product.name, '--version', '2.0.0', '--machine', machine, '--keys', suite.keys, '--platform', 'linux', '--arch', 'x86_64', ...more]);
  const outDir = () => {
    const dir = path.join(work, unique('out'));
    fs.mkdirSync(dir);
    return dir;
  };

  beforeAll(async () => {
    const { product, indefinite } = suite.catalogue;
    const betaPolicy = await server.api<{ id: number }>('POST', '/api/license-policies', { name: unique('Kit beta'), type: 'PERPETUAL', betaUpdates: true, licenseMaxValidDays: 10, refetchIntervalSeconds: 3600, refetchBeforeExpirySeconds: 86400, maxDifferentMachinesCount: 100, maxDifferentMachinesIntervalHours: 24 });
    const inAMonth = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const activate = async (machineId: string, tan: Record<string, unknown>) => {
      const { items } = await server.api<{ items: { code: string }[] }>('POST', '/api/tans', { productId: product.id, licenseCount: 1, ...tan });
      await server.api('POST', '/api/licenses/activate', { tan: items[0]!.code, machineId });
    };
    // Free updates for a month; over (only what was out when the license began); a month with betas.
    await activate(machines.entitled, { licensePolicyId: indefinite.id, freeUpdatesUntil: inAMonth });
    await activate(machines.ended, { licensePolicyId: indefinite.id, freeUpdatesUntil: yesterday });
    await activate(machines.beta, { licensePolicyId: betaPolicy.id, freeUpdatesUntil: inAMonth });
    // Every release below comes out after the licenses began.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const publish = async (version: string, extra: Record<string, unknown> = {}, file?: { bytes: Buffer; platform: string; arch: string; filename: string }) => {
      const release = await server.api<{ id: number }>('POST', `/api/products/${product.id}/releases`, { version, releasedAt: new Date().toISOString(), ...extra });
      if (file) await server.api('POST', `/api/releases/${release.id}/artifacts`, { uploadId: await upload(server, file.bytes), platform: file.platform, arch: file.arch, filename: file.filename });
      return release.id;
    };
    await publish('2.0.1', {}, { bytes: files.current, platform: 'linux', arch: 'x86_64', filename: 'studio-2.0.1.tar.gz' });
    await publish('2.1.0', {}, { bytes: files.next, platform: 'any', arch: 'any', filename: 'studio-2.1.0.zip' });
    const yanked = await publish('2.2.0', {}, { bytes: randomBytes(100), platform: 'linux', arch: 'x86_64', filename: 'studio-2.2.0.tar.gz' });
    await server.api('PUT', `/api/releases/${yanked}`, { yanked: true });
    await publish('2.3.0-beta.1', { channel: 'beta' }, { bytes: randomBytes(200), platform: 'linux', arch: 'x86_64', filename: 'studio-2.3.0-beta.1.tar.gz' });
  });

  it('an entitled machine finds the newest release it may have (not the yanked one), downloads and verifies it', async () => {
    const out = outDir();
    const { exitCode, line, stderr } = await run(machines.entitled, ['--out', out]);
    expect({ exitCode, line, stderr }).toMatchObject({ exitCode: 0, line: { latest: '2.1.0', newer: null, reason: null, error: null } });
    expect(path.basename(line.file!)).toBe('studio-2.1.0.zip');
    expect(sha256(fs.readFileSync(line.file!))).toBe(sha256(files.next));
  });

  it('a machine whose free updates are over gets nothing newer, and hears why', async () => {
    const { exitCode, line } = await run(machines.ended);
    expect({ exitCode, line }).toMatchObject({ exitCode: 0, line: { latest: null, newer: '2.1.0', reason: 'free-updates-ended', file: null, error: null } });
  });

  it('a beta only where the policy allows betas, and only on the beta channel', async () => {
    expect((await run(machines.beta)).line).toMatchObject({ latest: '2.1.0', newer: null });
    expect((await run(machines.beta, ['--channel', 'beta'])).line).toMatchObject({ latest: '2.3.0-beta.1', error: null });
    expect((await run(machines.entitled, ['--channel', 'beta'])).line).toMatchObject({ latest: '2.1.0', newer: '2.3.0-beta.1', reason: 'beta-not-allowed' });
  });

  it('refuses a machine without a license, and a file changed on the server, keeping nothing', async () => {
    expect(await run(unique('unlicensed'))).toMatchObject({ exitCode: 1, line: { latest: null, error: 'ERR_NO_LICENSE' } });
    // One byte of the stored file changed behind the server's back: its signed checksum no longer fits.
    const stored = findStored(server, files.next);
    const original = fs.readFileSync(stored);
    const changed = Buffer.from(original);
    changed[100] ^= 1;
    fs.writeFileSync(stored, changed);
    try {
      const out = outDir();
      const { exitCode, line } = await run(machines.entitled, ['--out', out]);
      expect({ exitCode, line }).toMatchObject({ exitCode: 1, line: { latest: '2.1.0', file: null, error: 'CHECKSUM_MISMATCH' } });
      expect(fs.readdirSync(out)).toEqual([]);
    } finally {
      fs.writeFileSync(stored, original);
    }
  });
});

/** The server's stored copy of an artifact (DATA_DIR/artifacts/<storage key>), found by its bytes. */
function findStored(server: KitServer, bytes: Buffer): string {
  const dir = path.join(server.dataDir, 'artifacts');
  const wanted = sha256(bytes);
  const found = fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .find((file) => fs.statSync(file).isFile() && fs.statSync(file).size === bytes.length && sha256(fs.readFileSync(file)) === wanted && !file.includes(`${path.sep}uploads${path.sep}`));
  if (!found) throw new Error('the stored artifact was not found');
  return found;
}
