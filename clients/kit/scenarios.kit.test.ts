/**
 * The conformance kit (DESIGN.md section 6d): every client that ships `clients/<lang>/harness`
 * goes through the same scenarios against a real server on SQLite. What a harness must do is in
 * README.md beside this file; suspension, floating seats and borrowing are in
 * suspension-borrowing.kit.test.ts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { changeOneByte, clientSuite, clientsWithHarness, DAY, FAKETIME_LIBRARY, HOUR, kidOfFile, storedLicenseFiles, unique } from './support.ts';

const CLIENTS = clientsWithHarness();

it('finds the clients to test', () => {
  expect(CLIENTS).toContain('node');
});

describe.each(CLIENTS)('client %s', (client) => {
  const suite = clientSuite(client);
  const { server, work, store, check } = suite;
  /** Runs `work` with the server stopped, then starts it again. */
  async function offline<T>(work: () => Promise<T>): Promise<T> {
    await server.stop();
    try {
      return await work();
    } finally {
      await server.start();
    }
  }

  it('no license: NO_LICENSE, exit 1', async () => {
    const result = await check(unique('nobody'), store());
    expect(result.status).toMatchObject({ valid: false, reason: 'NO_LICENSE', licenseId: null });
    expect(result.exitCode).toBe(1);
  });

  it('activation: the license of the machine, verified, exit 0', async () => {
    const machine = unique('activated');
    const id = await suite.catalogue.activate(machine);
    const result = await check(machine, store());
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.status).toMatchObject({ valid: true, reason: null, licenseId: id, offline: false });
    const expiresIn = Date.parse(result.status.expiresAt!) - Date.now();
    expect(expiresIn).toBeGreaterThan(9 * DAY * 1000);
    expect(expiresIn).toBeLessThanOrEqual(10 * DAY * 1000);
  });

  it('--machine auto: the fingerprint helper hashes the operating system id with the product name', async () => {
    const raw = ['/etc/machine-id', '/var/lib/dbus/machine-id'].map((file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '')).find(Boolean);
    expect(raw, 'this machine has no /etc/machine-id (systemd-machine-id-setup or dbus-uuidgen --ensure makes one)').toBeTruthy();
    const machine = createHash('sha256').update(`${suite.catalogue.product.name}:${raw}`, 'utf8').digest('hex').slice(0, 32).toUpperCase();
    const id = await suite.catalogue.activate(machine);
    const result = await check('auto', store());
    expect(result.status).toMatchObject({ valid: true, licenseId: id });
  });

  it('304 refresh: a due refresh sends the held file as If-None-Match and keeps it on 304', async () => {
    const machine = unique('refresh');
    const id = await suite.catalogue.activate(machine);
    const dir = store();
    const first = await check(machine, dir);
    expect(first.status).toMatchObject({ valid: true, licenseId: id });
    const before = await server.protocolAnswers('304');
    const refreshed = await check(machine, dir, { clockOffsetSeconds: 2 * HOUR });
    expect(refreshed.status).toMatchObject({ valid: true, licenseId: id, offline: false, expiresAt: first.status.expiresAt });
    expect(await server.protocolAnswers('304')).toBe(before + 1);
  });

  it('revocation reaches the client at its next refresh: REVOKED', async () => {
    const machine = unique('revoked');
    const id = await suite.catalogue.activate(machine);
    const dir = store();
    expect((await check(machine, dir)).status.valid).toBe(true);
    await server.api('PUT', `/api/licenses/${id}`, { revoked: true });
    const result = await check(machine, dir, { clockOffsetSeconds: 2 * HOUR });
    expect(result.status).toMatchObject({ valid: false, reason: 'REVOKED' });
    expect(result.exitCode).toBe(1);
  });

  it('offline: valid from the stored file until it expires, then EXPIRED', async () => {
    const machine = unique('offline');
    const id = await suite.catalogue.activate(machine);
    const dir = store();
    const online = await check(machine, dir);
    expect(online.status.valid).toBe(true);
    await offline(async () => {
      const later = await check(machine, dir, { clockOffsetSeconds: 5 * DAY });
      expect(later.status).toMatchObject({ valid: true, licenseId: id, offline: true, expiresAt: online.status.expiresAt });
      expect(later.exitCode).toBe(0);
      const expired = await check(machine, dir, { clockOffsetSeconds: 11 * DAY });
      expect(expired.status).toMatchObject({ valid: false, reason: 'EXPIRED' });
      expect(expired.exitCode).toBe(1);
    });
  });

  it('a stored file with one byte changed: INVALID_FILE while offline, a fresh file once online', async () => {
    const machine = unique('tampered');
    await suite.catalogue.activate(machine);
    const dir = store();
    expect((await check(machine, dir)).status.valid).toBe(true);
    const files = storedLicenseFiles(dir);
    expect(files.length).toBeGreaterThan(0);
    await offline(async () => {
      for (const file of files) changeOneByte(file);
      expect((await check(machine, dir)).status).toMatchObject({ valid: false, reason: 'INVALID_FILE' });
    });
    expect((await check(machine, dir)).status).toMatchObject({ valid: true, offline: false });
  });

  it('the clock set back: CLOCK_TAMPERED past the 48 h tolerance, still valid within it', async () => {
    const machine = unique('clock');
    await suite.catalogue.activate(machine);
    const dir = store();
    expect((await check(machine, dir)).status.valid).toBe(true);
    expect((await check(machine, dir, { clockOffsetSeconds: -HOUR })).status).toMatchObject({ valid: true });
    expect((await check(machine, dir, { clockOffsetSeconds: -47 * HOUR })).status).toMatchObject({ valid: true });
    const tampered = await check(machine, dir, { clockOffsetSeconds: -72 * HOUR });
    expect(tampered.status).toMatchObject({ valid: false, reason: 'CLOCK_TAMPERED' });
    expect(tampered.exitCode).toBe(1);
    // Offline too: the time the client verified stays in its store.
    await offline(async () => {
      expect((await check(machine, dir, { clockOffsetSeconds: -72 * HOUR })).status).toMatchObject({ valid: false, reason: 'CLOCK_TAMPERED' });
    });
    expect((await check(machine, dir)).status).toMatchObject({ valid: true });
  });

  it('the clock set back is reported on the next contact: the server keeps clock.tampered for the machine, once', async () => {
    const machine = unique('clock-report');
    const licenseId = await suite.catalogue.activate(machine);
    const dir = store();
    expect((await check(machine, dir)).status.valid).toBe(true);
    expect((await check(machine, dir, { clockOffsetSeconds: -72 * HOUR })).status).toMatchObject({ valid: false, reason: 'CLOCK_TAMPERED' });
    // Two hours later a refresh falls due: that request carries clockTamperedAt, the next ones not.
    expect((await check(machine, dir, { clockOffsetSeconds: 2 * HOUR })).status).toMatchObject({ valid: true, offline: false });
    expect((await check(machine, dir, { clockOffsetSeconds: 4 * HOUR })).status).toMatchObject({ valid: true, offline: false });
    const reported = async () => (await server.api<{ items: { type: string; licenseId: number; machineId: string }[] }>('GET', `/api/license-events?machine=${machine}`)).items;
    await expect.poll(reported, { timeout: 15_000, interval: 250 }).toMatchObject([{ type: 'clock.tampered', licenseId, machineId: machine }]);
  });

  it('floating seats: NO_SEAT while the only seat is taken, the next machine gets it once released', async () => {
    const [first, second] = [unique('seat-a'), unique('seat-b')];
    const { code } = await suite.catalogue.tan(suite.catalogue.floating.id, 1);
    const license = await server.api<{ id: number }>('POST', '/api/licenses/activate', { tan: code, machineId: first });
    // Floating activation registers a machine and takes no seat: a second machine joins the one-seat TAN.
    await server.api('POST', '/api/licenses/activate', { tan: code, machineId: second });
    const [storeA, storeB] = [store(), store()];
    expect((await check(first, storeA)).status).toMatchObject({ valid: true, licenseId: license.id });
    const refused = await check(second, storeB);
    expect(refused.status).toMatchObject({ valid: false, reason: 'NO_SEAT' });
    expect(refused.exitCode).toBe(1);
    // The first machine quits and gives its seat back.
    expect((await check(first, storeA, { release: true })).status).toMatchObject({ valid: true });
    expect((await check(second, storeB)).status).toMatchObject({ valid: true });
    expect((await check(first, storeA)).status).toMatchObject({ valid: false, reason: 'NO_SEAT' });
  });

  it('an offline file imported: a downloaded .lic put in the store works without the server', async () => {
    const machine = unique('import');
    const id = await suite.catalogue.activate(machine);
    const lic = await server.api<string>('GET', `/api/licenses/${id}/file?format=lic`);
    const dir = store();
    await offline(async () => {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${suite.catalogue.product.name}-2.0-${machine}.lic`), lic);
      const result = await check(machine, dir);
      expect(result.status).toMatchObject({ valid: true, licenseId: id });
      expect(result.exitCode).toBe(0);
      // A file for another machine is not this machine's license.
      expect((await check(unique('other-machine'), dir)).status.valid).toBe(false);
    });
  });

  // Last: it changes the server's signing key for the rest of the suite.
  it('key rotation: files of the old key keep working with old and new keys pinned, new files need the new key', async () => {
    const machine = unique('rotation');
    const id = await suite.catalogue.activate(machine);
    const old = await server.keysFile(work);
    const dir = store();
    expect((await check(machine, dir, { keys: old.file })).status).toMatchObject({ valid: true, licenseId: id });
    const oldFile = storedLicenseFiles(dir)[0]!;
    expect(kidOfFile(oldFile)).toBe(old.kids[0]);
    const oldCopy = fs.readFileSync(oldFile);

    await server.stop();
    await server.rotateKeys();
    await server.start();
    const both = await server.keysFile(work);
    const newKid = both.kids.find((kid) => !old.kids.includes(kid))!;
    expect(both.kids).toEqual(expect.arrayContaining([...old.kids, newKid]));
    const onlyNew = await server.keysFile(work, (kid) => kid === newKid);

    // Only the old key pinned: the new file cannot be trusted, the stored one still is.
    expect((await check(machine, dir, { keys: old.file, clockOffsetSeconds: 2 * HOUR })).status).toMatchObject({ valid: true, licenseId: id });
    // Old and new pinned: the old file verifies, and the refresh brings a file of the new key.
    expect((await check(machine, dir, { keys: both.file, clockOffsetSeconds: 2 * HOUR })).status).toMatchObject({ valid: true, licenseId: id, offline: false });
    expect(storedLicenseFiles(dir).map(kidOfFile)).toContain(newKid);
    // Only the new key pinned, offline, with only the old file: it is not trusted.
    const oldOnly = store();
    fs.mkdirSync(oldOnly);
    fs.writeFileSync(path.join(oldOnly, 'old.json'), oldCopy);
    await offline(async () => {
      expect((await check(machine, oldOnly, { keys: onlyNew.file })).status).toMatchObject({ valid: false, reason: 'INVALID_FILE' });
      expect((await check(machine, oldOnly, { keys: both.file })).status).toMatchObject({ valid: true, licenseId: id });
    });
  });
  // After the key rotation: the staged key signs from a day later, a clock the server reaches through libfaketime.
  it.skipIf(!FAKETIME_LIBRARY)('staged rotation: a client that pinned the keys published a day before the switch keeps refreshing across it', async () => {
    const machine = unique('staged');
    const id = await suite.catalogue.activate(machine);
    await server.stop();
    await server.rotateKeys(new Date(Date.now() + DAY * 1000));
    await server.start();
    // The software ships with the keys published now: the one that signs and the next one.
    const pinned = await server.keysFile(work);
    expect(pinned.kids.length).toBeGreaterThanOrEqual(2);
    const dir = store();
    expect((await check(machine, dir, { keys: pinned.file })).status).toMatchObject({ valid: true, licenseId: id });
    // The newest key is listed first, and signs nothing yet.
    const nextKid = pinned.kids[0]!;
    expect(storedLicenseFiles(dir).map(kidOfFile)).not.toContain(nextKid);

    // A day and an hour later: the server signs with the next key, and the client trusts its file.
    await server.stop();
    await server.start(DAY + HOUR);
    try {
      const later = await check(machine, dir, { keys: pinned.file, clockOffsetSeconds: DAY + HOUR });
      expect(later.status).toMatchObject({ valid: true, licenseId: id, offline: false });
      expect(storedLicenseFiles(dir).map(kidOfFile)).toContain(nextKid);
    } finally {
      await server.stop();
      await server.start();
    }
  });
});
