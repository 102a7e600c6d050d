import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultLicenseDirectory, directoryStore } from '../src/node.ts';

describe('directoryStore', () => {
  it('lists .lic and .json files, saves the fetched file atomically and removes files', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-sdk-'));
    const store = directoryStore(path.join(dir, 'licenses'));
    expect(await store.list()).toEqual([]);
    await store.save('{"fetched":1}');
    fs.writeFileSync(path.join(dir, 'licenses', 'offline.lic'), 'LIC');
    fs.writeFileSync(path.join(dir, 'licenses', 'notes.txt'), 'ignored');
    const names = (await store.list()).map((file) => file.name).sort();
    expect(names).toEqual(['license.json', 'offline.lic']);
    await store.remove('offline.lic');
    await store.remove('offline.lic');
    expect((await store.list()).map((file) => file.name)).toEqual(['license.json']);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the server time beside the files, not as a license file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-sdk-'));
    const store = directoryStore(path.join(dir, 'licenses'));
    expect(await store.readServerTime!()).toBeNull();
    await store.writeServerTime!('enc.sig');
    await store.writeServerTime!('enc2.sig2');
    expect(await store.readServerTime!()).toBe('enc2.sig2');
    expect(await store.list()).toEqual([]);
    expect(fs.readdirSync(path.join(dir, 'licenses'))).toEqual(['server-time']);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a clock tampering not reported yet beside the files, and clears it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-sdk-'));
    const store = directoryStore(path.join(dir, 'licenses'));
    expect(await store.readClockTampered!()).toBeNull();
    await store.writeClockTampered!('2026-03-01T08:00:00.000Z');
    expect(await store.readClockTampered!()).toBe('2026-03-01T08:00:00.000Z');
    expect(await store.list()).toEqual([]);
    await store.writeClockTampered!(null);
    expect(await store.readClockTampered!()).toBeNull();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the server\'s last confirmation as confirmed.state, not as a license file, and deletes it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-sdk-'));
    const store = directoryStore(path.join(dir, 'licenses'));
    expect(await store.readConfirmed!()).toBeNull();
    await store.writeConfirmed!('"lm1-abc-def" 1772352000000\n');
    expect(fs.readFileSync(path.join(dir, 'licenses', 'confirmed.state'), 'utf8')).toBe('"lm1-abc-def" 1772352000000\n');
    expect(await store.list()).toEqual([]);
    await store.writeConfirmed!(null);
    expect(await store.readConfirmed!()).toBeNull();
    expect(fs.readdirSync(path.join(dir, 'licenses'))).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('knows where the desktop software keeps its licenses on each system', () => {
    expect(defaultLicenseDirectory('Studio', 'win32', { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' })).toBe('C:\\Users\\ada\\AppData\\Roaming\\Studio\\licenses');
    expect(defaultLicenseDirectory('Studio', 'darwin', {})).toBe(path.join(os.homedir(), 'Library/Application Support/Studio/licenses'));
    expect(defaultLicenseDirectory('Studio', 'linux', { XDG_CONFIG_HOME: '/home/ada/.config' })).toBe('/home/ada/.config/Studio/licenses');
  });
});
