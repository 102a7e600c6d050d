/**
 * The file-system store for Node and Electron's main process (`@license-manager/sdk/node`, exported
 * only under the `node` condition); kept apart from the main entry so that browsers and renderers
 * never load node:fs. Its declarations name no Node types, so TypeScript users need no @types/node.
 */
import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FETCHED_FILE_NAME, type LicenseStore } from './store.js';

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
 * user copied there works), and the file fetched from the server is kept as `license.json`.
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
    async remove(name) {
      await unlink(path.join(directory, name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    },
  };
}
