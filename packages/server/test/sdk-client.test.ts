import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { LicenseClient, memoryStore, type LicenseStatus, type PublicKey } from '@license-manager/sdk';
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

describeBothDatabases('the SDK refreshes conditionally', (t) => {
  let serverUrl: string;
  let publicKeys: PublicKey[];
  let ownerId: number;
  const answers: number[] = [];
  afterEach(() => {
    vi.useRealTimers();
  });

  beforeAll(async () => {
    t.app.addHook('onResponse', async (request, reply) => {
      if (request.url === '/api/client/v1/license') answers.push(reply.statusCode);
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    serverUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    publicKeys = ((await (await fetch(`${serverUrl}/api/client/v1/keys`)).json()) as { keys: PublicKey[] }).keys;
    ownerId = (await createUser(t.app)).id;
  });

  it('sends the ETag of its file, keeps the file on 304, and counts the next refresh from the confirmation', async () => {
    const product = await insertProduct(t.app);
    const policy = await insertPolicy(t.app, { type: 'FLOATING', licenseMaxValidDays: 1, refetchIntervalSeconds: 900, refetchBeforeExpirySeconds: 3600 });
    const machineId = unique('sdk-conditional');
    await insertLicense(t.app, { ownerId, productId: product.id, policyId: policy, machineId, permanent: true, kind: 'TAN' });
    // The server's clock and the client's move together.
    vi.useFakeTimers({ toFake: ['Date'] });
    const client = new LicenseClient({ serverUrl, product: product.name, machineId, publicKeys, store: memoryStore() });
    const first = valid(await client.check());
    const issued = Date.parse(first.license.issuedAt);
    expect(answers.at(-1)).toBe(200);

    // 15 minutes on (the refetch interval) the server confirms the file: same file, next check in 15 minutes.
    vi.setSystemTime(issued + 15 * 60_000);
    const confirmed = valid(await client.check());
    expect(answers.at(-1)).toBe(304);
    expect(confirmed).toMatchObject({ source: 'server', offline: false });
    expect(confirmed.license.issuedAt).toBe(first.license.issuedAt);
    expect(confirmed.refreshAt).toEqual(new Date(issued + 30 * 60_000));
    expect(valid(await client.check()).source).toBe('store');

    // At 30 minutes half of the 75-minute lease is still left: confirmed again, next at its middle.
    vi.setSystemTime(issued + 30 * 60_000);
    expect(valid(await client.check()).refreshAt).toEqual(new Date(issued + 37.5 * 60_000));
    expect(answers.at(-1)).toBe(304);

    // From the middle of its validity on, the server signs a new file.
    vi.setSystemTime(issued + 37.5 * 60_000);
    const renewed = valid(await client.check());
    expect(answers.at(-1)).toBe(200);
    expect(renewed.license.issuedAt).not.toBe(first.license.issuedAt);
  });
});
