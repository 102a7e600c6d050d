import { describe, expect, it } from 'vitest';
import { LicenseClient, memoryStore, type LicenseStatus, type LicenseStore } from '../src/index.ts';
import { testKey } from './signing.ts';

const key = testKey();
const HOUR = 3_600_000;

interface FakeServer {
  calls: { method: string; body: Record<string, unknown> }[];
  answer: (body: Record<string, unknown>) => Response | Promise<Response>;
  fetch: typeof fetch;
}

function fakeServer(): FakeServer {
  const server: FakeServer = {
    calls: [],
    answer: () => Response.json({ error: 'ERR_NO_LICENSE', message: 'No license for this machine and product' }, { status: 404 }),
    fetch: async (url, init) => {
      expect(String(url)).toBe('https://licenses.example.com/api/client/v1/license');
      const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
      server.calls.push({ method: init?.method ?? 'GET', body });
      return server.answer(body);
    },
  };
  return server;
}

function setup(options: { store?: LicenseStore; start?: Date } = {}) {
  const server = fakeServer();
  const clock = { now: options.start ?? new Date('2026-03-01T08:00:00Z') };
  const store = options.store ?? memoryStore();
  const client = new LicenseClient({
    serverUrl: 'https://licenses.example.com/',
    product: 'Studio',
    machineId: 'MACHINE-1',
    publicKeys: [key.publicKey],
    store,
    fetch: server.fetch,
    now: () => clock.now,
  });
  const issue = (extra: Parameters<typeof key.file>[0] = {}) =>
    key.file({ issuedAt: clock.now.toISOString(), expiresAt: new Date(clock.now.getTime() + 10 * 24 * HOUR).toISOString(), refetchIntervalSeconds: 3600, refetchBeforeExpirySeconds: 86_400, ...extra });
  const later = (ms: number) => (clock.now = new Date(clock.now.getTime() + ms));
  return { server, clock, store, client, issue, later };
}

const expectValid = (status: LicenseStatus) => {
  if (!status.valid) throw new Error(`expected a valid license, got ${status.reason}: ${status.message}`);
  return status;
};
const expectInvalid = (status: LicenseStatus, reason: string) => {
  expect(status.valid).toBe(false);
  if (!status.valid) expect(status.reason).toBe(reason);
};

