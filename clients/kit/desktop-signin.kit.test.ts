/**
 * Desktop sign-in of named users (DESIGN.md section 6f, RFC 8628), the same in every client: the
 * harness's `signin` prints the user code and address at once, polls until the person approves on
 * /device (here through the API the page uses), keeps the token in its store and fetches the seat's
 * file with it; `check` then refreshes with the token; an unassigned seat is `SEAT_UNASSIGNED` at the
 * next refresh; a denied sign-in is `SIGNIN_DENIED`; `signout` ends the sign-in on the server; a
 * signed-in check with `--borrow-days` sends it and is refused, as a named seat lends nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENTS_DIR, clientSuite, clientsWithCommands, clientsWithHarness, HOUR, storedLicenseFiles, unique } from './support.ts';

/** The clients whose harness usage names `signin`. */
const CLIENTS = clientsWithCommands('signin');

it('every client with a harness signs in from the desktop', () => {
  expect(CLIENTS).toEqual(clientsWithHarness());
  if (process.env.CI === 'true') expect(CLIENTS).toEqual(['c', 'java', 'node', 'python']);
});

interface Started {
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
}

/**
 * Starts `harness signin`; `started` resolves with its first line (the code to approve), `done` with
 * its exit code and last line once it has finished polling.
 */
function signIn(client: string, args: string[]) {
  const child = spawn(path.join(CLIENTS_DIR, client, 'harness'), ['signin', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const started = new Promise<Started>((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      if (lines.length === 1) {
        try {
          resolve(JSON.parse(line) as Started);
        } catch {
          reject(new Error(`${client}/harness signin: the first line is not JSON: ${line}\n${stderr}`));
        }
      }
    });
    child.once('close', (exitCode) => reject(new Error(`${client}/harness signin ended (exit ${exitCode}) before printing the code\n${stderr}`)));
  });
  const done = new Promise<{ exitCode: number | null; status: Record<string, unknown>; stderr: string }>((resolve, reject) => {
    child.once('close', (exitCode) => {
      try {
        resolve({ exitCode, status: JSON.parse(lines.at(-1)!) as Record<string, unknown>, stderr });
      } catch {
        reject(new Error(`${client}/harness signin printed no JSON line (exit ${exitCode}):\n${lines.join('\n')}\n${stderr}`));
      }
    });
  });
  started.catch(() => undefined);
  return { started, done };
}

/** The payload of a stored `.json` (or PEM-armoured `.lic`) license file. */
function payloadOf(file: string): { borrowedUntil?: string | null } {
  let text = fs.readFileSync(file, 'utf8').trim();
  if (text.startsWith('-----BEGIN')) text = Buffer.from(text.split('\n').slice(1, -1).join(''), 'base64').toString('utf8');
  return JSON.parse(Buffer.from((JSON.parse(text) as { enc: string }).enc, 'base64').toString('utf8')) as { borrowedUntil?: string | null };
}

