/**
 * The complete example of each client's README, run as printed but for the server address and the
 * pinned keys, against a real server: no license at first (it prints the machine id), licensed once
 * that machine was activated. Clients whose example is not Python get their own case here as they come.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLIENTS_DIR, KitServer, setUpCatalogue } from './support.ts';

const server = new KitServer();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-kit-readme-'));

beforeAll(async () => {
  await server.start();
});
afterAll(async () => {
  await server.dispose();
  fs.rmSync(work, { recursive: true, force: true });
});

const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

function run(command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

/** Installs the Python client as its README says (pip, from its pyproject.toml), into a folder of its own; answers that folder. */
async function installPythonClient(): Promise<string> {
  const source = path.join(work, 'python-source');
  fs.cpSync(path.join(CLIENTS_DIR, 'python'), source, { recursive: true, filter: (file) => !/(__pycache__|\.egg-info|[/\\]build)$/.test(file) });
  const target = path.join(work, 'site-packages');
  // Offline and with the system's setuptools: the one dependency, cryptography, is Debian's python3-cryptography.
  await run(PYTHON, ['-m', 'pip', 'install', '--quiet', '--no-deps', '--no-build-isolation', '--no-index', '--target', target, source]);
  return target;
}

it("installs the Python client with pip and runs its README's complete example: no license at first, licensed after activation", async () => {
  const catalogue = await setUpCatalogue(server);
  const keys = (await (await fetch(`${server.url}/api/client/v1/keys`)).json()) as { keys: { kid: string; publicKeyPem: string }[] };
  const readme = fs.readFileSync(path.join(CLIENTS_DIR, 'python/README.md'), 'utf8');
  const example = /```python\n([\s\S]*?)```/.exec(readme)![1]!;
  const pinned = keys.keys.map((key) => `    PublicKey(kid=${JSON.stringify(key.kid)}, public_key_pem=${JSON.stringify(key.publicKeyPem)}),`).join('\n');
  const script = example
    .replaceAll('https://licenses.example.com', server.url)
    .replace(/PUBLIC_KEYS = \[[\s\S]*?\n\]/, `PUBLIC_KEYS = [\n${pinned}\n]`)
    .replace('PRODUCT = "Studio Pro"', `PRODUCT = ${JSON.stringify(catalogue.product.name)}`)
    .replace('version="2.1"', `version=${JSON.stringify(catalogue.product.version)}`);
  expect(script).toContain(server.url);
  const file = path.join(work, 'check_license.py');
  fs.writeFileSync(file, script);
  const home = path.join(work, 'home');
  const sitePackages = await installPythonClient();
  expect(fs.existsSync(path.join(sitePackages, 'license_manager_client/client.py'))).toBe(true);
  const python = (script: string, homeDir: string) => run(PYTHON, [script], { HOME: homeDir, PYTHONPATH: sitePackages });

  const first = await python(file, home);
  const machineId = /^No valid license \(NO_LICENSE\): .*Machine id: (\S+)$/m.exec(first)?.[1];
  expect(machineId, first).toMatch(/^[0-9A-F]{32}$/);

  await server.api('POST', '/api/licenses/activate', { tan: (await catalogue.tan(catalogue.indefinite.id)).code, machineId });
  const second = await python(file, home);
  // The license belongs to the kit's first administrator, created without a name (shown by e-mail address).
  expect(second).toMatch(/^Licensed to .*; features none; file valid until \d{4}-\d\d-\d\dT/m);
  expect(fs.readdirSync(path.join(home, '.config', catalogue.product.name, 'licenses'))).toEqual(expect.arrayContaining(['license.json', 'server-time']));
});
