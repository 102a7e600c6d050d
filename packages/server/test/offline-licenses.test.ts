/**
 * Offline activation and verifiable deactivation (DESIGN.md section 6h), through the API the portal
 * uses, on both databases: a request file proves its install key; the file is bound to it; a proof
 * frees the machine once, outside the machine-change window.
 */
import { beforeAll, expect, it } from 'vitest';
import { parseLicenseFile, verifyLicenseFile, type PublicKeyInfo } from '@lm/contract/license-file';
import { describeBothDatabases, expectError } from './harness.ts';
import { invariantsSetup, machine } from './invariants-support.ts';
import { installation } from './offline-support.ts';

describeBothDatabases('offline activation and deactivation', (t) => {
  const s = invariantsSetup(t);
  let keys: PublicKeyInfo[];
  let product: { id: number; name: string };
  beforeAll(async () => {
    keys = (await s.as(null).get('/api/client/v1/keys')).json().keys;
    // One machine per license in the window: a verified deactivation must not count against it.
    product = await s.product({ policyId: await s.policy({ type: 'PERPETUAL', maxDifferentMachinesCount: 1 }) });
  });
  const licensesOf = async (ownerId: number) => (await s.db().selectFrom('licenses').select('id').where('owner_id', '=', ownerId).execute()).length;

  it('activates from a request file with a TAN, binds the file to the install key, frees the machine with a proof once, and moves the license on', async () => {
    const customer = await s.customer();
    const [tan] = await s.tans({ productId: product.id });
    const pc = installation();
    const machineId = machine();
    const request = pc.request(product.name, machineId);

    const summary = await customer.api.post('/api/licenses/offline-request', { body: { request } });
    expect(summary.json()).toMatchObject({ product: product.name, machineId, installKeyId: pc.keyId });

    const answer = await customer.api.post('/api/licenses/offline-activation', { body: { request, tan: tan.code } });
    expect(answer.statusCode, answer.body).toBe(200);
    const payload = await verifyLicenseFile(parseLicenseFile(answer.body), keys);
    expect(payload).toMatchObject({ machineId, installKeyId: pc.keyId, product: { id: product.id } });
    const licenseId = payload.licenseId!;
    // Every later file of the license names the key too (the desktop protocol's).
    const refreshed = await s.as(null).post('/api/client/v1/license', { body: { machineId, product: product.name } });
    expect((await verifyLicenseFile(parseLicenseFile(refreshed.body), keys)).installKeyId).toBe(pc.keyId);

    // Refused: a proof by another installation, one older than the file, for another license.
    const other = installation();
    const proofBy = (text: string) => customer.api.post(`/api/licenses/${licenseId}/offline-deactivation`, { body: { proof: text } });
    expectError(await proofBy(pc.proof(licenseId, machineId, payload.issuedAt, { by: other.privateKey })), 422, 'ERR_INVALID_PROOF');
    expectError(await proofBy(pc.proof(licenseId, machineId, new Date(Date.parse(payload.issuedAt) - 60_000).toISOString())), 422, 'ERR_INVALID_PROOF');
    expectError(await proofBy(pc.proof(licenseId + 1000, machineId, payload.issuedAt)), 422, 'ERR_INVALID_PROOF');
    expectError(await proofBy(pc.proof(licenseId, machineId, payload.issuedAt).slice(0, 80)), 422, 'ERR_INVALID_PROOF');
    // Another account finds no such license; nobody signed in is refused.
    const stranger = await s.customer();
    expectError(await stranger.api.post(`/api/licenses/${licenseId}/offline-deactivation`, { body: { proof: pc.proof(licenseId, machineId, payload.issuedAt) } }), 404, 'ERR_NOT_FOUND');
    expect((await s.as(null).post(`/api/licenses/${licenseId}/offline-deactivation`, { body: { proof: pc.proof(licenseId, machineId, payload.issuedAt) } })).statusCode).toBe(401);

    const proof = pc.proof(licenseId, machineId, payload.issuedAt);
    const freed = await proofBy(proof);
    expect(freed.statusCode, freed.body).toBe(200);
    expect(freed.json().machineId).toBeNull();
    expectError(await proofBy(proof), 409, 'ERR_PROOF_USED');

    // The license moves at once to another offline machine, though the window allows one machine.
    const next = installation();
    const nextMachine = machine();
    const moved = await customer.api.post('/api/licenses/offline-activation', { body: { request: next.request(product.name, nextMachine), licenseId } });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(await verifyLicenseFile(parseLicenseFile(moved.body), keys)).toMatchObject({ licenseId, machineId: nextMachine, installKeyId: next.keyId });
  });

  it('refuses a truncated, re-signed, unknown-product or week-old request and an upload over 64 KB, changing nothing', async () => {
    const customer = await s.customer();
    const [tan] = await s.tans({ productId: product.id });
    const pc = installation();
    const activate = (request: string) => customer.api.post('/api/licenses/offline-activation', { body: { request, tan: tan.code } });
    const good = pc.request(product.name, machine());
    expectError(await activate(good.slice(0, good.length / 2)), 422, 'ERR_INVALID_REQUEST_FILE');
    expectError(await activate(pc.request(product.name, machine(), { by: installation().privateKey })), 422, 'ERR_INVALID_REQUEST_FILE');
    expectError(await activate(pc.request('No such product', machine())), 422, 'ERR_INVALID_REQUEST_FILE');
    expectError(await activate(pc.request(product.name, machine(), { createdAt: new Date(Date.now() - 8 * 86_400_000) })), 422, 'ERR_REQUEST_TOO_OLD');
    expectError(await customer.api.post('/api/licenses/offline-activation', { body: { request: good } }), 400, 'ERR_VALIDATION');
    expect((await activate('x'.repeat(70_000))).statusCode).toBe(413);
    expect(await licensesOf(customer.id)).toBe(0);
    expect((await activate(good)).statusCode).toBe(200);
  });
});
