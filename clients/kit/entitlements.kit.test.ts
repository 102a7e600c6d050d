/**
 * Entitlements after the sale (DESIGN.md section 6g): an add-on granted to one license reaches each
 * client at its next refresh, with the product's value and the license's metadata, read through the
 * client's own featureValue and metadata (the harness prints them); so does an add-on sold later
 * through a Stripe connection (a signed `checkout.session.completed` as Stripe sends it). That a file with an altered value
 * fails verification each client's unit tests prove on the shared vectors
 * (clients/test-vectors/files/license-entitlements-altered.json).
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clientSuite, clientsWithHarness, HOUR, unique } from './support.ts';

/** Every client's harness prints entitlements and metadata. */
const CLIENTS = clientsWithHarness();

describe.each(CLIENTS)('client %s', (client) => {
  const suite = clientSuite(client);
  const { server, store, check } = suite;

  it('sees an add-on granted after the sale at its next refresh, with values and metadata', async () => {
    const feature = (name: string, valueType: string) => server.api<{ name: string }>('POST', '/api/features', { name: unique(name), valueType });
    const maxProjects = (await feature('MAX_PROJECTS', 'integer')).name;
    const simulation = (await feature('SIMULATION', 'none')).name;
    const { product } = suite.catalogue;
    await server.api('PUT', `/api/products/${product.id}`, { features: [maxProjects], featureValues: { [maxProjects]: 50 } });
    const machine = unique('entitled');
    const id = await suite.catalogue.activate(machine);
    const dir = store();
    const sold = (await check(machine, dir)).status as { valid: boolean; entitlements?: Record<string, unknown>; metadata?: Record<string, string> };
    expect(sold).toMatchObject({ valid: true, entitlements: { [maxProjects]: 50 }, metadata: {} });
    expect(sold.entitlements![simulation]).toBeUndefined();

    await server.api('PUT', `/api/licenses/${id}/entitlements`, { entitlements: [{ feature: simulation }], metadata: { customer: 'ACME', _crm: '4711' } });
    const refreshed = (await check(machine, dir, { clockOffsetSeconds: 2 * HOUR })).status;
    expect(refreshed).toMatchObject({ valid: true, offline: false, entitlements: { [maxProjects]: 50, [simulation]: true }, metadata: { customer: 'ACME' } });
  });

  it('sees an add-on bought later through a Stripe connection at its next refresh, beside what it bought first', async () => {
    const feature = (name: string, valueType: string) => server.api<{ name: string }>('POST', '/api/features', { name: unique(name), valueType });
    const maxProjects = (await feature('MAX_PROJECTS', 'integer')).name;
    const simulation = (await feature('SIMULATION', 'none')).name;
    const { product } = suite.catalogue;
    await server.api('PUT', `/api/products/${product.id}`, { features: [maxProjects], featureValues: { [maxProjects]: 50 } });
    const secret = 'whsec_kit_add_on_0123456789';
    const [professional, addOn] = [unique('price_pro'), unique('price_sim')];
    const connection = await server.api<{ id: number }>('POST', '/api/shop-connections', {
      provider: 'stripe',
      name: unique('Kit Stripe'),
      secret,
      mappings: [
        { externalId: professional, productId: product.id },
        { externalId: addOn, productId: product.id, addOn: true, entitlements: [{ feature: simulation }] },
      ],
    });
    const email = `${unique('buyer')}@example.com`;
    const machine = unique('bought');
    /** A paid Stripe Checkout session for one price, signed as Stripe signs (`t=…,v1=` HMAC-SHA256 of `t.body`). */
    const checkout = async (price: string, machineId?: string) => {
      const body = JSON.stringify({
        id: unique('evt_'),
        object: 'event',
        type: 'checkout.session.completed',
        created: Math.floor(Date.now() / 1000),
        data: { object: { id: unique('cs_test_'), object: 'checkout.session', mode: 'payment', payment_status: 'paid', payment_intent: unique('pi_'), customer_details: { email, name: 'Ada Lovelace' }, metadata: { items: `${price}:1`, ...(machineId ? { machine_id: machineId } : {}) } } },
      });
      const t = Math.floor(Date.now() / 1000);
      const signature = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
      const response = await fetch(`${server.url}/api/webhooks/shop/${connection.id}`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': `t=${t},v1=${signature}` }, body });
      expect(response.status).toBe(200);
      return ((await response.json()) as { events: { outcome: string }[] }).events[0];
    };
    expect(await checkout(professional, machine)).toMatchObject({ outcome: 'processed' });
    const dir = store();
    expect((await check(machine, dir)).status).toMatchObject({ valid: true, entitlements: { [maxProjects]: 50 } });

    expect(await checkout(addOn)).toMatchObject({ outcome: 'processed' });
    const refreshed = (await check(machine, dir, { clockOffsetSeconds: 2 * HOUR })).status;
    expect(refreshed).toMatchObject({ valid: true, offline: false, entitlements: { [maxProjects]: 50, [simulation]: true } });
  });
});
