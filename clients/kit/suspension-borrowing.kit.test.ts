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

  it('a machine that already holds its file borrows at once: a file that says borrowedUntil, not a 304', async () => {
    const { first } = await oneSeatForTwoMachines();
    const storeA = store();
    const held = await check(first, storeA);
    expect(held.status).toMatchObject({ valid: true, offline: false });
    // The floating lease: far shorter than a day, so only a borrowed file outlasts the next two days.
    expect(Date.parse(held.status.expiresAt!) - Date.now()).toBeLessThanOrEqual(DAY * 1000);
    // No refresh is due yet: the borrow alone makes the client ask, without If-None-Match.
    const borrowed = await check(first, storeA, { borrowDays: 3 });
    expect(borrowed.status).toMatchObject({ valid: true, offline: false });
    const runsFor = Date.parse(borrowed.status.expiresAt!) - Date.now();
    expect(runsFor).toBeGreaterThan(2.9 * DAY * 1000);
    expect(runsFor).toBeLessThanOrEqual(3 * DAY * 1000);

    await server.stop();
    try {
      expect((await check(first, storeA, { clockOffsetSeconds: 2 * DAY })).status).toMatchObject({ valid: true, offline: true });
      expect((await check(first, storeA, { clockOffsetSeconds: 4 * DAY })).status).toMatchObject({ valid: false, reason: 'EXPIRED' });
    } finally {
      await server.start();
    }
  });

  it('a borrowed seat stays borrowed across an online refresh: the refresh renews the borrow', async () => {
    const { first } = await oneSeatForTwoMachines();
    const storeA = store();
    const borrowed = await check(first, storeA, { borrowDays: 3 });
    expect(borrowed.status).toMatchObject({ valid: true, offline: false });
    expect(Date.parse(borrowed.status.expiresAt!) - Date.now()).toBeGreaterThan(2.9 * DAY * 1000);
    // 20 minutes on, the policy's 15-minute refresh is due with the server up: the refresh asks with
    // borrowDays (and the held file's ETag), so the server renews the borrow instead of answering the
    // short floating file, which would leave the machine without its borrow until the next check.
    const refreshed = await check(first, storeA, { borrowDays: 3, clockOffsetSeconds: 20 * 60 });
    expect(refreshed.status).toMatchObject({ valid: true, offline: false });
    const runsFor = Date.parse(refreshed.status.expiresAt!) - Date.now();
    expect(runsFor).toBeGreaterThan(2.9 * DAY * 1000);
    expect(runsFor).toBeLessThanOrEqual(3 * DAY * 1000);

    await server.stop();
    try {
      expect((await check(first, storeA, { borrowDays: 3, clockOffsetSeconds: 2 * DAY })).status).toMatchObject({ valid: true, offline: true });
    } finally {
      await server.start();
    }
  });

  it('more days than the policy allows: BORROW_NOT_ALLOWED with the server\'s message, the held file kept', async () => {
    const { first, second } = await oneSeatForTwoMachines();
    // Nothing held: refused all the same, not taken for an unreachable server.
    const nothingHeld = await check(second, store(), { borrowDays: 30 });
    expect(nothingHeld.status).toMatchObject({ valid: false, reason: 'BORROW_NOT_ALLOWED', offline: false, licenseId: null });
    expect(nothingHeld.exitCode).toBe(1);

    const storeA = store();
    const held = await check(first, storeA);
    expect(held.status.valid).toBe(true);
    const refused = await check(first, storeA, { borrowDays: 30 });
    expect(refused.status).toMatchObject({ valid: false, reason: 'BORROW_NOT_ALLOWED', offline: false });
    expect(refused.exitCode).toBe(1);
    // The harness prints the status's message on stderr: the server's own words.
    expect(refused.stderr).toContain('at most 7 days');
    // Only the borrow was refused, not the license: the machine's file still counts, from the store.
    await server.stop();
    try {
      expect((await check(first, storeA)).status).toMatchObject({ valid: true, licenseId: held.status.licenseId, expiresAt: held.status.expiresAt });
    } finally {
      await server.start();
    }
  });

  it('after a 304 the next refresh waits a full interval, in a new process too (confirmed.state)', async () => {
    // The catalogue's FLOATING policy: a refresh every 15 minutes, the file a 75-minute lease.
    const machine = unique('confirmed');
    await suite.catalogue.activate(machine, suite.catalogue.floating.id);
    const dir = store();
    expect((await check(machine, dir)).status).toMatchObject({ valid: true, offline: false });
    const confirmations = await server.protocolAnswers('304');
    // 20 minutes on the refresh is due: the server confirms the held file.
    expect((await check(machine, dir, { clockOffsetSeconds: 20 * 60 })).status).toMatchObject({ valid: true, offline: false });
    expect(await server.protocolAnswers('304')).toBe(confirmations + 1);

    await server.stop();
    try {
      // Confirmed 10 minutes ago: not due, so no request (the server being down goes unnoticed).
      expect((await check(machine, dir, { clockOffsetSeconds: 30 * 60 })).status).toMatchObject({ valid: true, offline: false });
      // A full interval after the confirmation: due again, and the server cannot be reached.
      expect((await check(machine, dir, { clockOffsetSeconds: 40 * 60 })).status).toMatchObject({ valid: true, offline: true });
    } finally {
      await server.start();
    }
  });
});
