/**
 * Entitlements, values and metadata (issue 51, DESIGN.md section 6g): the product's defaults, the
 * policy's, the TAN's and one license's grants reach the file, a change reaches the next conditional
 * refresh, bad input is refused field by field with nothing saved, and only administrators change a
 * license's entitlements.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyLicenseFile, type LicenseFileJson, type LicensePayload, type PublicKeyInfo } from '@lm/contract/license-file';
import { changesOf, createFeature, createPolicy, createProduct, policyInput } from './catalogue-fixtures.ts';
import { callersOfEachRole, client, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { unique } from './licensing-fixtures.ts';

describeBothDatabases('entitlements, values and metadata', (t) => {
  const callers = callersOfEachRole(t);
  let keys: PublicKeyInfo[];
  let maxProjects: string;
  let simulation: string;
  let edition: string;
  let cloud: string;

  beforeAll(async () => {
    keys = (await client(t.app).get('/api/client/v1/keys')).json().keys;
    maxProjects = (await createFeature(t.app, callers.cookies.ADMIN, { name: unique('MAX_PROJECTS'), valueType: 'integer' })).name;
    edition = (await createFeature(t.app, callers.cookies.ADMIN, { name: unique('EDITION'), valueType: 'string' })).name;
    cloud = (await createFeature(t.app, callers.cookies.ADMIN, { name: unique('CLOUD') })).name;
    const sync = (await createFeature(t.app, callers.cookies.ADMIN, { name: unique('SYNC') })).name;
    // A bundle: granting it grants what it expands to.
    simulation = (await createFeature(t.app, callers.cookies.ADMIN, { name: unique('SIMULATION'), expandToFeatures: [sync] })).name;
  });

  const ask = (machineId: string, product: string, etag?: string) =>
    client(t.app).post('/api/client/v1/license', { body: { machineId, product }, headers: etag ? { 'if-none-match': etag } : {} });

  async function fileOf(machineId: string, product: string, etag?: string): Promise<{ status: number; etag: string; payload?: LicensePayload }> {
    const response = await ask(machineId, product, etag);
    if (response.statusCode === 304) return { status: 304, etag: response.headers.etag as string };
    expect(response.statusCode, response.body).toBe(200);
    return { status: 200, etag: response.headers.etag as string, payload: await verifyLicenseFile(response.json() as LicenseFileJson, keys) };
  }

  /** Professional with MAX_PROJECTS=50, a TAN with metadata, activated on a machine. */
  async function sold() {
    const policy = await createPolicy(t.app, callers.cookies.ADMIN, { entitlements: [{ feature: edition, value: 'Professional' }] });
    const product = await createProduct(t.app, callers.cookies.ADMIN, { features: [maxProjects, cloud], featureValues: { [maxProjects]: 50 }, defaultLicensePolicyId: policy.id });
    const created = await callers.admin.post('/api/tans', { body: { productId: product.id, licenseCount: 1, metadata: { customer: 'ACME', _crm: '4711' } } });
    expect(created.statusCode, created.body).toBe(201);
    const tan = created.json().items[0] as { id: number; code: string };
    const owner = await loggedIn(t.app);
    const machineId = unique('machine');
    const activated = await client(t.app, owner.cookie).post('/api/licenses/activate', { body: { tan: tan.code, machineId } });
    expect(activated.statusCode, activated.body).toBe(201);
    return { product, tan, owner, machineId, licenseId: (activated.json() as { id: number }).id };
  }

  it('puts the resolved entitlements and the public metadata into the file', async () => {
    const { product, machineId } = await sold();
    const { payload } = await fileOf(machineId, product.name);
    expect(payload!.entitlements).toEqual({ [cloud]: true, [edition]: 'Professional', [maxProjects]: 50 });
    expect(payload!.features).toEqual(Object.keys(payload!.entitlements));
    expect(payload!.metadata).toEqual({ customer: 'ACME' });
    const download = await callers.admin.get(`/api/licenses/${(await sold()).licenseId}/file?format=json`);
    expect(download.statusCode, download.body).toBe(200);
  });

  it('delivers an add-on granted after the sale at the next conditional refresh, and keeps 304 until then', async () => {
    const { product, machineId, licenseId } = await sold();
    const held = await fileOf(machineId, product.name);
    expect((await fileOf(machineId, product.name, held.etag)).status).toBe(304);
    const granted = await callers.admin.put(`/api/licenses/${licenseId}/entitlements`, {
      body: { entitlements: [{ feature: simulation }, { feature: maxProjects, value: 80 }], metadata: { seats: 'crunch', _note: 'server only' } },
    });
    expect(granted.statusCode, granted.body).toBe(200);
    expect(granted.json().metadata).toEqual({ seats: 'crunch', _note: 'server only' });
    const next = await fileOf(machineId, product.name, held.etag);
    expect(next.status).toBe(200);
    const sync = Object.keys(next.payload!.entitlements).find((name) => name.startsWith('SYNC'));
    expect(sync).toBeDefined();
    expect(next.payload!.entitlements[simulation]).toBeUndefined();
    expect(next.payload!.entitlements[maxProjects]).toBe(80);
    expect(next.payload!.metadata).toEqual({ customer: 'ACME', seats: 'crunch' });
    // The change is logged on the license.
    expect(JSON.stringify(await changesOf(t.app, 'License', licenseId))).toContain('crunch');
  });

  it('passes a TAN change to its licenses', async () => {
    const { product, machineId, tan } = await sold();
    const held = await fileOf(machineId, product.name);
    const changed = await callers.admin.put(`/api/tans/${tan.id}`, { body: { entitlements: [{ feature: cloud }, { feature: maxProjects, value: 10 }], metadata: { customer: 'ACME AG' } } });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ entitlements: [{ feature: cloud, value: null }, { feature: maxProjects, value: 10 }], metadata: { customer: 'ACME AG' } });
    const next = await fileOf(machineId, product.name, held.etag);
    expect(next.payload!.entitlements[maxProjects]).toBe(10);
    expect(next.payload!.metadata).toEqual({ customer: 'ACME AG' });
  });

  describe('bad input: a field error, nothing saved', () => {
    it('refuses a value of the wrong type, an unknown feature, a value for a flag, metadata past its limits', async () => {
      const { licenseId } = await sold();
      const put = (body: unknown) => callers.admin.put(`/api/licenses/${licenseId}/entitlements`, { body });
      expect(expectError(await put({ entitlements: [{ feature: maxProjects, value: 'fifty' }] }), 400, 'ERR_VALIDATION').details).toEqual([
        expect.objectContaining({ path: 'entitlements.0.value', code: 'notInteger' }),
      ]);
      expect(expectError(await put({ entitlements: [{ feature: edition, value: 3 }] }), 400, 'ERR_VALIDATION').details?.[0]).toMatchObject({ path: 'entitlements.0.value', code: 'featureValueText' });
      expect(expectError(await put({ entitlements: [{ feature: cloud, value: 1 }] }), 400, 'ERR_VALIDATION').details?.[0]).toMatchObject({ path: 'entitlements.0.value', code: 'featureTakesNoValue' });
      expect(expectError(await put({ entitlements: [{ feature: cloud }, { feature: 'NO_SUCH_FEATURE' }] }), 400, 'ERR_UNKNOWN_FEATURE').details?.[0].path).toBe('entitlements.1.feature');
      expect(expectError(await put({ entitlements: [{ feature: cloud }, { feature: cloud }] }), 400, 'ERR_VALIDATION').details?.[0].path).toBe('entitlements.1.feature');
      expectError(await put({ metadata: { 'bad key': 'x' } }), 400, 'ERR_VALIDATION');
      expectError(await put({ metadata: { key: 'x'.repeat(501) } }), 400, 'ERR_VALIDATION');
      const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
      expectError(await put({ metadata: many }), 400, 'ERR_VALIDATION');
      const german = await callers.admin.put(`/api/licenses/${licenseId}/entitlements`, { body: { entitlements: [{ feature: cloud, value: 1 }] }, headers: { 'accept-language': 'de' } });
      expect(expectError(german, 400, 'ERR_VALIDATION').details?.[0].message).toBe('Dieses Feature ist ein Schalter und hat keinen Wert');
      const stored = (await callers.admin.get(`/api/licenses/${licenseId}/entitlements`)).json();
      expect(stored).toMatchObject({ entitlements: [], metadata: {} });
    });

    it('refuses wrong values on products, policies and TANs, and an overage not offered', async () => {
      const product = await callers.admin.post('/api/products', { body: { name: unique('P'), version: '1', features: [cloud], featureValues: { [cloud]: 3 }, defaultLicensePolicyId: 1 } });
      expect(expectError(product, 400, 'ERR_VALIDATION').details?.[0]).toMatchObject({ path: `featureValues.${cloud}`, code: 'featureTakesNoValue' });
      const outside = await callers.admin.post('/api/products', { body: { name: unique('P'), version: '1', features: [cloud], featureValues: { [maxProjects]: 3 }, defaultLicensePolicyId: 1 } });
      expect(expectError(outside, 400, 'ERR_VALIDATION').details?.[0].code).toBe('featureValueNotInProduct');
      const policy = await callers.admin.post('/api/license-policies', { body: { ...policyInput({ type: 'FLOATING' }), overagePercent: 15 } });
      expect(expectError(policy, 400, 'ERR_VALIDATION').details?.[0]).toMatchObject({ path: 'overagePercent', code: 'notAnOption' });
      const tan = await callers.admin.post('/api/tans', { body: { productId: (await sold()).product.id, licenseCount: 1, entitlements: [{ feature: maxProjects, value: 1.5 }] } });
      expectError(tan, 400, 'ERR_VALIDATION');
    });
  });

  describe('who may change them', () => {
    it('refuses the owner, a distributor and anonymous callers; the owner sees no server-only keys', async () => {
      const { licenseId, owner } = await sold();
      const body = { entitlements: [{ feature: cloud }] };
      expectError(await client(t.app, owner.cookie).put(`/api/licenses/${licenseId}/entitlements`, { body }), 403, 'ERR_FORBIDDEN');
      expectError(await callers.distributor.put(`/api/licenses/${licenseId}/entitlements`, { body }), 404, 'ERR_NOT_FOUND');
      expectError(await callers.user.put(`/api/licenses/${licenseId}/entitlements`, { body }), 404, 'ERR_NOT_FOUND');
      expectError(await callers.user.get(`/api/licenses/${licenseId}/entitlements`), 404, 'ERR_NOT_FOUND');
      expectError(await callers.anonymous.get(`/api/licenses/${licenseId}/entitlements`), 401, 'ERR_UNAUTHENTICATED');
      const own = await client(t.app, owner.cookie).get(`/api/licenses/${licenseId}/entitlements`);
      expect(own.statusCode).toBe(200);
      expect(own.json().tanMetadata).toEqual({ customer: 'ACME' });
      expect((await callers.admin.get(`/api/licenses/${licenseId}/entitlements`)).json().tanMetadata).toEqual({ customer: 'ACME', _crm: '4711' });
    });
  });
});
