import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import { checkForUpdate, downloadUpdate, type PublicKey } from '@license-manager/sdk';
import type { App } from '../src/app.ts';
import { pruneAbandonedUploads } from '../src/modules/releases/uploads.ts';
import { client, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { activate, createTans, insertPolicy, insertProduct, isoDaysFromToday, machine } from './licensing-test-data.ts';

const DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-releases-'));
const MAX = 64 * 1024;
const TUS = { 'tus-resumable': '1.0.0' };

/** A finished tus upload of `bytes`, in two PATCHes (the second after asking for the offset, as a resume does). */
async function upload(app: App, cookie: string, bytes: Buffer): Promise<string> {
  const created = await app.inject({ method: 'POST', url: '/api/uploads', headers: { ...TUS, cookie, 'upload-length': String(bytes.length) } });
  expect(created.statusCode, created.body).toBe(201);
  const location = String(created.headers.location);
  const half = Math.floor(bytes.length / 2);
  const patch = (offset: number, part: Buffer) =>
    app.inject({ method: 'PATCH', url: location, headers: { ...TUS, cookie, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, payload: part });
  expect((await patch(0, bytes.subarray(0, half))).statusCode).toBe(204);
  const head = await app.inject({ method: 'HEAD', url: location, headers: { ...TUS, cookie } });
  expect(head.headers['upload-offset']).toBe(String(half));
  const rest = await patch(half, bytes.subarray(half));
  expect(rest.statusCode, rest.body).toBe(204);
  return location.split('/').pop()!;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const pathOf = (url: string) => { const parsed = new URL(url); return parsed.pathname + parsed.search; };

describeBothDatabases(
  'releases',
  (t) => {
    let admin: Awaited<ReturnType<typeof loggedIn>>;
    let customer: Awaited<ReturnType<typeof loggedIn>>;
    let stranger: Awaited<ReturnType<typeof loggedIn>>;
    let product: { id: number; name: string; version: string };
    let machineId: string;
    let port: number;
    const file = randomBytes(5000);

    beforeAll(async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      port = (t.app.server.address() as AddressInfo).port;
      admin = await loggedIn(t.app, 'ADMIN');
      customer = await loggedIn(t.app, 'USER');
      stranger = await loggedIn(t.app, 'USER');
      product = await insertProduct(t.app, { version: '1' });
      const policyId = await insertPolicy(t.app, { type: 'PERPETUAL' });
      const [tan] = await createTans(client(t.app, admin.cookie), { productId: product.id, licensePolicyId: policyId, freeUpdatesUntil: isoDaysFromToday(-10) });
      machineId = machine();
      expect((await activate(client(t.app, customer.cookie), tan.code, machineId)).statusCode).toBe(201);
      // Back-date the license: it began before the releases below.
      await t.app.ctx.db.updateTable('licenses').set({ created_at: new Date(Date.now() - 400 * 86_400_000).toISOString() }).where('owner_id', '=', customer.id).execute();
    });

    const publish = (body: Record<string, unknown>, cookie = admin.cookie) => client(t.app, cookie).post(`/api/products/${product.id}/releases`, { body });
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

    it('publishes releases with artifacts; entitlement follows the free-updates period, betas, yanks', async () => {
      const old = await publish({ version: '1.0.0', releasedAt: daysAgo(100), notes: { en: '# First' } });
      expect(old.statusCode, old.body).toBe(201);
      const uploadId = await upload(t.app, admin.cookie, file);
      const added = await client(t.app, admin.cookie).post(`/api/releases/${old.json().id}/artifacts`, { body: { uploadId, platform: 'windows', arch: 'x86_64', filename: 'setup-1.0.0.exe' } });
      expect(added.statusCode, added.body).toBe(201);
      const artifact = added.json().artifacts[0];
      expect(artifact).toMatchObject({ size: file.length, sha256: sha256(file), filename: 'setup-1.0.0.exe' });
      const keys = (await client(t.app).get('/api/client/v1/keys')).json().keys as { kid: string; publicKeyPem: string }[];
      const key = createPublicKey(keys.find((candidate) => candidate.kid === artifact.kid)!.publicKeyPem);
      expect(verify(null, Buffer.from(`artifact/${artifact.sha256}`), key, Buffer.from(artifact.sig, 'base64'))).toBe(true);
      // The same upload cannot be used twice.
      const again = await client(t.app, admin.cookie).post(`/api/releases/${old.json().id}/artifacts`, { body: { uploadId, platform: 'linux', arch: 'x86_64', filename: 'x.tgz' } });
      expectError(again, 400, 'ERR_VALIDATION');

      const newer = await publish({ version: '1.1.0', releasedAt: daysAgo(1) });
      const newerUpload = await upload(t.app, admin.cookie, randomBytes(100));
      await client(t.app, admin.cookie).post(`/api/releases/${newer.json().id}/artifacts`, { body: { uploadId: newerUpload, platform: 'any', arch: 'any', filename: 'app-1.1.0.zip' } });
      await publish({ version: '1.0.1-beta.1', channel: 'beta', releasedAt: daysAgo(50) });
      const yanked = await publish({ version: '1.0.2', releasedAt: daysAgo(40) });
      expect((await client(t.app, admin.cookie).put(`/api/releases/${yanked.json().id}`, { body: { yanked: true } })).json().yanked).toBe(true);

      const list = await client(t.app, admin.cookie).get(`/api/products/${product.id}/releases`);
      expect(list.json().items.map((release: { version: string }) => release.version)).toEqual(['1.1.0', '1.0.2', '1.0.1-beta.1', '1.0.0']);

      // The customer's Downloads: 1.0.0 only; 1.1.0 is newer and out of the free-updates period.
      const downloads = (await client(t.app, customer.cookie).get('/api/downloads')).json().items;
      expect(downloads).toHaveLength(1);
      expect(downloads[0].releases.map((release: { version: string }) => release.version)).toEqual(['1.0.0']);
      expect(downloads[0].newer).toMatchObject({ version: '1.1.0', reason: 'free-updates-ended' });

      // Signed-in download: Range, HEAD, ETag; not entitled and strangers refused.
      const url = `/api/releases/${old.json().id}/artifacts/${artifact.id}/download`;
      const whole = await client(t.app, customer.cookie).get(url);
      expect(whole.statusCode).toBe(200);
      expect(whole.rawPayload.equals(file)).toBe(true);
      expect(whole.headers.etag).toBe(`"${sha256(file)}"`);
      const part = await client(t.app, customer.cookie).get(url, { headers: { range: 'bytes=1000-' } });
      expect(part.statusCode).toBe(206);
      expect(part.headers['content-range']).toBe(`bytes 1000-4999/${file.length}`);
      expect(part.rawPayload.equals(file.subarray(1000))).toBe(true);
      const head = await t.app.inject({ method: 'HEAD', url, headers: { cookie: customer.cookie } });
      expect(head.statusCode).toBe(200);
      expect(head.headers['content-length']).toBe(String(file.length));
      expect(head.rawPayload.length).toBe(0);
      expect((await client(t.app, customer.cookie).get(url, { headers: { 'if-none-match': `"${sha256(file)}"` } })).statusCode).toBe(304);
      expect((await client(t.app, customer.cookie).get(url, { headers: { range: 'bytes=9000-' } })).statusCode).toBe(416);
      const described = await client(t.app, customer.cookie).get(url, { headers: { accept: 'application/json' } });
      expect(described.json()).toMatchObject({ id: artifact.id, size: file.length, sha256: sha256(file) });
      const newerArtifact = (await client(t.app, admin.cookie).get(`/api/releases/${newer.json().id}`)).json().artifacts[0];
      expectError(await client(t.app, customer.cookie).get(`/api/releases/${newer.json().id}/artifacts/${newerArtifact.id}/download`), 403, 'ERR_NOT_ENTITLED');
      expectError(await client(t.app, stranger.cookie).get(url), 404, 'ERR_NOT_FOUND');
      expectError(await client(t.app).get(url), 401, 'ERR_UNAUTHENTICATED');

      // Counted once per download started at the first byte (the whole one, not the range).
      expect((await client(t.app, admin.cookie).get(`/api/releases/${old.json().id}`)).json().downloads).toBe(1);
    });

    it('answers the desktop client: a signed answer naming the entitled release with a signed link, and the newer one with why', async () => {
      const answer = await client(t.app).post('/api/client/v1/updates', { body: { machineId, product: product.name, version: '0.9.0', platform: 'windows', arch: 'x86_64' } });
      expect(answer.statusCode, answer.body).toBe(200);
      const { enc, sig, kid } = answer.json();
      const keys = (await client(t.app).get('/api/client/v1/keys')).json().keys as { kid: string; publicKeyPem: string }[];
      expect(verify(null, Buffer.from(`updates/${enc}`), createPublicKey(keys.find((key) => key.kid === kid)!.publicKeyPem), Buffer.from(sig, 'base64'))).toBe(true);
      const payload = JSON.parse(Buffer.from(enc, 'base64').toString('utf8'));
      expect(payload.latest.version).toBe('1.0.0');
      expect(payload.newer).toMatchObject({ version: '1.1.0', reason: 'free-updates-ended' });
      const [artifact] = payload.latest.artifacts;
      const download = await client(t.app).get(pathOf(artifact.url));
      expect(download.statusCode).toBe(200);
      expect(sha256(download.rawPayload)).toBe(artifact.sha256);

      // A tampered or expired link is refused.
      const tampered = pathOf(artifact.url).replace(/expires=(\d+)/, (_all, value: string) => `expires=${Number(value) + 1}`);
      expectError(await client(t.app).get(tampered), 403, 'ERR_INVALID_SIGNATURE');
      expectError(await client(t.app).get(pathOf(artifact.url).replace(/expires=\d+/, 'expires=1')), 403, 'ERR_INVALID_SIGNATURE');
      // Up to date: nothing newer that is the machine's.
      const current = JSON.parse(Buffer.from((await client(t.app).post('/api/client/v1/updates', { body: { machineId, product: product.name, version: '1.0.0', platform: 'windows', arch: 'x86_64' } })).json().enc, 'base64').toString());
      expect(current.latest).toBeNull();
      expectError(await client(t.app).post('/api/client/v1/updates', { body: { machineId: machine(), product: product.name, version: '1.0.0', platform: 'windows', arch: 'x86_64' } }), 404, 'ERR_NO_LICENSE');
    });

    it('offers betas only where the policy allows them', async () => {
      const betas = async () => (await client(t.app, customer.cookie).get('/api/downloads')).json().items[0].releases.map((release: { version: string }) => release.version);
      expect(await betas()).not.toContain('1.0.1-beta.1');
      const license = await t.app.ctx.db.selectFrom('licenses').select('license_policy_id').where('owner_id', '=', customer.id).executeTakeFirstOrThrow();
      await t.app.ctx.db.updateTable('license_policies').set({ beta_updates: true }).where('id', '=', license.license_policy_id).execute();
      expect(await betas()).toEqual(['1.0.1-beta.1', '1.0.0']);
      await t.app.ctx.db.updateTable('license_policies').set({ beta_updates: false }).where('id', '=', license.license_policy_id).execute();
    });

    it('lets the SDK find, download and verify the update, and refuse a tampered one', async () => {
      const serverUrl = `http://127.0.0.1:${port}`;
      // The signed links name PUBLIC_URL (localhost:3000): the test's fetch takes them to the listening app.
      const local: typeof fetch = (input, init) => fetch(String(input).replace('http://localhost:3000', serverUrl), init);
      const publicKeys = ((await (await fetch(`${serverUrl}/api/client/v1/keys`)).json()) as { keys: PublicKey[] }).keys;
      const options = { serverUrl, product: product.name, version: '0.9.0', machineId, platform: 'windows' as const, arch: 'x86_64' as const, publicKeys, fetch: local };
      const update = await checkForUpdate(options);
      expect(update.latest?.version).toBe('1.0.0');
      expect(update.newer).toMatchObject({ version: '1.1.0', reason: 'free-updates-ended' });
      const [artifact] = update.latest!.artifacts;
      expect(Buffer.from(await downloadUpdate(artifact, publicKeys, { fetch: local })).equals(file)).toBe(true);
      await expect(downloadUpdate({ ...artifact, sha256: '0'.repeat(64) }, publicKeys, { fetch: local })).rejects.toMatchObject({ code: 'BAD_SIGNATURE' });
      const tampered: typeof fetch = async (input, init) => {
        const bytes = Buffer.from(await (await local(input, init)).arrayBuffer());
        bytes[10] ^= 1;
        return new Response(bytes);
      };
      await expect(downloadUpdate(artifact, publicKeys, { fetch: tampered })).rejects.toMatchObject({ code: 'CHECKSUM_MISMATCH' });
      await expect(checkForUpdate({ ...options, machineId: machine() })).rejects.toMatchObject({ code: 'ERR_NO_LICENSE' });
    });

    it('refuses bad input with clear errors and stores nothing', async () => {
      expectError(await publish({ version: '1.2', releasedAt: daysAgo(0) }), 400, 'ERR_VALIDATION');
      const duplicate = expectError(await publish({ version: '1.0.0', releasedAt: daysAgo(0) }), 409, 'ERR_CONFLICT');
      expect(duplicate.details?.[0]).toMatchObject({ path: 'version', code: 'versionExists' });
      const release = (await publish({ version: '2.0.0', releasedAt: daysAgo(0) })).json();
      for (const filename of ['../etc/passwd', '..', 'a/b.exe', '.hidden', 'a\\b']) {
        expectError(await client(t.app, admin.cookie).post(`/api/releases/${release.id}/artifacts`, { body: { uploadId: 'abc', platform: 'linux', arch: 'arm64', filename } }), 400, 'ERR_VALIDATION');
      }
      expectError(await client(t.app, admin.cookie).post(`/api/releases/${release.id}/artifacts`, { body: { uploadId: '../../x', platform: 'linux', arch: 'arm64', filename: 'a.tgz' } }), 400, 'ERR_VALIDATION');
      expectError(await client(t.app, admin.cookie).post(`/api/releases/${release.id}/artifacts`, { body: { uploadId: 'nosuchupload', platform: 'linux', arch: 'arm64', filename: 'a.tgz' } }), 400, 'ERR_VALIDATION');
      const tooLarge = await t.app.inject({ method: 'POST', url: '/api/uploads', headers: { ...TUS, cookie: admin.cookie, 'upload-length': String(MAX + 1) } });
      expect(tooLarge.statusCode).toBe(413);
      expect(fs.readdirSync(path.join(DATA_DIR, 'artifacts', 'uploads')).filter((name) => !name.endsWith('.json')).length).toBeGreaterThanOrEqual(0);
    });

    it('refuses every call to roles without the right', async () => {
      const release = (await publish({ version: '3.0.0', releasedAt: daysAgo(0) })).json();
      for (const role of ['USER', 'DISTRIBUTOR'] as const) {
        const other = await loggedIn(t.app, role);
        const as = client(t.app, other.cookie);
        expectError(await as.post(`/api/products/${product.id}/releases`, { body: { version: '9.0.0', releasedAt: daysAgo(0) } }), 403, 'ERR_FORBIDDEN');
        expectError(await as.get(`/api/products/${product.id}/releases`), 403, 'ERR_FORBIDDEN');
        expectError(await as.put(`/api/releases/${release.id}`, { body: { yanked: true } }), 403, 'ERR_FORBIDDEN');
        expectError(await as.delete(`/api/releases/${release.id}`), 403, 'ERR_FORBIDDEN');
        expectError(await as.post(`/api/releases/${release.id}/artifacts`, { body: { uploadId: 'x', platform: 'any', arch: 'any', filename: 'a' } }), 403, 'ERR_FORBIDDEN');
        const tus = await t.app.inject({ method: 'POST', url: '/api/uploads', headers: { ...TUS, cookie: other.cookie, 'upload-length': '10' } });
        expect(tus.statusCode).toBe(403);
      }
      expectError(await client(t.app).get('/api/downloads'), 401, 'ERR_UNAUTHENTICATED');
    });

    it('takes one of ten parallel publications of the same version', async () => {
      const answers = await Promise.all(Array.from({ length: 10 }, () => publish({ version: '4.0.0', releasedAt: daysAgo(0) })));
      expect(answers.filter((answer) => answer.statusCode === 201)).toHaveLength(1);
      for (const answer of answers.filter((candidate) => candidate.statusCode !== 201)) expectError(answer, 409, 'ERR_CONFLICT');
    });

    it('resumes an upload after the connection is cut in the middle, the checksum still right', async () => {
      const bytes = randomBytes(40_000);
      const created = await t.app.inject({ method: 'POST', url: '/api/uploads', headers: { ...TUS, cookie: admin.cookie, 'upload-length': String(bytes.length) } });
      const location = String(created.headers.location);
      // Send the first 25 000 bytes of a PATCH announcing all, then cut the connection.
      await new Promise<void>((resolve) => {
        const request = http.request({ port, host: '127.0.0.1', method: 'PATCH', path: location, headers: { ...TUS, cookie: admin.cookie, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream', 'content-length': String(bytes.length) } });
        request.on('error', () => resolve());
        request.write(bytes.subarray(0, 25_000), () => setTimeout(() => { request.destroy(); resolve(); }, 200));
      });
      let offset = 0;
      for (let attempt = 0; attempt < 50 && offset === 0; attempt++) {
        offset = Number((await t.app.inject({ method: 'HEAD', url: location, headers: { ...TUS, cookie: admin.cookie } })).headers['upload-offset']);
        if (offset === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(offset).toBeGreaterThan(0);
      expect(offset).toBeLessThan(bytes.length);
      const rest = await t.app.inject({ method: 'PATCH', url: location, headers: { ...TUS, cookie: admin.cookie, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, payload: bytes.subarray(offset) });
      expect(rest.statusCode, rest.body).toBe(204);
      const release = (await publish({ version: '5.0.0', releasedAt: daysAgo(0) })).json();
      const added = await client(t.app, admin.cookie).post(`/api/releases/${release.id}/artifacts`, { body: { uploadId: location.split('/').pop(), platform: 'linux', arch: 'x86_64', filename: 'big.tar.gz' } });
      expect(added.statusCode, added.body).toBe(201);
      expect(added.json().artifacts[0].sha256).toBe(sha256(bytes));
    });

    it('removes uploads abandoned for a day (cut, or finished and never saved), and keeps those under way', async () => {
      const begin = async (bytes: Buffer, sent: number) => {
        const created = await t.app.inject({ method: 'POST', url: '/api/uploads', headers: { ...TUS, cookie: admin.cookie, 'upload-length': String(bytes.length) } });
        const location = String(created.headers.location);
        const patched = await t.app.inject({ method: 'PATCH', url: location, headers: { ...TUS, cookie: admin.cookie, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, payload: bytes.subarray(0, sent) });
        expect(patched.statusCode).toBe(204);
        return location;
      };
      const cut = await begin(randomBytes(1000), 400);
      const unsaved = await begin(randomBytes(500), 500);
      const underWay = await begin(randomBytes(1000), 300);
      const uploads = path.join(DATA_DIR, 'artifacts', 'uploads');
      const dayAndAHourAgo = new Date(Date.now() - 25 * 3600_000);
      for (const location of [cut, unsaved]) {
        const id = location.split('/').pop()!;
        for (const file of [id, `${id}.json`]) fs.utimesSync(path.join(uploads, file), dayAndAHourAgo, dayAndAHourAgo);
      }
      expect(await pruneAbandonedUploads(t.app.ctx)).toBe(2);
      const offsetOf = async (location: string) => (await t.app.inject({ method: 'HEAD', url: location, headers: { ...TUS, cookie: admin.cookie } })).statusCode;
      expect([await offsetOf(cut), await offsetOf(unsaved), await offsetOf(underWay)]).toEqual([404, 404, 200]);
      expect(fs.readdirSync(uploads).filter((name) => name.startsWith(cut.split('/').pop()!))).toEqual([]);
    });
  },
  { env: { DATA_DIR, ARTIFACT_MAX_SIZE: String(MAX) } },
);
