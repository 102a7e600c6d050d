/** The behaviour every client shares (DESIGN.md section 6d), as the Node SDK implements it. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LicenseClient, licenseFileTag, memoryStore, parseLicenseFile } from '../src/index.ts';
import { machineFingerprint, operatingSystemMachineId } from '../src/node.ts';
import { testKey } from './signing.ts';

const key = testKey();
const NOW = new Date('2026-03-01T08:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function clientWith(fetch: typeof globalThis.fetch, store = memoryStore(), extra: Partial<ConstructorParameters<typeof LicenseClient>[0]> = {}) {
  return new LicenseClient({ serverUrl: 'https://licenses.example.com', product: 'Studio', machineId: 'MACHINE-1', publicKeys: [key.publicKey], store, fetch, now: () => NOW, ...extra });
}

describe('status reasons, borrowing and stored files', () => {
  it('reports SUSPENDED for a suspended TAN and forgets the stored file', async () => {
    const store = memoryStore([{ name: 'license.json', text: key.file({ issuedAt: new Date(NOW.getTime() - 86_400_000 * 2).toISOString() }) }]);
    const client = clientWith(async () => Response.json({ error: 'ERR_LICENSE_SUSPENDED', message: 'The license is suspended' }, { status: 403 }), store);
    expect(await client.check()).toMatchObject({ valid: false, reason: 'SUSPENDED' });
    expect(await store.list()).toEqual([]);
  });

  it('sends borrowDays with a fetch, never with a release', async () => {
    const bodies: { method: string; body: Record<string, unknown> }[] = [];
    const client = clientWith(
      async (_url, init) => {
        bodies.push({ method: init!.method!, body: JSON.parse(String(init!.body)) as Record<string, unknown> });
        return init!.method === 'DELETE' ? new Response(null, { status: 204 }) : new Response(key.file({ issuedAt: NOW.toISOString(), borrowedUntil: '2026-03-08T08:00:00.000Z' } as Parameters<typeof key.file>[0]));
      },
      memoryStore(),
      { borrowDays: 7 },
    );
    expect(await client.check()).toMatchObject({ valid: true, license: { borrowedUntil: '2026-03-08T08:00:00.000Z' } });
    await client.release();
    expect(bodies).toEqual([
      { method: 'POST', body: { machineId: 'MACHINE-1', product: 'Studio', borrowDays: 7 } },
      { method: 'DELETE', body: { machineId: 'MACHINE-1', product: 'Studio' } },
    ]);
  });

  it('borrows at once when the held file says no borrowedUntil: borrowDays, no If-None-Match', async () => {
    const requests: { body: Record<string, unknown>; ifNoneMatch: string | null }[] = [];
    const until = new Date(NOW.getTime() + 3 * DAY).toISOString();
    const fetch: typeof globalThis.fetch = async (_url, init) => {
      requests.push({ body: JSON.parse(String(init!.body)) as Record<string, unknown>, ifNoneMatch: new Headers(init!.headers).get('if-none-match') });
      return new Response(key.file({ issuedAt: NOW.toISOString(), expiresAt: until, borrowedUntil: until, refetchBeforeExpirySeconds: 3600 } as Parameters<typeof key.file>[0]));
    };
    // Held since an hour ago, refreshed daily (and an hour before it expires): no refresh due.
    const store = memoryStore([{ name: 'license.json', text: key.file({ issuedAt: new Date(NOW.getTime() - HOUR).toISOString(), expiresAt: new Date(NOW.getTime() + DAY).toISOString(), refetchBeforeExpirySeconds: 3600 }) }]);
    expect(await clientWith(fetch, store, { borrowDays: 3 }).check()).toMatchObject({ valid: true, source: 'server', license: { borrowedUntil: until } });
    expect(requests).toEqual([{ body: { machineId: 'MACHINE-1', product: 'Studio', borrowDays: 3 }, ifNoneMatch: null }]);
    // Borrowed until then: nothing pending, no refresh due, no request.
    expect(await clientWith(fetch, store, { borrowDays: 3 }).check()).toMatchObject({ valid: true, source: 'store' });
    expect(requests).toHaveLength(1);
  });

  it('a refresh of a held borrowed file sends borrowDays and If-None-Match, and keeps the renewed borrow', async () => {
    const requests: { body: Record<string, unknown>; ifNoneMatch: string | null }[] = [];
    const issuedAt = new Date(NOW.getTime() - 2 * HOUR).toISOString();
    const heldUntil = new Date(NOW.getTime() - 2 * HOUR + 3 * DAY).toISOString();
    // Borrowed two hours ago for 3 days, refreshed hourly: the refresh is due.
    const held = key.file({ issuedAt, expiresAt: heldUntil, borrowedUntil: heldUntil, refetchIntervalSeconds: 3600, refetchBeforeExpirySeconds: 3600 } as Parameters<typeof key.file>[0]);
    const until = new Date(NOW.getTime() + 3 * DAY).toISOString();
    const renewed = key.file({ issuedAt: NOW.toISOString(), expiresAt: until, borrowedUntil: until, refetchIntervalSeconds: 3600, refetchBeforeExpirySeconds: 3600 } as Parameters<typeof key.file>[0]);
    const fetch: typeof globalThis.fetch = async (_url, init) => {
      requests.push({ body: JSON.parse(String(init!.body)) as Record<string, unknown>, ifNoneMatch: new Headers(init!.headers).get('if-none-match') });
      return new Response(renewed);
    };
    const store = memoryStore([{ name: 'license.json', text: held }]);
    expect(await clientWith(fetch, store, { borrowDays: 3 }).check()).toMatchObject({ valid: true, source: 'server', license: { borrowedUntil: until } });
    const tag = await licenseFileTag(parseLicenseFile(held), { issuedAt });
    expect(requests).toEqual([{ body: { machineId: 'MACHINE-1', product: 'Studio', borrowDays: 3 }, ifNoneMatch: tag }]);
    expect(await store.list()).toEqual([{ name: 'license.json', text: renewed }]);
  });

  it('reports BORROW_NOT_ALLOWED for more days than allowed and keeps the held file', async () => {
    const held = key.file({ issuedAt: new Date(NOW.getTime() - HOUR).toISOString(), expiresAt: new Date(NOW.getTime() + DAY).toISOString(), refetchBeforeExpirySeconds: 3600 });
    const store = memoryStore([{ name: 'license.json', text: held }]);
    let asked = 0;
    const refuse: typeof globalThis.fetch = async () => {
      asked++;
      return Response.json({ error: 'ERR_BORROW_NOT_ALLOWED', message: 'This license lets a machine borrow a seat for at most 7 days', params: { max: 7 } }, { status: 422 });
    };
    expect(await clientWith(refuse, store, { borrowDays: 30 }).check()).toEqual({ valid: false, reason: 'BORROW_NOT_ALLOWED', message: 'This license lets a machine borrow a seat for at most 7 days' });
    expect(await store.list()).toEqual([{ name: 'license.json', text: held }]);
    // Without borrowDays the held file counts, from the store.
    expect(await clientWith(refuse, store).check()).toMatchObject({ valid: true, source: 'store' });
    expect(asked).toBe(1);
    // Nothing held: the same refusal, not taken for an unreachable server.
    expect(await clientWith(refuse, memoryStore(), { borrowDays: 30 }).check()).toMatchObject({ valid: false, reason: 'BORROW_NOT_ALLOWED' });
  });

  it('keeps a 304 in the store as `<tag> <epoch ms>`: another client on it counts from the confirmation', async () => {
    const held = key.file({ issuedAt: new Date(NOW.getTime() - 2 * HOUR).toISOString(), expiresAt: new Date(NOW.getTime() + 10 * DAY).toISOString(), refetchIntervalSeconds: 3600, refetchBeforeExpirySeconds: 3600 });
    const store = memoryStore([{ name: 'license.json', text: held }]);
    let asked = 0;
    const confirm: typeof globalThis.fetch = async () => {
      asked++;
      return new Response(null, { status: 304 });
    };
    expect(await clientWith(confirm, store).check()).toMatchObject({ valid: true, source: 'server', refreshAt: new Date(NOW.getTime() + HOUR) });
    const tag = await licenseFileTag(parseLicenseFile(held), { issuedAt: new Date(NOW.getTime() - 2 * HOUR).toISOString() });
    expect(await store.readConfirmed!()).toBe(`${tag} ${NOW.getTime()}\n`);
    expect(await clientWith(confirm, store).check()).toMatchObject({ valid: true, source: 'store' });
    expect(asked).toBe(1);
    // A new file forgets the confirmation.
    expect(await clientWith(async () => new Response(key.file({ issuedAt: NOW.toISOString() })), store).refresh()).toMatchObject({ valid: true, source: 'server' });
    expect(await store.readConfirmed!()).toBeNull();
  });

  it('reports INVALID_FILE offline when the only stored file was altered, and heals online', async () => {
    const genuine = key.file({ issuedAt: NOW.toISOString() });
    const file = JSON.parse(genuine) as { enc: string };
    const at = file.enc.length >> 1;
    const altered = genuine.replace(file.enc, file.enc.slice(0, at) + (file.enc[at] === 'A' ? 'B' : 'A') + file.enc.slice(at + 1));
    const store = memoryStore([{ name: 'license.json', text: altered }]);
    let online = false;
    const client = clientWith(async () => {
      if (!online) throw new TypeError('fetch failed');
      return new Response(genuine);
    }, store);
    expect(await client.check()).toMatchObject({ valid: false, reason: 'INVALID_FILE', offline: true });
    online = true;
    expect(await client.check()).toMatchObject({ valid: true, offline: false });
  });
});

describe('machine fingerprint', () => {
  it('hashes the operating system id with the product name, so the raw id never leaves the machine', async () => {
    const raw = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const id = await machineFingerprint('Studio', `${raw}\n`);
    expect(id).toBe(createHash('sha256').update(`Studio:${raw}`).digest('hex').slice(0, 32).toUpperCase());
    expect(id).not.toContain(raw.toUpperCase());
    expect(await machineFingerprint('Other Product', raw)).not.toBe(id);
  });

  it('reads /etc/machine-id on Linux, then the D-Bus copy', async () => {
    const files: Record<string, string> = { '/var/lib/dbus/machine-id': 'dbus-id\n' };
    const read = async (file: string) => {
      if (!(file in files)) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      return files[file]!;
    };
    expect(await operatingSystemMachineId('linux', read)).toBe('dbus-id');
    files['/etc/machine-id'] = 'etc-id\n';
    expect(await operatingSystemMachineId('linux', read)).toBe('etc-id');
    await expect(operatingSystemMachineId('linux', async () => '')).rejects.toThrow(/no machine id/);
  });
});
