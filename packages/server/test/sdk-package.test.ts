/**
 * The SDK as a vendor gets it: `npm pack` in packages/sdk, the tarball installed into an empty
 * project (offline: a local tarball needs no registry), and the README's complete example run with
 * the machine's own Node (20 here, not the project's 24) against a real server process. Also: what
 * the tarball holds, a TypeScript project without @types/node, and a browser bundle.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, HANG_GUARD_MS, IN_CI, machineNode, PROJECT_NODE, ROOT, runCli, startServerProcess, type ServerProcess } from './processes.ts';

const SDK_DIR = path.join(ROOT, 'packages/sdk');
const ADMIN = { email: 'admin@sdk.test', password: 'admin-secret-1' };
const CUSTOMER = { email: 'ada@sdk.test', password: 'customer-secret-1' };
const node = machineNode();
if (!node && !IN_CI) console.warn('[sdk-package] NOTICE: no Node outside node_modules on PATH; the SDK tarball test is SKIPPED.');

function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }): string {
  const result = spawnSync(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, encoding: 'utf8', timeout: HANG_GUARD_MS });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** The first ```js block of the SDK's README: the complete example. */
function readmeExample(): string {
  const readme = fs.readFileSync(path.join(SDK_DIR, 'README.md'), 'utf8');
  const example = /## Complete example[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!example) throw new Error('The SDK README has no complete example');
  return example;
}

