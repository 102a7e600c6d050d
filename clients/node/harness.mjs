/**
 * The harness CLI every client ships (DESIGN.md sections 6d and 6h, clients/kit/README.md):
 *   check --server URL --product NAME [--version V] --machine ID|auto --store DIR --keys FILE
 *         [--borrow-days N] [--release]
 *   request --product NAME [--version V] --machine ID --store DIR --out FILE
 *   import --file F --product NAME [--version V] --machine ID --store DIR --keys FILE
 *   deactivate --product NAME [--version V] --machine ID --store DIR --keys FILE --out FILE
 *   lease --server URL --product NAME [--version V] --key TAN --keys FILE --instance ID [--release]
 *   updates --server URL --product NAME --version V --machine ID --keys FILE --platform P --arch A
 *           [--channel stable|beta] [--out DIR]
 *   signin --server URL --product NAME [--version V] --machine ID|auto --store DIR --keys FILE
 *   signout --server URL --store DIR
 * signin (desktop sign-in, RFC 8628) prints { userCode, verificationUri, verificationUriComplete,
 * expiresIn, interval } at once, polls until approved, keeps the token in the store and then prints
 * the check's line; signout prints { signedOut } (exit 1 when there was no sign-in).
 * updates prints { latest, newer, reason, file, error } (clients/kit/README.md); check and import print one JSON line { valid, reason, licenseId, offline, expiresAt, entitlements?, metadata? }; request
 * and deactivate print { written, installKeyId[, licenseId] }; exit 0 valid/done, 1 not, 2 usage.
 * Test hook: LICENSE_HARNESS_CLOCK_OFFSET_SECONDS moves the client's clock (never the server's).
 */
import { readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
// The SDK compiled by ./harness into .build/ (the same sources as the published package).
import { checkForUpdate, downloadUpdate, featureValue, InstanceLease, LicenseClient, metadata, verifyLicenseFile } from './.build/index.js';
import { deactivationProof, directoryStore, installKey, licenseRequest, machineFingerprint } from './.build/node.js';

const USAGE = `usage: harness check --server URL --product NAME [--version V] --machine ID|auto --store DIR --keys FILE [--borrow-days N] [--release]
       harness request --product NAME [--version V] --machine ID --store DIR --out FILE
       harness import --file F --product NAME [--version V] --machine ID --store DIR --keys FILE
       harness deactivate --product NAME [--version V] --machine ID --store DIR --keys FILE --out FILE
       harness lease --server URL --product NAME [--version V] --key TAN --keys FILE --instance ID [--release]
       harness updates --server URL --product NAME --version V --machine ID --keys FILE --platform P --arch A [--channel stable|beta] [--out DIR]
       harness signin --server URL --product NAME [--version V] --machine ID|auto --store DIR --keys FILE
       harness signout --server URL --store DIR`;
const REQUIRED = {
  check: ['server', 'product', 'machine', 'store', 'keys'],
  request: ['product', 'machine', 'store', 'out'],
  import: ['file', 'product', 'machine', 'store', 'keys'],
  deactivate: ['product', 'machine', 'store', 'keys', 'out'],
  lease: ['server', 'product', 'key', 'keys', 'instance'],
  updates: ['server', 'product', 'version', 'machine', 'keys', 'platform', 'arch'],
  signin: ['server', 'product', 'machine', 'store', 'keys'],
  signout: ['server', 'store'],
};

function usage(problem) {
  process.stderr.write(`${problem ? `${problem}\n` : ''}${USAGE}\n`);
  process.exit(problem ? 2 : 0);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      server: { type: 'string' },
      product: { type: 'string' },
      version: { type: 'string' },
      machine: { type: 'string' },
      store: { type: 'string' },
      keys: { type: 'string' },
      file: { type: 'string' },
      out: { type: 'string' },
      key: { type: 'string' },
      instance: { type: 'string' },
      platform: { type: 'string' },
      arch: { type: 'string' },
      channel: { type: 'string', default: 'stable' },
      'borrow-days': { type: 'string' },
      release: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
} catch (error) {
  usage(error.message);
}
const { values, positionals } = parsed;
if (values.help) usage();
const command = positionals[0];
if (!REQUIRED[command] || positionals.length !== 1) usage('the commands are check, request, import, deactivate, lease, updates, signin and signout');
for (const name of REQUIRED[command]) if (!values[name]) usage(`--${name} is required`);
const borrowDays = values['borrow-days'] === undefined ? undefined : Number(values['borrow-days']);
if (borrowDays !== undefined && !(Number.isInteger(borrowDays) && borrowDays > 0)) usage('--borrow-days takes a whole number of days');
const offsetMs = Number(process.env.LICENSE_HARNESS_CLOCK_OFFSET_SECONDS ?? 0) * 1000;
const now = () => new Date(Date.now() + offsetMs);

if (command === 'lease') {
  // A process instance leasing a seat with the license key (no store: a container keeps nothing).
  const lease = new InstanceLease({
    serverUrl: values.server,
    licenseKey: values.key,
    product: values.product,
    version: values.version,
    instanceId: values.instance,
    publicKeys: JSON.parse(await readFile(values.keys, 'utf8')).keys,
  });
  if (values.release) {
    await lease.release();
    process.stdout.write(`${JSON.stringify({ valid: false, reason: null, licenseId: null, offline: false, expiresAt: null, released: true })}\n`);
    process.exit(0);
  }
  const status = await lease.renew();
  const line = status.valid
    ? { valid: true, reason: null, licenseId: status.license.licenseId, offline: false, expiresAt: status.license.expiresAt }
    : { valid: false, reason: status.reason, licenseId: null, offline: status.reason === 'UNREACHABLE', expiresAt: null };
  process.stdout.write(`${JSON.stringify(line)}\n`);
  if (!status.valid) process.stderr.write(`${status.message}\n`);
  process.exit(status.valid ? 0 : 1);
}

if (command === 'updates') {
  // The newest release the machine's license may have; with --out its first file for the platform,
  // kept (as its own name in DIR) only once size, SHA-256 and signature are right (DESIGN.md section 6i).
  const line = { latest: null, newer: null, reason: null, file: null, error: null };
  try {
    const publicKeys = JSON.parse(await readFile(values.keys, 'utf8')).keys;
    const update = await checkForUpdate({
      serverUrl: values.server,
      product: values.product,
      version: values.version,
      machineId: values.machine,
      platform: values.platform,
      arch: values.arch,
      channel: values.channel,
      publicKeys,
    });
    line.latest = update.latest?.version ?? null;
    line.newer = update.newer?.version ?? null;
    line.reason = update.newer?.reason ?? null;
    const artifact = update.latest?.artifacts[0];
    if (values.out && artifact) {
      const bytes = await downloadUpdate(artifact, publicKeys);
      line.file = path.join(values.out, path.basename(artifact.filename));
      await writeFile(line.file, bytes);
    }
  } catch (error) {
    line.error = error.code ?? 'ERROR';
    process.stderr.write(`${error.message}\n`);
  }
  process.stdout.write(`${JSON.stringify(line)}\n`);
  process.exit(line.error ? 1 : 0);
}

if (command === 'signout') {
  // Ends the desktop sign-in: only the server and the store are needed.
  const client = new LicenseClient({ serverUrl: values.server, product: values.product ?? '', machineId: values.machine ?? '', publicKeys: [], store: directoryStore(values.store) });
  const signedOut = await client.signOut();
  if (!signedOut) process.stderr.write('the store holds no sign-in\n');
  process.stdout.write(`${JSON.stringify({ signedOut })}\n`);
  process.exit(signedOut ? 0 : 1);
}

const machineId = values.machine === 'auto' ? await machineFingerprint(values.product) : values.machine;
const key = await installKey(values.store);

if (command === 'request') {
  await writeFile(values.out, licenseRequest(key, { product: values.product, version: values.version, machineId, now: now() }));
  process.stdout.write(`${JSON.stringify({ written: values.out, installKeyId: key.keyId })}\n`);
  process.exit(0);
}

const publicKeys = JSON.parse(await readFile(values.keys, 'utf8')).keys;

if (command === 'deactivate') {
  // The stored file of this installation for the machine and product: retired, and the proof written.
  for (const name of (await readdir(values.store)).filter((candidate) => /\.(json|lic)$/i.test(candidate))) {
    const file = path.join(values.store, name);
    const payload = await verifyLicenseFile(await readFile(file, 'utf8'), publicKeys).catch(() => null);
    if (!payload || payload.installKeyId !== key.keyId || payload.machineId !== machineId || payload.product.name !== values.product) continue;
    await writeFile(values.out, deactivationProof(key, { licenseId: payload.licenseId, machineId, fileIssuedAt: payload.issuedAt, now: now() }));
    await unlink(file);
    process.stdout.write(`${JSON.stringify({ written: values.out, installKeyId: key.keyId, licenseId: payload.licenseId })}\n`);
    process.exit(0);
  }
  process.stderr.write('no license file of this installation for this machine and product\n');
  process.stdout.write(`${JSON.stringify({ written: null, installKeyId: key.keyId, licenseId: null })}\n`);
  process.exit(1);
}

const client = new LicenseClient({
  serverUrl: values.server ?? 'http://127.0.0.1:9',
  product: values.product,
  version: values.version,
  machineId,
  publicKeys,
  store: directoryStore(values.store),
  borrowDays,
  installKeyId: key.keyId,
  now,
});

let status;
if (command === 'signin') {
  // The code goes out at once (a pipe's writes are synchronous on POSIX), then the polling.
  status = await client
    .signIn({
      onCode: (code) => {
        process.stdout.write(`${JSON.stringify(code)}\n`);
        process.stderr.write(`Open ${code.verificationUri} and enter ${code.userCode}\n`);
      },
    })
    .catch((error) => ({ valid: false, reason: 'UNREACHABLE', message: error.message, offline: false }));
} else status = command === 'import' ? await client.importFile(await readFile(values.file, 'utf8')) : await client.check();
if (values.release) await client.release().catch((error) => process.stderr.write(`release failed: ${error.message}\n`));
const line = status.valid
  ? {
      valid: true,
      reason: null,
      licenseId: status.license.licenseId,
      offline: status.offline,
      expiresAt: status.license.expiresAt,
      // Each feature's value through the SDK's featureValue, and its metadata (DESIGN.md section 6g).
      entitlements: Object.fromEntries(status.license.features.map((name) => [name, featureValue(status.license, name)])),
      metadata: metadata(status.license),
    }
  : { valid: false, reason: status.reason, licenseId: null, offline: status.offline === true, expiresAt: null };
process.stdout.write(`${JSON.stringify(line)}\n`);
if (!status.valid) process.stderr.write(`${status.message}\n`);
process.exit(status.valid ? 0 : 1);
