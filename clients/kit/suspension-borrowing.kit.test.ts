/**
 * The kit's scenarios of the licensing model (DESIGN.md section 6, issue 37): TAN suspension
 * (`PUT /api/tans/{id} { suspended }` → `403 ERR_LICENSE_SUSPENDED`), floating activation that takes
 * no seat, and borrowing (`maxBorrowDays`, `borrowDays`).
 */
import { describe, expect, it } from 'vitest';
import { clientSuite, clientsWithHarness, DAY, HOUR, unique } from './support.ts';

describe.each(clientsWithHarness())('client %s: suspension, floating seats and borrowing', (client) => {
  const suite = clientSuite(client);
  const { server, store, check } = suite;

  it('suspension reaches the client at its next refresh: SUSPENDED; reinstating brings the license back', async () => {
    const machine = unique('suspended');
    const { id: tanId, code } = await suite.catalogue.tan(suite.catalogue.indefinite.id, 1);
    const license = await server.api<{ id: number }>('POST', '/api/licenses/activate', { tan: code, machineId: machine });
    const dir = store();
    expect((await check(machine, dir)).status).toMatchObject({ valid: true, licenseId: license.id });
    await server.api('PUT', `/api/tans/${tanId}`, { suspended: true });
    const suspended = await check(machine, dir, { clockOffsetSeconds: 2 * HOUR });
    expect(suspended.status).toMatchObject({ valid: false, reason: 'SUSPENDED' });
    expect(suspended.exitCode).toBe(1);
    await server.api('PUT', `/api/tans/${tanId}`, { suspended: false });
    expect((await check(machine, dir, { clockOffsetSeconds: 2 * HOUR })).status).toMatchObject({ valid: true, licenseId: license.id });
  });

  /** A FLOATING policy that lets machines borrow a seat for up to 7 days, and a one-seat TAN of it on two machines. */
  async function oneSeatForTwoMachines() {
    const policy = await server.api<{ id: number }>('POST', '/api/license-policies', {
      name: unique('Kit borrowing'),
      type: 'FLOATING',
      licenseMaxValidDays: 1,
      refetchIntervalSeconds: 15 * 60,
      refetchBeforeExpirySeconds: HOUR,
      maxDifferentMachinesCount: 100,
      maxDifferentMachinesIntervalHours: 24,
      maxBorrowDays: 7,
    });
    const { code } = await suite.catalogue.tan(policy.id, 1);
    const [first, second] = [unique('seat-a'), unique('seat-b')];
    // Floating activation registers the machine and takes no seat: both join a one-seat TAN.
    for (const machineId of [first, second]) await server.api('POST', '/api/licenses/activate', { tan: code, machineId });
    return { first, second };
  }

  it('floating seats through the API alone: NO_SEAT while taken, released at exit', async () => {
    const { first, second } = await oneSeatForTwoMachines();
    const [storeA, storeB] = [store(), store()];
    expect((await check(first, storeA)).status.valid).toBe(true);
    expect((await check(second, storeB)).status).toMatchObject({ valid: false, reason: 'NO_SEAT' });
    expect((await check(first, storeA, { release: true })).status.valid).toBe(true);
    expect((await check(second, storeB)).status.valid).toBe(true);
  });

  it('borrowing: a borrowed seat works offline for the days borrowed, stays taken, and is returned early', async () => {
    const { first, second } = await oneSeatForTwoMachines();
    const [storeA, storeB] = [store(), store()];
    const borrowed = await check(first, storeA, { borrowDays: 3 });
    expect(borrowed.status).toMatchObject({ valid: true, offline: false });
    const runsFor = Date.parse(borrowed.status.expiresAt!) - Date.now();
    expect(runsFor).toBeGreaterThan(2.9 * DAY * 1000);
    expect(runsFor).toBeLessThanOrEqual(3 * DAY * 1000);
    expect((await check(second, storeB)).status).toMatchObject({ valid: false, reason: 'NO_SEAT' });

    await server.stop();
    try {
      expect((await check(first, storeA, { clockOffsetSeconds: 2 * DAY })).status).toMatchObject({ valid: true, offline: true });
      expect((await check(first, storeA, { clockOffsetSeconds: 4 * DAY })).status).toMatchObject({ valid: false, reason: 'EXPIRED' });
    } finally {
      await server.start();
    }
    // Returned early: the other machine gets the seat at once.
    await check(first, storeA, { release: true });
    expect((await check(second, storeB)).status.valid).toBe(true);
  });

  it('more days than the policy allows are refused, never granted', async () => {
    const { first } = await oneSeatForTwoMachines();
    const result = await check(first, store(), { borrowDays: 30 });
    expect(result.status.valid).toBe(false);
    expect(result.exitCode).toBe(1);
  });
});
