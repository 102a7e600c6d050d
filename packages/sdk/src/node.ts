/**
 * The file-system store for Node and Electron's main process (`@license-manager/sdk/node`, exported
 * only under the `node` condition); kept apart from the main entry so that browsers and renderers
 * never load node:fs. Its declarations name no Node types, so TypeScript users need no @types/node.
 */
import { chmod, mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CLOCK_TAMPERED_FILE_NAME, CONFIRMED_FILE_NAME, DESKTOP_TOKEN_FILE_NAME, FETCHED_FILE_NAME, SERVER_TIME_FILE_NAME, type LicenseStore } from './store.js';

/**
 * Where the desktop software looks for license files: the `licenses` folder in the application's
 * data folder (Electron's `app.getPath('userData')`):
 *   Windows  %APPDATA%\<app>\licenses
 *   macOS    ~/Library/Application Support/<app>/licenses
 *   Linux    $XDG_CONFIG_HOME/<app>/licenses (~/.config/<app>/licenses)
 */
export function defaultLicenseDirectory(appName: string, platform: string = process.platform, env: Readonly<Record<string, string | undefined>> = process.env): string {
  const home = os.homedir();
  if (platform === 'win32') return path.win32.join(env.APPDATA ?? path.win32.join(home, 'AppData', 'Roaming'), appName, 'licenses');
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Application Support', appName, 'licenses');
  return path.posix.join(env.XDG_CONFIG_HOME ?? path.posix.join(home, '.config'), appName, 'licenses');
}

/**
 * A folder of license files: every `.lic` and `.json` file in it is a candidate (an offline file the
 * user copied there works), and the file fetched from the server is kept as `license.json`, the
 * server's last confirmation of it as `confirmed.state`. A desktop sign-in's token is kept as
 * `desktop-token`, readable by this user only (mode 0600).
 */
