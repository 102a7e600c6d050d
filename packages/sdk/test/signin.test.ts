/**
 * Desktop sign-in (DESIGN.md 6f, RFC 8628) against a stand-in server on 127.0.0.1: the polling loop
 * (authorization_pending, slow_down, access_denied, expired_token), the token in the store and as
 * the bearer of every license request, SEAT_UNASSIGNED, SIGNED_OUT and signOut.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LicenseClient, memoryStore, type DeviceCode, type LicenseStore } from '../src/index.ts';
import { directoryStore } from '../src/node.ts';
import { testKey } from './signing.ts';

const key = testKey();
const HOUR = 3_600_000;

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  ifNoneMatch: string | undefined;
  body: Record<string, unknown>;
}
type Answer = { status: number; body?: unknown; text?: string };

let server: http.Server;
let baseUrl: string;
let seen: Seen[];
/** The answers of the token endpoint, one per poll (the last repeats). */
let polls: Answer[];
let license: (request: Seen) => Answer;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    request.on('end', () => {
      const entry: Seen = {
        method: request.method ?? '',
        url: request.url ?? '',
        authorization: request.headers.authorization,
        ifNoneMatch: request.headers['if-none-match'],
        body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {},
      };
      seen.push(entry);
      let answer: Answer = { status: 404, body: { error: 'ERR_NOT_FOUND', message: 'not found' } };
      if (entry.url === '/api/client/v1/device/authorize') {
        answer = {
          status: 200,
          body: { device_code: 'device-code-0123456789', user_code: 'BCDF-GHJK', verification_uri: `${baseUrl}/device`, verification_uri_complete: `${baseUrl}/device?code=BCDF-GHJK`, expires_in: 600, interval: 1 },
        };
      } else if (entry.url === '/api/client/v1/device/token' && entry.method === 'POST') {
        answer = polls.length > 1 ? polls.shift()! : polls[0]!;
      } else if (entry.url === '/api/client/v1/device/token' && entry.method === 'DELETE') {
        answer = entry.authorization ? { status: 204 } : { status: 401, body: { error: 'ERR_UNAUTHENTICATED', message: 'no token' } };
      } else if (entry.url === '/api/client/v1/license') {
        answer = license(entry);
      }
      if (answer.status === 204 || answer.status === 304) return response.writeHead(answer.status).end();
      const text = answer.text ?? JSON.stringify(answer.body ?? {});
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen = [];
  polls = [{ status: 400, body: { error: 'authorization_pending', error_description: 'not yet' } }];
  license = () => ({ status: 404, body: { error: 'ERR_NO_LICENSE', message: 'No license' } });
});

function setup(store: LicenseStore = memoryStore(), borrowDays?: number) {
  const clock = { now: new Date('2026-03-01T08:00:00Z') };
  const client = new LicenseClient({ serverUrl: `${baseUrl}/`, product: 'Studio', machineId: 'MACHINE-1', publicKeys: [key.publicKey], store, now: () => clock.now, borrowDays });
  const waits: number[] = [];
  const codes: DeviceCode[] = [];
  const signIn = () => client.signIn({ onCode: (code) => void codes.push(code), sleep: async (ms) => void waits.push(ms) });
  const issue = (more: Record<string, unknown> = {}) => key.file({ ...more, issuedAt: clock.now.toISOString(), expiresAt: new Date(clock.now.getTime() + 10 * 24 * HOUR).toISOString(), refetchIntervalSeconds: 3600, refetchBeforeExpirySeconds: 86_400 });
  return { client, clock, store, waits, codes, signIn, issue };
}
const licenseRequests = () => seen.filter((entry) => entry.url === '/api/client/v1/license');

