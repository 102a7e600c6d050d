/**
 * Entitlements after the sale (DESIGN.md section 6g): an add-on granted to one license reaches each
 * client at its next refresh, with the product's value and the license's metadata, read through the
 * client's own featureValue and metadata (the harness prints them). That a file with an altered value
 * fails verification each client's unit tests prove on the shared vectors
 * (clients/test-vectors/files/license-entitlements-altered.json).
 */
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
});
