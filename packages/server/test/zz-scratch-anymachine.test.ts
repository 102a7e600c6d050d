import type { AddressInfo } from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import { LicenseClient, memoryStore, type PublicKey } from '@license-manager/sdk';
import { client, describeBothDatabases, loggedIn } from './harness.ts';
import { activate, createTans, insertPolicy, insertProduct, type Client } from './licensing-test-data.ts';

describeBothDatabases('scratch: machine id *', (t) => {
  let admin: Client;
  let serverUrl: string;
  let publicKeys: PublicKey[];
  beforeAll(async () => {
    admin = client(t.app, (await loggedIn(t.app, 'ADMIN')).cookie);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    serverUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    publicKeys = ((await (await fetch(`${serverUrl}/api/client/v1/keys`)).json()) as { keys: PublicKey[] }).keys;
  });

  it('a customer binds a one-machine TAN to *', async () => {
    const product = await insertProduct(t.app);
    const policyId = await insertPolicy(t.app, { type: 'PERPETUAL' });
    const [tan] = await createTans(admin, { productId: product.id, licensePolicyId: policyId, licenseCount: 1 });
    const user = await loggedIn(t.app, 'USER');
    const api = client(t.app, user.cookie);
    const activated = await activate(api, tan.code, '*');
    console.log('activate', activated.statusCode, activated.body.slice(0, 200));
    const id = activated.json().id;
    const file = await api.get(`/api/licenses/${id}/file`, { query: { format: 'lic' } });
    console.log('download', file.statusCode, file.headers['content-disposition']);
    // Anonymous desktop protocol call with machineId * from anywhere
    const anon = await t.app.inject({ method: 'POST', url: '/api/client/v1/license', payload: { machineId: '*', product: product.name } });
    console.log('protocol *', anon.statusCode);
    // The SDK on two unrelated machines
    for (const machineId of ['PC-OF-ALICE', 'PC-OF-BOB']) {
      const sdk = new LicenseClient({ serverUrl, product: product.name, machineId, publicKeys, store: memoryStore() });
      const imported = await sdk.importFile(file.body);
      console.log(machineId, 'import', JSON.stringify(imported).slice(0, 160));
      const checked = await sdk.check();
      console.log(machineId, 'check', JSON.stringify(checked).slice(0, 120));
    }
    // Revoke it: the SDK keeps using it
    const revoke = await admin.put(`/api/licenses/${id}`, { body: { revoked: true } });
    console.log('revoke', revoke.statusCode);
    const sdk = new LicenseClient({ serverUrl, product: product.name, machineId: 'PC-OF-CAROL', publicKeys, store: memoryStore() });
    await sdk.importFile(file.body);
    const after = await sdk.refresh();
    console.log('after revoke', JSON.stringify(after).slice(0, 120));
    expect(activated.statusCode).toBe(201);
  });
});