describe.skipIf(!node && !IN_CI)(`the SDK tarball, installed into an empty project, on the machine's own Node (${node?.version ?? 'missing'})`, () => {
  let work: string;
  let project: string;
  let tarball: string;
  let server: ServerProcess;
  let keys: { kid: string; publicKeyPem: string }[];
  /** The machine the example's customer activated a TAN for. */
  let licensedMachine: string | undefined;

  beforeAll(async () => {
    if (!node) throw new Error('CI=true needs a Node outside node_modules on PATH (the machine runs the SDK with its own Node)');
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-sdk-package-'));
    const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], { cwd: SDK_DIR })) as { filename: string; files: { path: string }[] }[];
    tarball = path.join(work, packed[0].filename);
    project = path.join(work, 'vendor-app');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'vendor-app', private: true, type: 'module' }));
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: project });
    server = await startServerProcess({ env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } });
    keys = (await call(`${server.url}/api/client/v1/keys`)).body.keys;
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('holds compiled JavaScript, declarations, the README and the LICENSE, and no TypeScript sources', () => {
    const listing = run('tar', ['-tzf', tarball], { cwd: work }).split('\n').filter(Boolean).sort();
    expect(listing).toEqual(
      expect.arrayContaining(['package/LICENSE', 'package/README.md', 'package/package.json', 'package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/node.js', 'package/dist/node.d.ts']),
    );
    expect(listing.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
    const manifest = JSON.parse(fs.readFileSync(path.join(project, 'node_modules/@license-manager/sdk/package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@license-manager/sdk', version: expect.stringMatching(/^\d+\.\d+\.\d+/), license: 'Apache-2.0', type: 'module' });
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(fs.readFileSync(path.join(project, 'node_modules/@license-manager/sdk/LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0/);
  });

  it("runs the README's example: no license at first, licensed once the customer activated a TAN for the machine", async () => {
    const admin = await call(`${server.url}/api/session`, { body: { username: ADMIN.email, password: ADMIN.password } });
    expect(admin.status).toBe(200);
    const policies = await call(`${server.url}/api/license-policies?filter=SINGLE_HOST_INDEFINITE`, { cookie: admin.cookie });
    const policyId = policies.body.items.find((policy: { name: string }) => policy.name === 'SINGLE_HOST_INDEFINITE').id;
    for (const name of ['export-pdf', 'cloud-sync']) expect((await call(`${server.url}/api/features`, { cookie: admin.cookie, body: { name } })).status).toBe(201);
    const product = await call(`${server.url}/api/products`, {
      cookie: admin.cookie,
      body: { name: 'Studio Pro', version: '2.1', defaultLicensePolicyId: policyId, features: ['export-pdf', 'cloud-sync'] },
    });
    expect(product.status, JSON.stringify(product.body)).toBe(201);
    const tans = await call(`${server.url}/api/tans`, { cookie: admin.cookie, body: { productId: product.body.id, licenseCount: 1 } });
    expect(tans.status, JSON.stringify(tans.body)).toBe(201);

    // The example as printed, with this server's address and keys in place of the placeholders.
    const example = readmeExample()
      .replaceAll('https://licenses.example.com', server.url)
      .replace(/const PUBLIC_KEYS = \[[\s\S]*?\n\];/, `const PUBLIC_KEYS = ${JSON.stringify(keys.map(({ kid, publicKeyPem }) => ({ kid, publicKeyPem })))};`);
    expect(example).toContain(server.url);
    fs.writeFileSync(path.join(project, 'check-license.mjs'), example);
    const home = path.join(work, 'home');
    const runExample = () => run(node!.path, ['check-license.mjs'], { cwd: project, env: { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') } });

    const first = runExample();
    const machineId = /^No valid license \(NO_LICENSE\): .*Machine id: (\S+)$/m.exec(first)?.[1];
    expect(machineId, first).toBeTruthy();

    const created = runCli(['user:create', '--email', CUSTOMER.email, '--role', 'USER', '--password', CUSTOMER.password, '--first-name', 'Ada', '--last-name', 'Lovelace'], {
      env: { DATA_DIR: server.dataDir },
    });
    expect(created.status, created.stderr).toBe(0);
    const customer = await call(`${server.url}/api/session`, { body: { username: CUSTOMER.email, password: CUSTOMER.password } });
    const activation = await call(`${server.url}/api/licenses/activate`, { cookie: customer.cookie, body: { tan: tans.body.items[0].code, machineId } });
    expect(activation.status, JSON.stringify(activation.body)).toBe(201);
    licensedMachine = machineId;

    const second = runExample();
    expect(second).toMatch(/^Licensed to Ada Lovelace; features (export-pdf, cloud-sync|cloud-sync, export-pdf); file valid until \d{4}-\d\d-\d\dT/m);
    const stored = path.join(home, '.config/Studio Pro/licenses/license.json');
    expect(JSON.parse(fs.readFileSync(stored, 'utf8'))).toMatchObject({ alg: 'ed25519', kid: keys[0].kid });
  });

  it('type-checks in a TypeScript project without @types/node, for Node and for bundlers', () => {
    const source = [
      "import { LicenseClient, memoryStore, verifyLicenseFile, type LicenseStatus, type PublicKey } from '@license-manager/sdk';",
      "import { directoryStore, defaultLicenseDirectory } from '@license-manager/sdk/node';",
      'const keys: PublicKey[] = [];',
      "const client = new LicenseClient({ serverUrl: 'https://licenses.example.com', product: 'Studio Pro', machineId: 'M-1', publicKeys: keys, store: directoryStore(defaultLicenseDirectory('Studio Pro')) });",
      'const status: Promise<LicenseStatus> = client.check();',
      "void status; void memoryStore; void verifyLicenseFile('', keys);",
      '// @ts-expect-error: the status is checked before the license is read',
      'client.check().then((s) => s.license);',
    ].join('\n');
    fs.writeFileSync(path.join(project, 'app.ts'), source);
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    for (const [module, resolution] of [
      ['nodenext', 'nodenext'],
      ['esnext', 'bundler'],
    ]) {
      const options = { compilerOptions: { strict: true, noEmit: true, module, moduleResolution: resolution, target: 'es2022', lib: ['es2022', 'dom'], types: [], skipLibCheck: false }, files: ['app.ts'] };
      fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(options));
      run(PROJECT_NODE, [tsc, '-p', 'tsconfig.json'], { cwd: project });
    }
  });

  it('bundles for browsers without Node modules, and the bundle verifies a license from the server', async () => {
    fs.writeFileSync(path.join(project, 'browser-entry.js'), "export { LicenseClient, memoryStore, verifyLicenseFile } from '@license-manager/sdk';\n");
    await build({
      root: project,
      configFile: false,
      logLevel: 'silent',
      build: { lib: { entry: path.join(project, 'browser-entry.js'), formats: ['es'], fileName: 'sdk-browser' }, outDir: path.join(project, 'bundle'), minify: true },
    });
    const bundle = fs.readFileSync(path.join(project, 'bundle/sdk-browser.js'), 'utf8');
    expect(bundle).not.toMatch(/node:|require\(/);

    // The Node-only entry is refused when bundled for a browser, at build time.
    fs.writeFileSync(path.join(project, 'node-entry.js'), "export { directoryStore } from '@license-manager/sdk/node';\n");
    await expect(
      build({ root: project, configFile: false, logLevel: 'silent', build: { lib: { entry: path.join(project, 'node-entry.js'), formats: ['es'] }, outDir: path.join(project, 'bundle-node'), write: false } }),
    ).rejects.toThrow(/sdk\/node|\.\/node/);

    // The browser bundle is self-contained: with fetch and WebCrypto alone it fetches and verifies the license.
    expect(licensedMachine, 'the example test activated a license').toBeTruthy();
    const script = [
      "import { LicenseClient, memoryStore } from './bundle/sdk-browser.js';",
      `const client = new LicenseClient({ serverUrl: ${JSON.stringify(server.url)}, product: 'Studio Pro', machineId: ${JSON.stringify(licensedMachine)}, publicKeys: ${JSON.stringify(keys)}, store: memoryStore() });`,
      'const status = await client.check();',
      'console.log(JSON.stringify(status));',
    ].join('\n');
    fs.writeFileSync(path.join(project, 'browser-check.mjs'), script);
    const status = JSON.parse(run(node!.path, ['browser-check.mjs'], { cwd: project }));
    expect(status).toMatchObject({ valid: true, source: 'server', license: { machineId: licensedMachine, product: { name: 'Studio Pro', version: '2.1' } } });
  });
});
