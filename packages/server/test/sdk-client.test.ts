import type { AddressInfo } from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import { LicenseClient, memoryStore, type LicenseStatus, type PublicKey } from '@lm/sdk';
import { createUser, describeBothDatabases } from './harness.ts';
import { insertLicense, insertPolicy, insertProduct, insertTan, policyId, unique, updateLicense } from './licensing-fixtures.ts';

const valid = (status: LicenseStatus) => {
  if (!status.valid) throw new Error(`${status.reason}: ${status.message}`);
  return status;
};

/** The SDK against the server over HTTP: the protocol as the desktop software speaks it. */
describeBothDatabases('the SDK against the server', (t) => {
  let serverUrl: string;
  let publicKeys: PublicKey[];
  let ownerId: number;

  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    serverUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    publicKeys = ((await (await fetch(`${serverUrl}/api/client/v1/keys`)).json()) as { keys: PublicKey[] }).keys;
    ownerId = (await createUser(t.app)).id;
  });

  const clientFor = (machineId: string, product: string) => new LicenseClient({ serverUrl, product, machineId, publicKeys, store: memoryStore() });

  it('fetches and verifies a license, then learns of its revocation', async () => {
    const product = await insertProduct(t.app);
    const machineId = unique('sdk-machine');
    const id = await insertLicense(t.app, { ownerId, productId: product.id, policyId: await policyId(t.app, 'SINGLE_HOST_INDEFINITE'), machineId, permanent: true, kind: 'TAN' });
    const client = clientFor(machineId, product.name);
    const status = valid(await client.check());
    expect(status).toMatchObject({ source: 'server', offline: false, license: { licenseId: id, machineId } });
    expect(status.refreshAt).toEqual(new Date(Date.parse(status.license.issuedAt) + 86_400_000));
    expect(valid(await client.check()).source).toBe('store');

    await updateLicense(t.app, id, { revoked: true });
    const revoked = await client.refresh();
    expect(revoked).toMatchObject({ valid: false, reason: 'REVOKED' });
    expect(await client.check()).toMatchObject({ valid: false, reason: 'REVOKED' });
  });

  it('reports NO_LICENSE for an unknown machine', async () => {
    expect(await clientFor(unique('nobody'), 'Nothing').check()).toMatchObject({ valid: false, reason: 'NO_LICENSE' });
  });

  it('shares floating seats: releasing one lets the next machine in', async () => {
    const product = await insertProduct(t.app);
    const policy = await insertPolicy(t.app, { type: 'FLOATING', refetchIntervalSeconds: 900, refetchBeforeExpirySeconds: 3600 });
    const tanId = await insertTan(t.app, { productId: product.id, policyId: policy, licenseCount: 1 });
    const [first, second] = [unique('seat-a'), unique('seat-b')];
    for (const machineId of [first, second]) await insertLicense(t.app, { ownerId, productId: product.id, policyId: policy, machineId, tanId, permanent: true });
    const a = clientFor(first, product.name);
    const b = clientFor(second, product.name);
    expect(valid(await a.check()).license.policyType).toBe('FLOATING');
    expect(await b.check()).toMatchObject({ valid: false, reason: 'NO_SEAT' });
    await a.release();
    expect(valid(await b.check()).license.machineId).toBe(second);
  });
});