describe('LicenseClient.signIn', () => {
  it('reports the code, polls (waiting 5 s longer after slow_down), keeps the token and sends it with every license request, the 304 refresh too', async () => {
    const { client, store, waits, codes, signIn, issue, clock } = setup();
    polls = [
      { status: 400, body: { error: 'authorization_pending', error_description: 'not yet' } },
      { status: 400, body: { error: 'slow_down', error_description: 'slower' } },
      { status: 400, body: { error: 'authorization_pending', error_description: 'not yet' } },
      { status: 200, body: { access_token: 'secret-token', token_type: 'Bearer' } },
    ];
    license = (request) => (request.ifNoneMatch ? { status: 304 } : { status: 200, text: issue() });
    const status = await signIn();
    expect(status).toMatchObject({ valid: true, source: 'server', license: { licenseId: 7 } });
    expect(codes).toEqual([{ userCode: 'BCDF-GHJK', verificationUri: `${baseUrl}/device`, verificationUriComplete: `${baseUrl}/device?code=BCDF-GHJK`, expiresIn: 600, interval: 1 }]);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/client/v1/device/authorize', body: { product: 'Studio', machineId: 'MACHINE-1' } });
    expect(seen.filter((entry) => entry.url === '/api/client/v1/device/token').map((entry) => entry.body)).toEqual(Array(4).fill({ device_code: 'device-code-0123456789' }));
    expect(waits).toEqual([1000, 1000, 6000, 6000]);
    expect(await store.readToken!()).toBe('secret-token');
    expect(await client.signedIn()).toBe(true);

    clock.now = new Date(clock.now.getTime() + 2 * HOUR);
    expect(await client.check()).toMatchObject({ valid: true, source: 'server' });
    expect(licenseRequests().map((entry) => [entry.authorization, entry.ifNoneMatch !== undefined])).toEqual([
      ['Bearer secret-token', false],
      ['Bearer secret-token', true],
    ]);
  });

  it('access_denied is SIGNIN_DENIED, expired_token SIGNIN_EXPIRED; no token is kept', async () => {
    const { client, store, signIn } = setup();
    polls = [
      { status: 400, body: { error: 'authorization_pending', error_description: 'not yet' } },
      { status: 400, body: { error: 'access_denied', error_description: 'The sign-in was denied' } },
    ];
    expect(await signIn()).toMatchObject({ valid: false, reason: 'SIGNIN_DENIED' });
    polls = [{ status: 400, body: { error: 'expired_token', error_description: 'expired' } }];
    expect(await signIn()).toMatchObject({ valid: false, reason: 'SIGNIN_EXPIRED' });
    expect(await store.readToken!()).toBeNull();
    expect(await client.signedIn()).toBe(false);
    expect(licenseRequests()).toEqual([]);
  });

  it('stops polling when the signal aborts', async () => {
    const { client } = setup();
    const controller = new AbortController();
    const signingIn = client.signIn({ onCode: () => controller.abort(new Error('cancelled')), signal: controller.signal, sleep: async () => undefined });
    await expect(signingIn).rejects.toThrow('cancelled');
    expect(seen.filter((entry) => entry.url === '/api/client/v1/device/token')).toEqual([]);
  });

  it('an unassigned seat is SEAT_UNASSIGNED (the token stays); a 401 to the token is SIGNED_OUT and deletes it', async () => {
    const { client, store, signIn, issue, clock } = setup();
    polls = [{ status: 200, body: { access_token: 'secret-token', token_type: 'Bearer' } }];
    license = () => ({ status: 200, text: issue() });
    expect(await signIn()).toMatchObject({ valid: true });

    license = () => ({ status: 403, body: { error: 'ERR_SEAT_UNASSIGNED', message: 'You have no seat for this product any more' } });
    clock.now = new Date(clock.now.getTime() + 2 * HOUR);
    expect(await client.check()).toMatchObject({ valid: false, reason: 'SEAT_UNASSIGNED' });
    expect(await store.readToken!()).toBe('secret-token');

    license = () => ({ status: 401, body: { error: 'ERR_UNAUTHENTICATED', message: 'The desktop sign-in is unknown or was revoked; sign in again' } });
    expect(await client.check()).toMatchObject({ valid: false, reason: 'SIGNED_OUT' });
    expect(await store.readToken!()).toBeNull();
    expect(licenseRequests().at(-1)!.authorization).toBe('Bearer secret-token');

    // Without a token a 401 is no sign-out (nothing to end): the server's answer is not understood.
    expect(await client.check()).toMatchObject({ valid: false, reason: 'UNREACHABLE' });
    expect(licenseRequests().at(-1)!.authorization).toBeUndefined();
  });

  it('with borrowDays the signed-in requests carry it as the anonymous ones do: the borrowed file is kept, BORROW_NOT_ALLOWED keeps the token and the file', async () => {
    const { client, store, signIn, issue, clock } = setup(memoryStore(), 3);
    polls = [{ status: 200, body: { access_token: 'secret-token', token_type: 'Bearer' } }];
    const until = new Date(clock.now.getTime() + 3 * 24 * HOUR).toISOString();
    license = (request) => (request.body.borrowDays === 3 ? { status: 200, text: issue({ expiresAt: until, borrowedUntil: until }) } : { status: 200, text: issue() });
    expect(await signIn()).toMatchObject({ valid: true, source: 'server', license: { borrowedUntil: until } });

    license = () => ({ status: 422, body: { error: 'ERR_BORROW_NOT_ALLOWED', message: 'This license lets a machine borrow a seat for at most 0 days' } });
    clock.now = new Date(clock.now.getTime() + 2 * HOUR);
    expect(await client.check()).toMatchObject({ valid: false, reason: 'BORROW_NOT_ALLOWED', message: 'This license lets a machine borrow a seat for at most 0 days' });
    expect(licenseRequests().map((entry) => [entry.authorization, entry.body.borrowDays, entry.ifNoneMatch !== undefined])).toEqual([
      ['Bearer secret-token', 3, false],
      ['Bearer secret-token', 3, true],
    ]);
    expect(await store.readToken!()).toBe('secret-token');
    expect(await store.list()).toHaveLength(1);
  });

  it('signOut ends the sign-in on the server with the token, deletes it and the file fetched with it', async () => {
    const { client, store, signIn, issue } = setup();
    expect(await client.signOut()).toBe(false);
    polls = [{ status: 200, body: { access_token: 'secret-token', token_type: 'Bearer' } }];
    license = () => ({ status: 200, text: issue() });
    await signIn();
    expect(await store.list()).toHaveLength(1);
    expect(await client.signOut()).toBe(true);
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', url: '/api/client/v1/device/token', authorization: 'Bearer secret-token' });
    expect(await store.readToken!()).toBeNull();
    expect(await store.list()).toEqual([]);
  });

  it('keeps the token in a store without token support in memory', async () => {
    const files = memoryStore();
    const store: LicenseStore = { list: () => files.list(), save: (text) => files.save(text), remove: (name) => files.remove(name) };
    const { client, signIn, issue } = setup(store);
    polls = [{ status: 200, body: { access_token: 'secret-token', token_type: 'Bearer' } }];
    license = () => ({ status: 200, text: issue() });
    await signIn();
    expect(await client.signedIn()).toBe(true);
    expect(licenseRequests()[0]!.authorization).toBe('Bearer secret-token');
  });
});

describe('directoryStore token', () => {
  it('keeps the token as desktop-token, mode 0600, not as a license file, and deletes it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-sdk-'));
    const store = directoryStore(path.join(dir, 'licenses'));
    expect(await store.readToken!()).toBeNull();
    await store.writeToken!('first');
    await store.writeToken!('second');
    expect(await store.readToken!()).toBe('second');
    expect(fs.readdirSync(path.join(dir, 'licenses'))).toEqual(['desktop-token']);
    if (process.platform !== 'win32') expect((fs.statSync(path.join(dir, 'licenses', 'desktop-token')).mode & 0o777).toString(8)).toBe('600');
    expect(await store.list()).toEqual([]);
    await store.writeToken!(null);
    expect(await store.readToken!()).toBeNull();
    expect(fs.readdirSync(path.join(dir, 'licenses'))).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
