/**
 * Writes the shared test vectors of the clients (README.md beside this file): license files and
 * time tokens signed with the fixed test key in this folder, a tampered copy of each, and what every
 * client must make of them (expected.json). Ed25519 is deterministic, so running it again writes the
 * same bytes; `--check` fails when the folder differs from what it would write.
 *
 *   node clients/test-vectors/generate.ts [--check]
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const DIR = import.meta.dirname;
const check = process.argv.includes('--check');
const written: Record<string, string> = {};

/** The fixed key pair: made once and committed (test use only: it signs nothing real). */
function keyPair(name: string): { privateKey: KeyObject; publicKey: KeyObject; kid: string; publicKeyPem: string } {
  const file = path.join(DIR, name);
  if (!fs.existsSync(file)) {
    if (check) throw new Error(`${name} is missing`);
    fs.writeFileSync(file, generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }));
  }
  const privateKey = createPrivateKey(fs.readFileSync(file, 'utf8'));
  const publicKey = createPublicKey(privateKey);
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return { privateKey, publicKey, kid: createHash('sha256').update(der).digest('hex').slice(0, 16), publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

const key = keyPair('test-private-key.pem');
/** A second key that no client pins: its files and tokens are signed by an unknown key. */
const stranger = keyPair('stranger-private-key.pem');

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const signed = (prefix: string, enc: string, signer = key) => sign(null, Buffer.from(prefix + enc, 'utf8'), signer.privateKey).toString('base64');

function licenseFile(payload: Record<string, unknown>, signer = key) {
  const enc = b64(JSON.stringify({ ...payload, kid: signer.kid }));
  return { enc, sig: signed('license/', enc, signer), alg: 'ed25519', kid: signer.kid };
}
const jsonText = (file: object) => `${JSON.stringify(file)}\n`;
function licText(file: object): string {
  const body = b64(JSON.stringify(file)).match(/.{1,64}/g)!.join('\n');
  return `-----BEGIN LICENSE FILE-----\n${body}\n-----END LICENSE FILE-----\n`;
}
/** The ETag the server gives a file (docs/license-files.md). */
function etag(file: { enc: string }, issuedAt: string): string {
  const hash = createHash('sha256').update(file.enc, 'utf8').digest('base64url').slice(0, 22);
  return `"lm1-${Date.parse(issuedAt).toString(36)}-${hash}"`;
}
/** One character of the base64 payload changed (to another base64 character): still well-formed, no longer genuine. */
function tamperedEnc(file: { enc: string; sig: string; alg: string; kid: string }) {
  const at = Math.floor(file.enc.length / 2);
  const swapped = file.enc[at] === 'A' ? 'B' : 'A';
  return { ...file, enc: file.enc.slice(0, at) + swapped + file.enc.slice(at + 1) };
}
function timeToken(t: number, signer = key, prefix = 'time/'): string {
  const enc = b64(JSON.stringify({ t, kid: signer.kid }));
  return `${enc}.${signed(prefix, enc, signer)}`;
}
function write(name: string, text: string) {
  written[name] = text;
}

const ISSUED = '2026-01-01T00:00:00.000Z';
const EXPIRES = '2026-01-31T00:00:00.000Z';
const payload = {
  formatVersion: 1,
  licenseId: 42,
  kind: 'TAN',
  policyType: 'INDEFINITE',
  product: { id: 3, name: 'Studio', version: '2.0' },
  features: ['export:pdf', 'print'],
  machineId: 'VECTOR-MACHINE-1',
  owner: { name: 'Ada Lovelace', company: 'Analytical Engines Ltd' },
  issuedAt: ISSUED,
  expiresAt: EXPIRES,
  licenseValidUntil: null,
  permanent: true,
  freeUpdatesUntil: '2027-01-01',
  refetchIntervalSeconds: 86_400,
  refetchBeforeExpirySeconds: 604_800,
  serverCustomerId: 'vector-vendor',
};
const anyLicPayload = { ...payload, licenseId: null, kind: 'ANYLIC', policyType: null, machineId: '*', issuedAt: ISSUED, expiresAt: '2026-07-01T00:00:00.000Z', refetchIntervalSeconds: 0, refetchBeforeExpirySeconds: 0 };
const perpetualPayload = { ...payload, licenseId: 43, policyType: 'PERPETUAL', expiresAt: null, refetchIntervalSeconds: 604_800, refetchBeforeExpirySeconds: 2_592_000 };

/** DESIGN.md section 6g: an edition's value, an add-on granted after the sale, metadata. */
const entitledPayload = {
  ...payload,
  licenseId: 44,
  features: ['EDITION', 'MAX_PROJECTS', 'SIMULATION', 'export:pdf'],
  entitlements: { EDITION: 'Professional', MAX_PROJECTS: 50, SIMULATION: true, 'export:pdf': true },
  metadata: { customer: 'ACME', region: 'EU' },
};
const entitled = licenseFile(entitledPayload);
/** The entitled file with MAX_PROJECTS raised to 500 in its payload, the genuine signature kept: must not verify. */
const altered = { ...entitled, enc: b64(Buffer.from(entitled.enc, 'base64').toString('utf8').replace('"MAX_PROJECTS":50', '"MAX_PROJECTS":500')) };

const genuine = licenseFile(payload);
const files = {
  'license.json': jsonText(genuine),
  'license.lic': licText(genuine),
  'license-perpetual.json': jsonText(licenseFile(perpetualPayload)),
  'anylic.lic': licText(licenseFile(anyLicPayload)),
  'license-tampered.json': jsonText(tamperedEnc(genuine)),
  'license-tampered.lic': licText(tamperedEnc(genuine)),
  'license-unknown-key.json': jsonText(licenseFile(payload, stranger)),
  'license-wrong-prefix.json': jsonText({ ...genuine, sig: signed('time/', genuine.enc) }),
  'license-entitlements.json': jsonText(entitled),
  'license-entitlements-altered.json': jsonText(altered),
};
for (const [name, text] of Object.entries(files)) write(`files/${name}`, text);

write('keys.json', `${JSON.stringify({ keys: [{ kid: key.kid, alg: 'ed25519', publicKeyPem: key.publicKeyPem, createdAt: '2025-12-01T00:00:00.000Z' }] }, null, 2)}\n`);

const T = Date.parse('2026-01-15T12:00:00.000Z') / 1000;
const validToken = timeToken(T);
const [tokenEnc] = validToken.split('.');
const tamperedToken = `${b64(JSON.stringify({ t: T + 86_400 * 365, kid: key.kid }))}.${validToken.split('.')[1]}`;

const expected = {
  description: 'What every client must make of the files and tokens in this folder, with keys.json pinned. See README.md.',
  kid: key.kid,
  files: [
    { name: 'files/license.json', valid: true, etag: etag(genuine, ISSUED), payload: { ...payload, kid: key.kid } },
    { name: 'files/license.lic', valid: true, etag: etag(genuine, ISSUED), payload: { ...payload, kid: key.kid } },
    { name: 'files/license-perpetual.json', valid: true, etag: etag(licenseFile(perpetualPayload), ISSUED), payload: { ...perpetualPayload, kid: key.kid } },
    { name: 'files/anylic.lic', valid: true, etag: etag(licenseFile(anyLicPayload), ISSUED), payload: { ...anyLicPayload, kid: key.kid } },
    { name: 'files/license-tampered.json', valid: false, problem: 'BAD_SIGNATURE' },
    { name: 'files/license-tampered.lic', valid: false, problem: 'BAD_SIGNATURE' },
    { name: 'files/license-unknown-key.json', valid: false, problem: 'UNKNOWN_KEY' },
    { name: 'files/license-wrong-prefix.json', valid: false, problem: 'BAD_SIGNATURE' },
    { name: 'files/license-entitlements.json', valid: true, etag: etag(entitled, ISSUED), payload: { ...entitledPayload, kid: key.kid } },
    { name: 'files/license-entitlements-altered.json', valid: false, problem: 'BAD_SIGNATURE', note: 'MAX_PROJECTS 50 changed to 500 in the payload' },
  ],
  /**
   * What hasFeature, featureValue and metadata answer for files/license-entitlements.json (a flag's
   * value is true; an absent feature has none), and for files/license.json, which has no
   * entitlements (a feature listed in `features` is there, as a flag; metadata empty).
   */
  entitlements: [
    {
      name: 'files/license-entitlements.json',
      hasFeature: { EDITION: true, MAX_PROJECTS: true, SIMULATION: true, 'export:pdf': true, print: false },
      featureValue: { EDITION: 'Professional', MAX_PROJECTS: 50, SIMULATION: true, print: null },
      metadata: { customer: 'ACME', region: 'EU' },
    },
    { name: 'files/license.json', hasFeature: { print: true, SIMULATION: false }, featureValue: { print: true, SIMULATION: null }, metadata: {} },
  ],
  timeTokens: [
    { value: validToken, valid: true, t: T, kid: key.kid, payloadJson: Buffer.from(tokenEnc!, 'base64').toString('utf8') },
    { value: tamperedToken, valid: false, problem: 'BAD_SIGNATURE', note: 't moved a year ahead, signature of the genuine token kept' },
    { value: timeToken(T, stranger), valid: false, problem: 'UNKNOWN_KEY' },
    { value: timeToken(T, key, 'license/'), valid: false, problem: 'BAD_SIGNATURE', note: 'signed without the time/ prefix' },
    { value: 'not-a-token', valid: false, problem: 'MALFORMED' },
  ],
  /**
   * The status of files/license.json (issued 2026-01-01, expires 2026-01-31) for a local clock and
   * the highest trusted time a client keeps, tolerance 48 hours: expiry is judged against the later
   * of the two, and a local clock more than the tolerance behind the trusted time is CLOCK_TAMPERED.
   */
  clock: [
    { local: '2026-01-10T00:00:00.000Z', trusted: '2026-01-01T00:00:00.000Z', expect: 'VALID' },
    { local: '2026-02-01T00:00:00.000Z', trusted: '2026-01-01T00:00:00.000Z', expect: 'EXPIRED' },
    { local: '2026-01-29T00:00:00.000Z', trusted: '2026-02-01T00:00:00.000Z', expect: 'CLOCK_TAMPERED' },
    { local: '2026-01-10T00:00:00.000Z', trusted: '2026-01-11T23:00:00.000Z', expect: 'VALID' },
    { local: '2026-01-30T00:00:00.000Z', trusted: '2026-01-31T12:00:00.000Z', expect: 'EXPIRED' },
  ],
  toleranceHours: 48,
};
write('expected.json', `${JSON.stringify(expected, null, 2)}\n`);

let differs = 0;
for (const [name, text] of Object.entries(written)) {
  const file = path.join(DIR, name);
  if (check) {
    if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) {
      console.error(`${name} differs from what generate.ts writes`);
      differs++;
    }
  } else {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
}
if (differs) process.exit(1);
console.log(check ? 'The test vectors are up to date.' : `Wrote ${Object.keys(written).length} files to ${DIR}`);
