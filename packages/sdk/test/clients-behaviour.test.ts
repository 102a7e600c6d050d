/** The behaviour every client shares (DESIGN.md section 6d), as the Node SDK implements it. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LicenseClient, memoryStore } from '../src/index.ts';
import { machineFingerprint, operatingSystemMachineId } from '../src/node.ts';
import { testKey } from './signing.ts';

const key = testKey();
const NOW = new Date('2026-03-01T08:00:00Z');

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
