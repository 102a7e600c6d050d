/**
 * Add-ons sold through a shop after the sale (issue 51, DESIGN.md section 6g), on SQLite and
 * PostgreSQL: a mapping marked as an add-on makes no TAN; its grants go to the TANs of the product the
 * buyer holds and reach the file at the next conditional refresh; a refund takes them away again and
 * brings back what they replaced; an add-on bought before its license waits for a replay; bad
 * mappings are refused field by field with nothing saved.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyLicenseFile, type LicenseFileJson, type LicensePayload, type PublicKeyInfo } from '@lm/contract/license-file';
import { createFeature, createProduct } from './catalogue-fixtures.ts';
import { callersOfEachRole, client, describeBothDatabases, expectError } from './harness.ts';
import { unique } from './licensing-fixtures.ts';
import { accepted, connect, id, sign, stripeCheckout, stripeEvent } from './shop-support.ts';

const SECRET = 'shop-add-on-secret-0123456789';

describeBothDatabases('shop add-ons', (t) => {
  const callers = callersOfEachRole(t);
  let keys: PublicKeyInfo[];
  let maxProjects: string;
  let simulation: string;

  beforeAll(async () => {
    keys = (await client(t.app).get('/api/client/v1/keys')).json().keys;
    maxProjects = (await createFeature(t.app, callers.cookies.ADMIN, { name: unique('MAX_PROJECTS'), valueType: 'integer' })).name;
    simulation = (await createFeature(t.app, callers.cookies.ADMIN, { name: unique('SIMULATION') })).name;
  });

  async function fileOf(machineId: string, product: string, etag?: string): Promise<{ status: number; etag: string; payload?: LicensePayload }> {
    const response = await client(t.app).post('/api/client/v1/license', { body: { machineId, product }, headers: etag ? { 'if-none-match': etag } : {} });
    if (response.statusCode === 304) return { status: 304, etag: response.headers.etag as string };
    expect(response.statusCode, response.body).toBe(200);
    return { status: 200, etag: response.headers.etag as string, payload: await verifyLicenseFile(response.json() as LicenseFileJson, keys) };
  }

  /** "Professional" (MAX_PROJECTS 50 by default) and its "Simulation" add-on (raises MAX_PROJECTS to 100), sold in Stripe. */
  async function professionalShop() {
    const product = await createProduct(t.app, callers.cookies.ADMIN, { features: [maxProjects], featureValues: { [maxProjects]: 50 } });
    const [professional, addOn] = [id('price_'), id('price_')];
    const connection = await connect(callers.admin, {
      provider: 'stripe',
      secret: SECRET,
      mappings: [
        { externalId: professional, productId: product.id },
        { externalId: addOn, productId: product.id, addOn: true, entitlements: [{ feature: simulation }, { feature: maxProjects, value: 100 }] },
      ],
    });
    const buy = async (price: string, email: string, machineId?: string) => {
      const event = stripeCheckout({ price, email, machineId });
      const [result] = await accepted(t.app, connection.id, sign('stripe', SECRET, event));
      return { event, result };
    };
    return { product, connection, professional, addOn, buy };
  }

  it('an add-on bought later reaches the buyer’s file at its next refresh; its refund takes it away and restores what it raised', async () => {
    const { product, connection, professional, addOn, buy } = await professionalShop();
    const email = `${unique('ada')}@example.com`;
    const machineId = unique('machine');
    const base = await buy(professional, email, machineId);
    expect(base.result).toMatchObject({ outcome: 'processed', lines: [{ effect: 'made' }] });
    const held = await fileOf(machineId, product.name);
    expect(held.payload!.entitlements).toEqual({ [maxProjects]: 50 });

    // The same buyer, the address written with capitals this time.
    const bought = await buy(addOn, email.replace('ada', 'Ada').toUpperCase());
    expect(bought.result).toMatchObject({ outcome: 'processed', tanIds: base.result.tanIds, lines: [{ externalId: addOn, tanId: base.result.tanIds[0], effect: 'added' }] });
    const next = await fileOf(machineId, product.name, held.etag);
    expect(next.status).toBe(200);
    expect(next.payload!.entitlements).toEqual({ [maxProjects]: 100, [simulation]: true });
    const tan = await callers.admin.get(`/api/tans/${base.result.tanIds[0]}`);
    expect(tan.json().entitlements).toEqual([
      { feature: simulation, value: null },
      { feature: maxProjects, value: 100 },
    ]);

    // Delivered again: nothing is added twice.
    const again = await accepted(t.app, connection.id, sign('stripe', SECRET, bought.event));
    expect(again[0]).toMatchObject({ duplicate: true });

    const refund = stripeEvent('charge.refunded', { id: id('ch_'), object: 'charge', refunded: true, payment_intent: (bought.event.data.object as { payment_intent: string }).payment_intent });
    const [refunded] = await accepted(t.app, connection.id, sign('stripe', SECRET, refund));
    expect(refunded).toMatchObject({ outcome: 'processed', lines: [{ externalId: addOn, tanId: base.result.tanIds[0], effect: 'removed' }] });
    const after = await fileOf(machineId, product.name, next.etag);
    expect(after.status).toBe(200);
    expect(after.payload!.entitlements).toEqual({ [maxProjects]: 50 });
    expect((await callers.admin.get(`/api/tans/${base.result.tanIds[0]}`)).json()).toMatchObject({ revoked: false, entitlements: [] });
  });

  it('an add-on in the same cart as its license goes to the TAN made with it', async () => {
    const { product, connection, professional, addOn } = await professionalShop();
    const machineId = unique('machine');
    const event = stripeCheckout({ price: professional, email: `${unique('cart')}@example.com`, machineId });
    (event.data.object as { metadata: { items: string } }).metadata.items = `${professional}:1,${addOn}:1`;
    const [result] = await accepted(t.app, connection.id, sign('stripe', SECRET, event));
    expect(result.outcome).toBe('processed');
    expect(result.lines.map((line) => line.effect)).toEqual(['made', 'added']);
    expect((await fileOf(machineId, product.name)).payload!.entitlements).toEqual({ [maxProjects]: 100, [simulation]: true });
  });

  it('an add-on before any license of the buyer fails with its reason, and a replay once they have one adds it', async () => {
    const { product, connection, professional, addOn, buy } = await professionalShop();
    const email = `${unique('early')}@example.com`;
    const early = await buy(addOn, email);
    expect(early.result).toMatchObject({ outcome: 'failed', reason: `no-base-license:${product.name}`, lines: [{ externalId: addOn, tanId: null, effect: 'needs-license' }] });
    const machineId = unique('machine');
    await buy(professional, email, machineId);
    const replayed = await callers.admin.post(`/api/shop-connections/${connection.id}/events/${early.event.id}/replay`);
    expect(replayed.statusCode, replayed.body).toBe(200);
    expect(replayed.json()).toMatchObject({ outcome: 'processed', lines: [{ effect: 'added' }] });
    expect((await fileOf(machineId, product.name)).payload!.entitlements[simulation]).toBe(true);
  });

  it('a license mapping with grants makes TANs that carry them', async () => {
    const product = await createProduct(t.app, callers.cookies.ADMIN, { features: [maxProjects], featureValues: { [maxProjects]: 50 } });
    const price = id('price_');
    const connection = await connect(callers.admin, { provider: 'stripe', secret: SECRET, mappings: [{ externalId: price, productId: product.id, entitlements: [{ feature: maxProjects, value: 200 }] }] });
    const machineId = unique('machine');
    await accepted(t.app, connection.id, sign('stripe', SECRET, stripeCheckout({ price, email: `${unique('team')}@example.com`, machineId })));
    expect((await fileOf(machineId, product.name)).payload!.entitlements).toEqual({ [maxProjects]: 200 });
    const shown = await callers.admin.get(`/api/shop-connections/${connection.id}`);
    expect(shown.json().mappings).toEqual([{ externalId: price, productId: product.id, licensePolicyId: null, seats: 1, addOn: false, entitlements: [{ feature: maxProjects, value: 200 }] }]);
  });

  describe('bad mappings are refused field by field, nothing saved', () => {
    const attempt = async (mapping: Record<string, unknown>) => {
      const product = await createProduct(t.app, callers.cookies.ADMIN, { features: [maxProjects] });
      const name = unique('Refused shop');
      const response = await callers.admin.post('/api/shop-connections', { body: { provider: 'stripe', name, secret: SECRET, mappings: [{ externalId: 'price_x', productId: product.id, ...mapping }] } });
      const list = await callers.admin.get('/api/shop-connections');
      expect(list.json().items.some((connection: { name: string }) => connection.name === name)).toBe(false);
      return response;
    };

    it('an add-on without features', async () => {
      const error = expectError(await attempt({ addOn: true }), 400, 'ERR_VALIDATION');
      expect(error.details).toEqual([expect.objectContaining({ path: 'mappings.0.entitlements' })]);
    });

    it('an unknown feature', async () => {
      const error = expectError(await attempt({ addOn: true, entitlements: [{ feature: 'NO_SUCH_FEATURE_XYZ' }] }), 400, 'ERR_UNKNOWN_FEATURE');
      expect(error.details).toEqual([expect.objectContaining({ path: 'mappings.0.entitlements.0.feature' })]);
    });

    it('a value of the wrong type', async () => {
      const error = expectError(await attempt({ addOn: true, entitlements: [{ feature: maxProjects, value: 'many' }] }), 400, 'ERR_VALIDATION');
      expect(error.details).toEqual([expect.objectContaining({ path: 'mappings.0.entitlements.0.value' })]);
    });
  });

  it('only administrators map add-ons', async () => {
    const body = { provider: 'stripe', name: unique('Shop'), secret: SECRET, mappings: [] };
    expectError(await callers.distributor.post('/api/shop-connections', { body }), 403, 'ERR_FORBIDDEN');
    expectError(await callers.user.post('/api/shop-connections', { body }), 403, 'ERR_FORBIDDEN');
  });
});