describe.runIf(CLIENTS.length > 0).each(CLIENTS)('client %s: desktop sign-in', (client) => {
  // The server's poll interval at its least, so that a sign-in takes a second, not five.
  const suite = clientSuite(client, { DEVICE_POLL_INTERVAL_SECONDS: '1' });
  const { server, store, check } = suite;
  const product = () => suite.catalogue.product.name;
  let organizationId: number;
  let tanId: number;
  let adminId: number;

  beforeAll(async () => {
    // The administrator's organization, a named-user TAN claimed for it, and a seat for the administrator.
    adminId = (await server.api<{ id: number }>('GET', '/api/session')).id;
    organizationId = (await server.api<{ id: number }>('POST', '/api/organizations', { name: unique('Kit Works') })).id;
    const policy = await server.api<{ id: number }>('POST', '/api/license-policies', {
      name: unique('Kit named users'),
      type: 'PERPETUAL',
      seatMode: 'USER',
      machinesPerUser: 2,
      seatReassignHours: 0,
      licenseMaxValidDays: 10,
      refetchIntervalSeconds: HOUR,
      refetchBeforeExpirySeconds: 24 * HOUR,
      maxDifferentMachinesCount: 100,
      maxDifferentMachinesIntervalHours: 24,
    });
    const tan = await suite.catalogue.tan(policy.id, 3);
    tanId = tan.id;
    await server.api('POST', `/api/organizations/${organizationId}/tans`, { tan: tan.code });
  });
  const assignSeat = () => server.api<{ id: number }>('POST', `/api/organizations/${organizationId}/seats`, { tanId, userId: adminId });
  const signInArgs = (machine: string, dir: string) => ['--server', server.url, '--product', product(), '--machine', machine, '--store', dir, '--keys', suite.keys];

  it('prints the code, is approved on /device, gets the seat\'s file and refreshes with its token; an unassigned seat is refused at the next refresh', async () => {
    const seat = await assignSeat();
    const machine = unique('desktop');
    const dir = store();
    const { started, done } = signIn(client, signInArgs(machine, dir));
    const code = await started;
    expect(code.userCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    expect(code.verificationUri).toBe(`${server.url}/device`);
    expect(code.verificationUriComplete).toBe(`${server.url}/device?code=${code.userCode}`);
    await server.api('POST', '/api/device/approve', { userCode: code.userCode });
    const signedIn = await done;
    expect(signedIn).toMatchObject({ exitCode: 0, status: { valid: true, offline: false } });
    const licenseId = signedIn.status.licenseId as number;
    expect(licenseId).toBeGreaterThan(0);

    // The token is kept in the store, not as a license file; the refresh sends it.
    expect((await check(machine, dir)).status).toMatchObject({ valid: true, licenseId });
    const refreshed = await check(machine, dir, { clockOffsetSeconds: 2 * HOUR });
    expect(refreshed.status).toMatchObject({ valid: true, offline: false, licenseId });

    await server.api('DELETE', `/api/organizations/${organizationId}/seats/${seat.id}`);
    const refused = await check(machine, dir, { clockOffsetSeconds: 4 * HOUR });
    expect({ exitCode: refused.exitCode, reason: refused.status.reason }).toEqual({ exitCode: 1, reason: 'SEAT_UNASSIGNED' });
  });

  it('a signed-in check with --borrow-days is BORROW_NOT_ALLOWED, as a named seat lends nothing; the token and the file stay, and the next check is valid', async () => {
    // Named seats are offered on PERPETUAL and INDEFINITE policies only, and only a floating seat
    // can be borrowed (docs/license-files.md): the client asks, is refused, and keeps what it holds.
    const seat = await assignSeat();
    const machine = unique('borrow');
    const dir = store();
    const { started, done } = signIn(client, signInArgs(machine, dir));
    await server.api('POST', '/api/device/approve', { userCode: (await started).userCode });
    const signedIn = await done;
    expect(signedIn).toMatchObject({ exitCode: 0, status: { valid: true, offline: false } });
    const held = storedLicenseFiles(dir).map((file) => fs.readFileSync(file, 'utf8'));
    expect(held).toHaveLength(1);

    const refused = await check(machine, dir, { borrowDays: 3 });
    expect({ exitCode: refused.exitCode, reason: refused.status.reason, offline: refused.status.offline }).toEqual({ exitCode: 1, reason: 'BORROW_NOT_ALLOWED', offline: false });
    expect(fs.existsSync(path.join(dir, 'desktop-token'))).toBe(true);
    expect(storedLicenseFiles(dir).map((file) => fs.readFileSync(file, 'utf8'))).toEqual(held);
    expect(storedLicenseFiles(dir).map((file) => payloadOf(file).borrowedUntil ?? null)).toEqual([null]);

    // Without --borrow-days the same token refreshes as before.
    expect((await check(machine, dir, { clockOffsetSeconds: 2 * HOUR })).status).toMatchObject({ valid: true, offline: false, licenseId: signedIn.status.licenseId });
    await server.api('DELETE', `/api/organizations/${organizationId}/seats/${seat.id}`);
  });

  it('a denied sign-in is SIGNIN_DENIED and keeps no token', async () => {
    const dir = store();
    const { started, done } = signIn(client, signInArgs(unique('denied'), dir));
    await server.api('POST', '/api/device/deny', { userCode: (await started).userCode });
    expect(await done).toMatchObject({ exitCode: 1, status: { valid: false, reason: 'SIGNIN_DENIED' } });
    expect(fs.existsSync(path.join(dir, 'desktop-token'))).toBe(false);
  });

  it('signs out: the token is gone from the store and refused by the server', async () => {
    const seat = await assignSeat();
    const machine = unique('signout');
    const dir = store();
    const { started, done } = signIn(client, signInArgs(machine, dir));
    await server.api('POST', '/api/device/approve', { userCode: (await started).userCode });
    expect((await done).status).toMatchObject({ valid: true });
    const token = fs.readFileSync(path.join(dir, 'desktop-token'), 'utf8').trim();
    expect((fs.statSync(path.join(dir, 'desktop-token')).mode & 0o777).toString(8)).toBe('600');

    const out = spawnSync(path.join(CLIENTS_DIR, client, 'harness'), ['signout', '--server', server.url, '--store', dir], { encoding: 'utf8', timeout: 120_000 });
    expect({ exitCode: out.status, line: JSON.parse(out.stdout.trim().split('\n').at(-1)!) }).toEqual({ exitCode: 0, line: { signedOut: true } });
    expect(fs.existsSync(path.join(dir, 'desktop-token'))).toBe(false);
    const withOldToken = await fetch(`${server.url}/api/client/v1/license`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ product: product(), machineId: machine }),
    });
    expect(withOldToken.status).toBe(401);
    await server.api('DELETE', `/api/organizations/${organizationId}/seats/${seat.id}`);
  });
});
