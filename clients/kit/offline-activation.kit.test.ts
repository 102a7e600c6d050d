/**
 * The kit's air-gapped scenarios (DESIGN.md section 6h), for every client whose harness offers
 * `request`, `import` and `deactivate`: request file → the portal's API → a file bound to the
 * install key works offline; the same file in another installation is refused; the deactivation
 * proof frees the machine once.
 */
import fs from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientSuite, clientsWithCommands, clientsWithHarness, runHarness, unique } from './support.ts';

const run = (client: string, args: string[]) => runHarness(client, args);

/** The clients whose harness usage names the offline commands. */
const clients = clientsWithCommands('request', 'deactivate');

it('every client with a harness speaks the offline commands (request, deactivate, lease)', () => {
  expect(clients).toEqual(clientsWithHarness());
  if (process.env.CI === 'true') expect(clients).toEqual(['c', 'java', 'node', 'python']);
});

describe.runIf(clients.length > 0).each(clients)('client %s: air-gapped sites and containers', (client) => {
  const suite = clientSuite(client);
  const { server, store, work } = suite;

  it('request → portal → bound file works offline; refused in another installation; the proof frees the machine once', async () => {
    const machine = unique('air-gapped');
    const product = suite.catalogue.product.name;
    const dir = store();
    const requestFile = path.join(work, unique('request'));
    const requested = await run(client, ['request', '--product', product, '--machine', machine, '--store', dir, '--out', requestFile]);
    expect(requested.exitCode).toBe(0);

    // The portal's page calls this with the request's text (upload or paste) and a TAN.
    const { code } = await suite.catalogue.tan(suite.catalogue.indefinite.id);
    const file = await server.api<object>('POST', '/api/licenses/offline-activation', { request: fs.readFileSync(requestFile, 'utf8'), tan: code });
    const licenseFile = path.join(work, unique('license'));
    fs.writeFileSync(licenseFile, JSON.stringify(file));

    const common = ['--product', product, '--machine', machine, '--keys', suite.keys];
    const imported = await run(client, ['import', '--file', licenseFile, '--store', dir, ...common]);
    expect(imported.line).toMatchObject({ valid: true });
    const licenseId = imported.line.licenseId as number;
    // Offline: no server at this address.
    const offline = await run(client, ['check', '--server', 'http://127.0.0.1:9', '--store', dir, ...common]);
    expect(offline.line).toMatchObject({ valid: true, licenseId });

    const elsewhere = await run(client, ['import', '--file', licenseFile, '--store', store(), ...common]);
    expect(elsewhere.line).toMatchObject({ valid: false, reason: 'INVALID_FILE' });

    const proofFile = path.join(work, unique('proof'));
    const deactivated = await run(client, ['deactivate', '--store', dir, '--out', proofFile, ...common]);
    expect(deactivated.line).toMatchObject({ licenseId });
    expect((await run(client, ['check', '--server', 'http://127.0.0.1:9', '--store', dir, ...common])).line).toMatchObject({ valid: false });
    const proof = fs.readFileSync(proofFile, 'utf8');
    const freed = await server.api<{ machineId: string | null }>('POST', `/api/licenses/${licenseId}/offline-deactivation`, { proof });
    expect(freed.machineId).toBeNull();
    await expect(server.api('POST', `/api/licenses/${licenseId}/offline-deactivation`, { proof })).rejects.toThrow(/409.*ERR_PROOF_USED/);
  });

  it('instance leases: 3 instances on 2 seats, a killed one (no DELETE) frees its seat once its lease lapses, a clean exit at once', async () => {
    const policy = await server.api<{ id: number }>('POST', '/api/license-policies', {
      name: unique('Kit instances'),
      type: 'FLOATING',
      licenseMaxValidDays: 1,
      refetchIntervalSeconds: 15 * 60,
      refetchBeforeExpirySeconds: 3600,
      maxDifferentMachinesCount: 100,
      maxDifferentMachinesIntervalHours: 24,
      leaseMode: 'INSTANCE',
      leaseTtlSeconds: 60,
    });
    const { id: tanId, code } = await suite.catalogue.tan(policy.id, 2);
    const lease = (instance: string, release = false) =>
      run(client, ['lease', '--server', server.url, '--product', suite.catalogue.product.name, '--key', code, '--keys', suite.keys, '--instance', instance, ...(release ? ['--release'] : [])]);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => unique(`instance-${name}`));
    expect((await lease(a)).line).toMatchObject({ valid: true });
    expect((await lease(b)).line).toMatchObject({ valid: true });
    expect((await lease(c)).line).toMatchObject({ valid: false, reason: 'NO_SEAT' });
    // Instance a was killed: its lease's time to live passes (moved back in the server's database instead of waited for).
    const db = new DatabaseSync(path.join(server.dataDir, 'license-manager.db'));
    try {
      db.prepare('update instance_leases set leased_until = ? where tan_id = ? and instance_id = ?').run(new Date(Date.now() - 1000).toISOString(), tanId, a);
    } finally {
      db.close();
    }
    expect((await lease(c)).line).toMatchObject({ valid: true });
    expect((await lease(d)).line).toMatchObject({ valid: false, reason: 'NO_SEAT' });
    // A clean exit frees the seat at once.
    await lease(b, true);
    expect((await lease(d)).line).toMatchObject({ valid: true });
  });
});