export function directoryStore(directory: string): LicenseStore {
  return {
    async list() {
      let names: string[];
      try {
        names = await readdir(directory);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      const files = names.filter((name) => /\.(lic|json)$/i.test(name));
      const read = await Promise.all(files.map(async (name) => ({ name, text: await readFile(path.join(directory, name), 'utf8').catch(() => '') })));
      return read.filter((file) => file.text);
    },
    async save(text) {
      await mkdir(directory, { recursive: true });
      // Written beside and renamed, so that a crash never leaves half a file.
      const temporary = path.join(directory, `.${FETCHED_FILE_NAME}.${process.pid}.tmp`);
      await writeFile(temporary, text, 'utf8');
      await rename(temporary, path.join(directory, FETCHED_FILE_NAME));
    },
    async readServerTime() {
      return readFile(path.join(directory, SERVER_TIME_FILE_NAME), 'utf8').catch(() => null);
    },
    async writeServerTime(token) {
      await mkdir(directory, { recursive: true });
      const temporary = path.join(directory, `.${SERVER_TIME_FILE_NAME}.${process.pid}.tmp`);
      await writeFile(temporary, token, 'utf8');
      await rename(temporary, path.join(directory, SERVER_TIME_FILE_NAME));
    },
    async readClockTampered() {
      return (await readFile(path.join(directory, CLOCK_TAMPERED_FILE_NAME), 'utf8').catch(() => '')).trim() || null;
    },
    async writeClockTampered(at) {
      if (at === null) return this.remove(CLOCK_TAMPERED_FILE_NAME);
      await mkdir(directory, { recursive: true });
      await writeFile(path.join(directory, CLOCK_TAMPERED_FILE_NAME), at, 'utf8');
    },
    async readConfirmed() {
      return readFile(path.join(directory, CONFIRMED_FILE_NAME), 'utf8').catch(() => null);
    },
    async writeConfirmed(state) {
      if (state === null) return this.remove(CONFIRMED_FILE_NAME);
      await mkdir(directory, { recursive: true });
      const temporary = path.join(directory, `.${CONFIRMED_FILE_NAME}.${process.pid}.tmp`);
      await writeFile(temporary, state, 'utf8');
      await rename(temporary, path.join(directory, CONFIRMED_FILE_NAME));
    },
    async readToken() {
      return (await readFile(path.join(directory, DESKTOP_TOKEN_FILE_NAME), 'utf8').catch(() => '')).trim() || null;
    },
    async writeToken(token) {
      if (token === null) return this.remove(DESKTOP_TOKEN_FILE_NAME);
      await mkdir(directory, { recursive: true });
      // Created 0600 (never readable by others, not even for a moment: a new file gets its mode at
      // creation) beside the old one, then renamed over it.
      const temporary = path.join(directory, `.${DESKTOP_TOKEN_FILE_NAME}.${process.pid}.tmp`);
      await unlink(temporary).catch(() => undefined);
      await writeFile(temporary, token, { encoding: 'utf8', mode: 0o600, flag: 'wx' });
      await chmod(temporary, 0o600);
      await rename(temporary, path.join(directory, DESKTOP_TOKEN_FILE_NAME));
    },
    async remove(name) {
      await unlink(path.join(directory, name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    },
  };
}

/** Where each operating system keeps its machine id, and how to read it. */
const MACHINE_ID_SOURCES: Record<string, readonly { command?: [string, string[]]; file?: string; pattern?: RegExp }[]> = {
  linux: [{ file: '/etc/machine-id' }, { file: '/var/lib/dbus/machine-id' }],
  win32: [{ command: ['reg', ['query', 'HKLM\\SOFTWARE\\Microsoft\\Cryptography', '/v', 'MachineGuid']], pattern: /MachineGuid\s+REG_SZ\s+(\S+)/ }],
  darwin: [{ command: ['ioreg', ['-rd1', '-c', 'IOPlatformExpertDevice']], pattern: /"IOPlatformUUID"\s*=\s*"([^"]+)"/ }],
  freebsd: [{ file: '/etc/hostid' }],
};

/** The operating system's own machine id, raw (never send it anywhere: see machineFingerprint). */
export async function operatingSystemMachineId(platform: string = process.platform, read: (file: string) => Promise<string> = (file) => readFile(file, 'utf8')): Promise<string> {
  for (const source of MACHINE_ID_SOURCES[platform] ?? MACHINE_ID_SOURCES.linux!) {
    try {
      let text: string;
      if (source.file) text = await read(source.file);
      else {
        const { execFile } = await import('node:child_process');
        const [command, args] = source.command!;
        text = await new Promise<string>((resolve, reject) => execFile(command, args, { encoding: 'utf8', windowsHide: true }, (error, stdout) => (error ? reject(error) : resolve(stdout))));
      }
      const id = (source.pattern ? source.pattern.exec(text)?.[1] : text)?.trim();
      if (id) return id;
    } catch {
      // try the next source
    }
  }
  throw new Error(`no machine id found on ${platform}: pass your own machine id to the LicenseClient`);
}

/**
 * A stable machine id for the license, from the operating system's machine id (Linux
 * /etc/machine-id, Windows MachineGuid, macOS IOPlatformUUID) hashed with the product name, so that
 * the raw id never leaves the machine and two vendors' ids of one machine differ: the first 32 hex
 * digits, upper case, of SHA-256 over the UTF-8 of `<product>:<raw id>`. Not stable across cloned
 * virtual machines or containers that share or regenerate the id (see the README).
 */
export async function machineFingerprint(product: string, rawId?: string): Promise<string> {
  const raw = rawId ?? (await operatingSystemMachineId());
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(`${product}:${raw.trim()}`, 'utf8').digest('hex').slice(0, 32).toUpperCase();
}
export { INSTALL_KEY_FILE_NAME, installKey, licenseRequest, deactivationProof, type InstallKey } from './install-key.js';
