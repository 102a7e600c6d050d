/**
 * Conditional refresh of the desktop protocol (DESIGN.md section 6): every file answer has an ETag;
 * If-None-Match answers 304 without a body while the file is still right, and every change to what
 * the file says (or to whether it may be issued) gives a new file or the refusal on the next refresh.
 */
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { SERVER_TIME_SIGNATURE_PREFIX, verifyLicenseFile, type LicenseFileJson, type LicensePayload, type PublicKeyInfo } from '@lm/contract/license-file';
import { licenseFileTag } from '../src/modules/license-files/file-tag.ts';
import { rotateSigningKey, signingKeys } from '../src/platform/signing/keys.ts';
import { createFeature, createPolicy, createProduct } from './catalogue-fixtures.ts';
import { callersOfEachRole, client, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { flushLastSeen, flushSeatRenewals, insertLicense, insertPolicy, policyId, unique } from './licensing-fixtures.ts';

const DAY = 86_400_000;

describeBothDatabases('conditional refresh of the desktop protocol', (t) => {
  const callers = callersOfEachRole(t);
  const desktop = () => client(t.app);
  let keys: PublicKeyInfo[];

  beforeAll(async () => {
    keys = (await desktop().get('/api/client/v1/keys')).json().keys;
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const ask = (machineId: string, product: string, etag?: string) =>
    desktop().post('/api/client/v1/license', { body: { machineId, product }, headers: etag ? { 'if-none-match': etag } : {} });

  async function fileOf(machineId: string, product: string, etag?: string): Promise<{ etag: string; payload: LicensePayload; file: LicenseFileJson }> {
    const response = await ask(machineId, product, etag);
    expect(response.statusCode, response.body).toBe(200);
    const file = response.json() as LicenseFileJson;
    const header = response.headers.etag as string;
    expect(header).toBe(licenseFileTag(file.enc, (await verifyLicenseFile(file, keys)).issuedAt));
    return { etag: header, payload: await verifyLicenseFile(file, keys), file };
  }

  /** Expects a 304 naming the held file's tag (`sent` is the If-None-Match header, by default that tag). */
  async function expectUnchanged(machineId: string, product: string, etag: string, sent = etag): Promise<void> {
    const response = await ask(machineId, product, sent);
    expect(response.statusCode, response.body).toBe(304);
    expect(response.body).toBe('');
    expect(response.headers['content-length']).toBeUndefined();
    expect(response.headers.etag).toBe(etag);
  }

  /** A customer with a license of a product made through the API, and the file its machine holds. */
  async function licensed(options: { policy?: number; features?: string[] } = {}) {
    const owner = await loggedIn(t.app);
    const product = await createProduct(t.app, callers.cookies.ADMIN, { features: options.features ?? [] });
    const machineId = unique('machine');
    const policy = options.policy ?? (await policyId(t.app, 'SINGLE_HOST_INDEFINITE'));
    const licenseId = await insertLicense(t.app, { ownerId: owner.id, productId: product.id, policyId: policy, machineId, kind: 'TAN', permanent: true });
    const held = await fileOf(machineId, product.name);
    return { owner, product, machineId, licenseId, held };
  }

  it('answers 304 without a body and without signing while nothing changed, and again for the same file', async () => {
    const { product, machineId, held } = await licensed();
    const sign = vi.spyOn(signingKeys(t.app.ctx).current(), 'sign');
    await expectUnchanged(machineId, product.name, held.etag);
    await expectUnchanged(machineId, product.name, held.etag, `"something-else", W/${held.etag}`);
    // The License-Server-Time header is signed anew when a second passes (server-time.ts): not a file's signature.
    const fileSignatures = sign.mock.calls.filter(([message]) => !Buffer.from(message).toString('utf8').startsWith(SERVER_TIME_SIGNATURE_PREFIX));
    expect(fileSignatures).toEqual([]);
    sign.mockRestore();
  });

  it('answers a new file for a tag it did not make, or one for another file', async () => {
    const { product, machineId, held } = await licensed();
    await fileOf(machineId, product.name, '"not-a-tag"');
    await fileOf(machineId, product.name, '*');
    const other = await licensed();
    await fileOf(machineId, product.name, other.held.etag);
    // A tag claiming an issue time in the future is no file this server issued.
    const future = held.etag.replace(/-([0-9a-z]+)-/, `-${(Date.now() + DAY).toString(36)}-`);
    await fileOf(machineId, product.name, future);
  });

  it('gives a new file once half of the validity has passed, and 304 before', async () => {
    const { product, machineId, held } = await licensed();
    const issued = Date.parse(held.payload.issuedAt);
    const validity = Date.parse(held.payload.expiresAt!) - issued;
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(issued + validity * 0.45);
    await expectUnchanged(machineId, product.name, held.etag);
    vi.setSystemTime(issued + validity * 0.55);
    const renewed = await fileOf(machineId, product.name, held.etag);
    expect(Date.parse(renewed.payload.issuedAt)).toBe(issued + validity * 0.55);
  });

  it('gives a new file when the license, its owner, its product, a feature, its policy, the server customer id or the key changed', async () => {
    const feature = await createFeature(t.app, callers.cookies.ADMIN);
    // INDEFINITE policies are not created by people (only the built-in one exists), but can be edited.
    const policy = { id: await insertPolicy(t.app, { type: 'INDEFINITE', licenseMaxValidDays: 30, refetchIntervalSeconds: 86400, refetchBeforeExpirySeconds: 86400 }) };
    const { owner, product, machineId, licenseId, held } = await licensed({ policy: policy.id, features: [feature.name] });
    const admin = callers.admin;
    let etag = held.etag;
    /** Applies a change, then expects the next refresh to bring a new file that shows it. */
    const expectNewFile = async (change: () => Promise<unknown>, shows: (payload: LicensePayload) => void) => {
      await expectUnchanged(machineId, product.name, etag);
      await change();
      const next = await fileOf(machineId, product.name, etag);
      shows(next.payload);
      expect(next.etag).not.toBe(etag);
      etag = next.etag;
      await expectUnchanged(machineId, product.name, etag);
    };

    await expectNewFile(
      () => admin.put(`/api/licenses/${licenseId}`, { body: { permanent: false, validUntil: new Date(Date.now() + 400 * DAY).toISOString().slice(0, 10) } }),
      (payload) => expect(payload.permanent).toBe(false),
    );
    await expectNewFile(
      async () => expect((await admin.put(`/api/users/${owner.id}`, { body: { firstName: 'Renamed' } })).statusCode).toBe(200),
      (payload) => expect(payload.owner.name).toContain('Renamed'),
    );
    await expectNewFile(
      () => admin.put(`/api/products/${product.id}`, { body: { version: '1.1' } }),
      (payload) => expect(payload.product.version).toBe('1.1'),
    );
    const second = await createFeature(t.app, callers.cookies.ADMIN);
    await expectNewFile(
      () => admin.put(`/api/products/${product.id}`, { body: { features: [feature.name, second.name] } }),
      (payload) => expect(payload.features).toEqual([feature.name, second.name].sort()),
    );
    await expectNewFile(
      () => admin.put(`/api/features/${second.id}`, { body: { name: `${second.name}-renamed` } }),
      (payload) => expect(payload.features).toContain(`${second.name}-renamed`),
    );
    await expectNewFile(
      () => admin.put(`/api/license-policies/${policy.id}`, { body: { refetchIntervalSeconds: 3600 } }),
      (payload) => expect(payload.refetchIntervalSeconds).toBe(3600),
    );
    await expectNewFile(
      () => admin.put(`/api/license-policies/${policy.id}`, { body: { licenseMaxValidDays: 10 } }),
      (payload) => expect(Date.parse(payload.expiresAt!) - Date.parse(payload.issuedAt)).toBe(10 * DAY),
    );
    const customerId = unique('customer');
    await expectNewFile(
      () => admin.put('/api/settings/SERVER_CUSTOMER_ID', { body: { value: customerId } }),
      (payload) => expect(payload.serverCustomerId).toBe(customerId),
    );
    let newKid = '';
    await expectNewFile(
      async () => {
        newKid = (await rotateSigningKey(t.app.ctx, t.app.ctx.config)).kid;
        await signingKeys(t.app.ctx).reload();
        keys = (await desktop().get('/api/client/v1/keys')).json().keys;
      },
      (payload) => expect(payload.kid).toBe(newKid),
    );
  });

  it('moves, machine changes and revocations reach the next refresh', async () => {
    const moved = await licensed();
    const recipient = await loggedIn(t.app);
    expect((await callers.admin.put(`/api/users/${recipient.id}`, { body: { firstName: 'Recipient', lastName: 'Account' } })).statusCode).toBe(200);
    expect((await client(t.app, moved.owner.cookie).post(`/api/licenses/${moved.licenseId}/move`, { body: { email: recipient.email } })).statusCode).toBe(200);
    const afterMove = await fileOf(moved.machineId, moved.product.name, moved.held.etag);
    expect(afterMove.payload.owner.name).toBe('Recipient Account');

    const rebound = await licensed();
    const newMachine = unique('new-machine');
    expect((await client(t.app, rebound.owner.cookie).put(`/api/licenses/${rebound.licenseId}/machine`, { body: { machineId: newMachine } })).statusCode).toBe(200);
    expectError(await ask(rebound.machineId, rebound.product.name, rebound.held.etag), 404, 'ERR_NO_LICENSE');
    expect((await fileOf(newMachine, rebound.product.name, rebound.held.etag)).payload.machineId).toBe(newMachine);

    const revoked = await licensed();
    expect((await callers.admin.put(`/api/licenses/${revoked.licenseId}`, { body: { revoked: true } })).statusCode).toBe(200);
    expectError(await ask(revoked.machineId, revoked.product.name, revoked.held.etag), 403, 'ERR_LICENSE_REVOKED');
  });

  async function floatingLicense() {
    const policy = await createPolicy(t.app, callers.cookies.ADMIN, {
      type: 'FLOATING',
      publicName: { en: 'Floating' },
      licenseMaxValidDays: 1,
      refetchIntervalSeconds: 900,
      refetchBeforeExpirySeconds: 3600,
      maxDifferentMachinesCount: 50,
    });
    const licensedFloating = await licensed({ policy: policy.id });
    const lease = async () =>
      (await t.app.ctx.db.selectFrom('floating_seats').select('leased_until').where('license_id', '=', licensedFloating.licenseId).executeTakeFirstOrThrow()).leased_until;
    return { ...licensedFloating, lease };
  }

  it('renews a floating seat on a 304, the write following the answer', async () => {
    const { product, machineId, held, lease } = await floatingLicense();
    const first = await lease();
    // The lease already covers the held file: the file's expiry is the lease's end.
    expect(first).toBe(held.payload.expiresAt);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse(held.payload.issuedAt) + 15 * 60_000);
    await expectUnchanged(machineId, product.name, held.etag);
    await flushSeatRenewals(t.app);
    expect(Date.parse(await lease()) - Date.parse(first)).toBe(15 * 60_000);
  });

  /** A floating license whose machine got a 304 ten minutes after its file was issued (the clock then stays there). */
  async function floatingAfterA304() {
    vi.useRealTimers();
    const license = await floatingLicense();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse(license.held.payload.issuedAt) + 10 * 60_000);
    await expectUnchanged(license.machineId, license.product.name, license.held.etag);
    return license;
  }

  it('lets a release, a revocation or a new file made after a 304 win over the renewal written behind it', async () => {
    const released = await floatingAfterA304();
    expect((await desktop().delete('/api/client/v1/license', { body: { machineId: released.machineId, product: released.product.name } })).statusCode).toBe(204);
    const ended = await released.lease();
    await flushSeatRenewals(t.app);
    expect(await released.lease()).toBe(ended);
    expect(Date.parse(ended)).toBeLessThanOrEqual(Date.now());

    const revoked = await floatingAfterA304();
    expect((await callers.admin.put(`/api/licenses/${revoked.licenseId}`, { body: { revoked: true } })).statusCode).toBe(200);
    const revokedLease = await revoked.lease();
    await flushSeatRenewals(t.app);
    expect(await revoked.lease()).toBe(revokedLease);
    expect(Date.parse(revokedLease)).toBeLessThanOrEqual(Date.now());

    // A new file (a refresh without the tag) leases further than the renewal decided earlier: it is not shortened.
    const refreshed = await floatingAfterA304();
    vi.setSystemTime(Date.parse(refreshed.held.payload.issuedAt) + 20 * 60_000);
    const newer = await fileOf(refreshed.machineId, refreshed.product.name);
    await flushSeatRenewals(t.app);
    expect(await refreshed.lease()).toBe(newer.payload.expiresAt);
  });

  it('takes the seat again on a 304 when the machine no longer holds it', async () => {
    const { product, machineId, held, lease } = await floatingLicense();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse(held.payload.issuedAt) + 5 * 60_000);
    expect((await desktop().delete('/api/client/v1/license', { body: { machineId, product: product.name } })).statusCode).toBe(204);
    vi.setSystemTime(Date.parse(held.payload.issuedAt) + 10 * 60_000);
    await expectUnchanged(machineId, product.name, held.etag);
    // Taken at once, in the answer's own transaction: the lease lies ahead before any flush.
    expect(Date.parse(await lease())).toBe(Date.now() + 75 * 60_000);
  });

  it('writes last seen at most once per machine and day', async () => {
    const { product, machineId, licenseId, held } = await licensed();
    await flushLastSeen(t.app);
    const seen = () => t.app.ctx.db.selectFrom('license_last_seen').select('last_seen_at').where('license_id', '=', licenseId).executeTakeFirstOrThrow();
    const first = (await seen()).last_seen_at;
    await expectUnchanged(machineId, product.name, held.etag);
    await flushLastSeen(t.app);
    expect((await seen()).last_seen_at).toBe(first);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse(first) + DAY);
    await expectUnchanged(machineId, product.name, held.etag);
    await flushLastSeen(t.app);
    expect((await seen()).last_seen_at.slice(0, 10)).toBe(new Date(Date.parse(first) + DAY).toISOString().slice(0, 10));
  });
});
