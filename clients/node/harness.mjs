/**
 * The harness CLI every client ships (DESIGN.md section 6d, clients/kit/README.md):
 *   check --server URL --product NAME [--version V] --machine ID|auto --store DIR --keys FILE
 *         [--borrow-days N] [--release]
 * prints one JSON line { valid, reason, licenseId, offline, expiresAt }; exit 0 valid, 1 not, 2 usage.
 * Test hook: LICENSE_HARNESS_CLOCK_OFFSET_SECONDS moves the client's clock (never the server's).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
// The SDK compiled by ./harness into .build/ (the same sources as the published package).
import { LicenseClient } from './.build/index.js';
import { directoryStore, machineFingerprint } from './.build/node.js';

const USAGE = 'usage: harness check --server URL --product NAME [--version V] --machine ID|auto --store DIR --keys FILE [--borrow-days N] [--release]';

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
if (positionals[0] !== 'check' || positionals.length !== 1) usage('the only command is check');
for (const name of ['server', 'product', 'machine', 'store', 'keys']) if (!values[name]) usage(`--${name} is required`);
const borrowDays = values['borrow-days'] === undefined ? undefined : Number(values['borrow-days']);
if (borrowDays !== undefined && !(Number.isInteger(borrowDays) && borrowDays > 0)) usage('--borrow-days takes a whole number of days');
const offsetMs = Number(process.env.LICENSE_HARNESS_CLOCK_OFFSET_SECONDS ?? 0) * 1000;

const publicKeys = JSON.parse(readFileSync(values.keys, 'utf8')).keys;
const machineId = values.machine === 'auto' ? await machineFingerprint(values.product) : values.machine;
const client = new LicenseClient({
  serverUrl: values.server,
  product: values.product,
  version: values.version,
  machineId,
  publicKeys,
  store: directoryStore(values.store),
  borrowDays,
  now: () => new Date(Date.now() + offsetMs),
});

const status = await client.check();
if (values.release) await client.release().catch((error) => process.stderr.write(`release failed: ${error.message}\n`));
const line = status.valid
  ? { valid: true, reason: null, licenseId: status.license.licenseId, offline: status.offline, expiresAt: status.license.expiresAt }
  : { valid: false, reason: status.reason, licenseId: null, offline: status.offline === true, expiresAt: null };
process.stdout.write(`${JSON.stringify(line)}\n`);
if (!status.valid) process.stderr.write(`${status.message}\n`);
process.exit(status.valid ? 0 : 1);