describe('LicenseClient', () => {
  it('fetches, stores, and asks again only when the file says so', async () => {
    const { server, client, issue, later, store } = setup();
    server.answer = () => new Response(issue());
    const first = expectValid(await client.check());
    expect(first.source).toBe('server');
    expect(server.calls).toEqual([{ method: 'POST', body: { machineId: 'MACHINE-1', product: 'Studio' } }]);
    expect(await store.list()).toHaveLength(1);

    later(30 * 60_000);
    expect(expectValid(await client.check()).source).toBe('store');
    expect(server.calls).toHaveLength(1);

    later(31 * 60_000);
    expect(expectValid(await client.check()).source).toBe('server');
    expect(server.calls).toHaveLength(2);
  });

  it('works offline from the stored file until it expires, then reports EXPIRED', async () => {
    const { server, client, issue, later } = setup();
    server.answer = () => new Response(issue());
    await client.check();
    server.answer = () => {
      throw new TypeError('fetch failed');
    };
    later(2 * HOUR);
    const offline = expectValid(await client.check());
    expect(offline).toMatchObject({ source: 'store', offline: true });
    later(8 * 24 * HOUR);
    expect(expectValid(await client.check()).offline).toBe(true);
    later(2 * 24 * HOUR);
    expectInvalid(await client.check(), 'EXPIRED');
  });

  it('treats 5xx and 429 answers as unreachable', async () => {
    const { server, client } = setup();
    server.answer = () => new Response('busy', { status: 503 });
    expectInvalid(await client.check(), 'UNREACHABLE');
    server.answer = () => Response.json({ error: 'ERR_RATE_LIMITED', message: 'slow down' }, { status: 429 });
    expectInvalid(await client.check(), 'UNREACHABLE');
  });

  it('forgets the stored file when the server says revoked, and reports the reason', async () => {
    const { server, client, issue, later, store } = setup();
    server.answer = () => new Response(issue());
    await client.check();
    later(2 * HOUR);
    server.answer = () => Response.json({ error: 'ERR_LICENSE_REVOKED', message: 'This license has been revoked' }, { status: 403 });
    const status = await client.check();
    expectInvalid(status, 'REVOKED');
    expect(status.valid === false && status.message).toBe('This license has been revoked');
    expect(await store.list()).toEqual([]);
  });

  it.each([
    ['ERR_NO_LICENSE', 404, 'NO_LICENSE'],
    ['ERR_LICENSE_EXPIRED', 403, 'EXPIRED'],
    ['ERR_LICENSE_UPGRADED', 403, 'UPGRADED'],
    ['ERR_NO_SEAT', 409, 'NO_SEAT'],
    ['ERR_TOO_MANY_MACHINES', 422, 'TOO_MANY_MACHINES'],
  ])('reports %s as %s', async (code, status, reason) => {
    const { server, client } = setup();
    server.answer = () => Response.json({ error: code, message: 'no' }, { status });
    expectInvalid(await client.check(), reason);
  });

  it('accepts no file that fails verification or belongs to another machine or product', async () => {
    const { server, client, issue, store } = setup();
    for (const file of [issue({ machineId: 'OTHER' }), issue({ product: { id: 2, name: 'Other', version: '1' } }), testKey().file({})]) {
      server.answer = () => new Response(file);
      expectInvalid(await client.check(), 'UNREACHABLE');
    }
    expect(await store.list()).toEqual([]);
  });

  it('imports an offline file and an ANY-Lic file, and keeps the ANY-Lic when the server knows no license', async () => {
    const { server, client, issue } = setup();
    expectInvalid(await client.importFile('nonsense'), 'INVALID_FILE');
    expectInvalid(await client.importFile(issue({ machineId: 'OTHER' })), 'INVALID_FILE');
    // A license's own file naming the machine `*` is no ANY-Lic: it fits no machine.
    expectInvalid(await client.importFile(issue({ machineId: '*', kind: 'TAN' })), 'INVALID_FILE');
    expectInvalid(await client.importFile(issue({ machineId: '*', kind: 'TEMPORARY' })), 'INVALID_FILE');
    expect(expectValid(await client.importFile(issue({ machineId: '*', kind: 'ANYLIC', refetchIntervalSeconds: 0, refetchBeforeExpirySeconds: 0 }))).license.kind).toBe('ANYLIC');
    const status = expectValid(await client.refresh());
    expect(status.license.kind).toBe('ANYLIC');
    expect(server.calls).toHaveLength(1);
  });

  it('prefers the machine file over an ANY-Lic file and picks up files the user put in the store', async () => {
    const { client, issue } = setup();
    const store = memoryStore([
      { name: 'any.lic', text: issue({ machineId: '*', kind: 'ANYLIC', expiresAt: new Date(Date.parse('2027-01-01')).toISOString() }) },
      { name: 'mine.lic', text: issue({ licenseId: 42 }) },
      { name: 'junk.json', text: '{"hello":1}' },
    ]);
    const withStore = new LicenseClient({ ...(client as unknown as { options: ConstructorParameters<typeof LicenseClient>[0] }).options, store });
    expect(expectValid(await withStore.check()).license.licenseId).toBe(42);
  });

  it('releases a floating seat and forgets the file', async () => {
    const { server, client, issue, store } = setup();
    server.answer = (body) => (server.calls.at(-1)!.method === 'DELETE' ? new Response(null, { status: 204 }) : new Response(issue({ policyType: 'FLOATING', machineId: String(body.machineId) })));
    await client.check();
    await client.release();
    expect(server.calls.map((call) => call.method)).toEqual(['POST', 'DELETE']);
    expect(await store.list()).toEqual([]);
  });

  it('plans the next check from the file, with backoff while offline', async () => {
    const { server, client, issue } = setup();
    server.answer = () => new Response(issue());
    const status = expectValid(await client.check());
    expect(client.nextCheckDelay(status, 0)).toBe(HOUR);
    const offline = { ...status, offline: true };
    expect(client.nextCheckDelay(offline, 1)).toBe(60_000);
    expect(client.nextCheckDelay(offline, 3)).toBe(4 * 60_000);
    expect(client.nextCheckDelay(offline, 20)).toBe(15 * 60_000);
    expect(client.nextCheckDelay({ valid: false, reason: 'NO_SEAT', message: '' }, 0)).toBe(60_000);
    expect(client.nextCheckDelay({ valid: false, reason: 'REVOKED', message: '' }, 0)).toBe(HOUR);
  });

  it('remembers a clock set back in its store and reports it with the next license request, once', async () => {
    const { server, client, issue, clock, store } = setup();
    const start = clock.now;
    server.answer = () => new Response(issue());
    expectValid(await client.check());
    expect(server.calls[0].body).not.toHaveProperty('clockTamperedAt');
    clock.now = new Date(start.getTime() - 72 * HOUR);
    expectInvalid(await client.check(), 'CLOCK_TAMPERED');
    // Seen again before it was reported: still the first time.
    expectInvalid(await client.check(), 'CLOCK_TAMPERED');
    expect(await store.readClockTampered!()).toBe(start.toISOString());
    expect(server.calls).toHaveLength(1);
    clock.now = new Date(start.getTime() + 2 * HOUR);
    expectValid(await client.check());
    expect(server.calls[1].body.clockTamperedAt).toBe(start.toISOString());
    expect(await store.readClockTampered!()).toBeNull();
    expectValid(await client.refresh());
    expect(server.calls[2].body).not.toHaveProperty('clockTamperedAt');
  });

  it('keeps the clock tampering while the server cannot be reached', async () => {
    const { server, client, issue, clock, store } = setup();
    server.answer = () => new Response(issue());
    expectValid(await client.check());
    clock.now = new Date(clock.now.getTime() - 72 * HOUR);
    server.answer = () => new Response('busy', { status: 503 });
    expectInvalid(await client.refresh(), 'CLOCK_TAMPERED');
    expect(server.calls[1].body.clockTamperedAt).toEqual(expect.any(String));
    expect(await store.readClockTampered!()).toEqual(server.calls[1].body.clockTamperedAt);
  });

  it('checks on a schedule once started', async () => {
    const { server, client, issue } = setup();
    server.answer = () => new Response(issue());
    const statuses: LicenseStatus[] = [];
    const stop = client.start((status) => statuses.push(status));
    await expect.poll(() => statuses.length).toBe(1);
    stop();
    expect(statuses[0].valid).toBe(true);
  });
});
