import { describe, expect, it } from 'vitest';
import { describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { invariantsSetup, machine, RACERS, uniqueName, type Response } from './invariants-support.ts';
import { accepted, connect, DAY, id, sign, stripeInvoicePaid, unix } from './shop-support.ts';

const SECRET = 'whsec_test_edit_conflicts_0123456789';

/** The ETag of an answer, which must have one. */
function etagOf(response: Response): string {
  expect(response.statusCode, response.body).toBeLessThan(300);
  const etag = response.headers.etag;
  expect(typeof etag).toBe('string');
  return etag as string;
}

/** Asserts 412 ERR_EDIT_CONFLICT whose `current` and ETag are the record as its GET shows it now. */
async function expectConflict(response: Response, get: () => Promise<Response>): Promise<Record<string, unknown>> {
  const body = expectError(response, 412, 'ERR_EDIT_CONFLICT') as { current?: Record<string, unknown> };
  const now = await get();
  expect(body.current).toEqual(now.json());
  expect(response.headers.etag).toBe(now.headers.etag);
  return body.current!;
}

const ifMatch = (etag: string) => ({ 'if-match': etag });

/**
 * Issue 47: nobody's save undoes another's. A dialog sends If-Match with the ETag it loaded; what
 * changed meanwhile (a shop, another administrator, the customer) is answered 412 with the current
 * record, never silently reverted. Writers without If-Match (shops, integrations) work as before.
 */
describeBothDatabases('edit conflicts (If-Match, ETag)', (t) => {
  const s = invariantsSetup(t);

  async function stripeTan() {
    const product = await s.product();
    const price = id('price_');
    const connection = await connect(s.admin, { provider: 'stripe', secret: SECRET, mappings: [{ externalId: price, productId: product.id, seats: 1 }] });
    const subscription = id('sub_');
    const email = `${uniqueName('subscriber')}@example.com`;
    const first = stripeInvoicePaid({ subscription, price, email, machineId: machine(), periodEnd: unix(Date.now() + 5 * DAY) });
    const [made] = await accepted(t.app, connection.id, sign('stripe', SECRET, first.event));
    return { connection, subscription, price, email, tanId: made.tanIds[0] };
  }

  describe('TANs', () => {
    it('a Stripe renewal that arrived while the dialog was open is not rolled back by its save; the note applied again keeps it', async () => {
      const { connection, subscription, price, email, tanId } = await stripeTan();
      const get = () => s.admin.get(`/api/tans/${tanId}`);
      const opened = await get();
      const loaded = opened.json();
      const etag = etagOf(opened);
      const renewal = stripeInvoicePaid({ subscription, price, email, periodEnd: unix(Date.now() + 40 * DAY), created: unix() + 1 });
      await accepted(t.app, connection.id, sign('stripe', SECRET, renewal.event));
      // What the dialog used to send: every field as it loaded them.
      const { productId, licensePolicyId, licenseCount, distributorId, freeUpdatesUntil, tags, revoked, suspended, validUntil } = loaded;
      const stale = { productId, licensePolicyId, licenseCount, distributorId, freeUpdatesUntil, tags, revoked, suspended, validUntil, notes: 'called the customer' };
      const current = await expectConflict(await s.admin.put(`/api/tans/${tanId}`, { body: stale, headers: ifMatch(etag) }), get);
      expect(current.validUntil).not.toBe(validUntil);
      expect(current.notes).toBe(loaded.notes);
      // Applied again: only the note, with the current ETag.
      const saved = await s.admin.put(`/api/tans/${tanId}`, { body: { notes: 'called the customer' }, headers: ifMatch((await get()).headers.etag as string) });
      expect(saved.statusCode, saved.body).toBe(200);
      expect(saved.json()).toMatchObject({ notes: 'called the customer', validUntil: current.validUntil });
      expect(saved.headers.etag).toBe((await get()).headers.etag);
    });

    it('a suspension set by another writer is not lifted, and a revoked TAN is not un-revoked, by a stale dialog', async () => {
      const product = await s.product();
      const [tan] = await s.tans({ productId: product.id, licenseCount: 2 });
      const get = () => s.admin.get(`/api/tans/${tan.id}`);
      const opened = await get();
      const etag = etagOf(opened);
      // Another writer (an integration, no If-Match) suspends the TAN with an end date.
      expect((await s.admin.put(`/api/tans/${tan.id}`, { body: { suspended: true, validUntil: '2031-01-31' } })).statusCode).toBe(200);
      const current = await expectConflict(await s.admin.put(`/api/tans/${tan.id}`, { body: { suspended: false, validUntil: null, notes: 'x' }, headers: ifMatch(etag) }), get);
      expect(current).toMatchObject({ suspended: true, validUntil: '2031-01-31' });

      const revoking = etagOf(await get());
      expect((await s.admin.put(`/api/tans/${tan.id}`, { body: { revoked: true } })).statusCode).toBe(200);
      await expectConflict(await s.admin.put(`/api/tans/${tan.id}`, { body: { revoked: false, licenseCount: 3 }, headers: ifMatch(revoking) }), get);
      expect((await get()).json()).toMatchObject({ revoked: true, licenseCount: 2 });
      const customer = await s.customer();
      expect((await customer.api.post('/api/licenses/activate', { body: { tan: tan.code, machineId: machine() } })).statusCode).not.toBe(201);
    });

    it('`*` and no If-Match change it as before; a tag this server never made is stale', async () => {
      const product = await s.product();
      const [tan] = await s.tans({ productId: product.id });
      expect((await s.admin.put(`/api/tans/${tan.id}`, { body: { notes: 'a' }, headers: ifMatch('*') })).statusCode).toBe(200);
      expect((await s.admin.put(`/api/tans/${tan.id}`, { body: { notes: 'b' } })).statusCode).toBe(200);
      expectError(await s.admin.put(`/api/tans/${tan.id}`, { body: { notes: 'c' }, headers: ifMatch('"bogus"') }), 412, 'ERR_EDIT_CONFLICT');
      const weak = `W/${etagOf(await s.admin.get(`/api/tans/${tan.id}`))}`;
      expect((await s.admin.put(`/api/tans/${tan.id}`, { body: { notes: 'd' }, headers: ifMatch(`"other", ${weak}`) })).statusCode).toBe(200);
    });

    it(`of ${RACERS + 2} saves with the same If-Match exactly one wins`, async () => {
      const product = await s.product();
      const [tan] = await s.tans({ productId: product.id });
      const etag = etagOf(await s.admin.get(`/api/tans/${tan.id}`));
      const responses = await s.race(RACERS + 2, (i) => s.as(s.cookies.admin, i).put(`/api/tans/${tan.id}`, { body: { notes: `racer ${i}` }, headers: ifMatch(etag) }));
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses).toEqual([200, ...Array(RACERS + 1).fill(412)]);
      const winner = responses.find((response) => response.statusCode === 200)!;
      expect((await s.admin.get(`/api/tans/${tan.id}`)).json().notes).toBe(winner.json().notes);
    });

    it('a caller who may not see the TAN learns nothing from a stale If-Match', async () => {
      const product = await s.product();
      const [tan] = await s.tans({ productId: product.id });
      const customer = await s.customer();
      const distributor = s.as((await loggedIn(t.app, 'DISTRIBUTOR')).cookie);
      for (const caller of [customer.api, distributor]) {
        const response = await caller.put(`/api/tans/${tan.id}`, { body: { notes: 'mine' }, headers: ifMatch('"stale"') });
        expect([403, 404]).toContain(response.statusCode);
        expect(response.json().current).toBeUndefined();
      }
    });
  });

  describe('users', () => {
    it("a customer's withdrawn e-mail consent does not come back when an administrator saves a phone number", async () => {
      const customer = await s.customer();
      await customer.api.post(`/api/users/${customer.id}/consent/email`);
      const get = () => s.admin.get(`/api/users/${customer.id}`);
      const opened = await get();
      expect(opened.json().optInEmail).toBe(true);
      const etag = etagOf(opened);
      expect((await customer.api.delete(`/api/users/${customer.id}/consent/email`)).statusCode).toBe(200);
      const { firstName, lastName, optInEmail } = opened.json();
      const current = await expectConflict(await s.admin.put(`/api/users/${customer.id}`, { body: { firstName, lastName, optInEmail, phone: '+41 44 000 00 00' }, headers: ifMatch(etag) }), get);
      expect(current.optInEmail).toBe(false);
      const saved = await s.admin.put(`/api/users/${customer.id}`, { body: { phone: '+41 44 000 00 00' }, headers: ifMatch((await get()).headers.etag as string) });
      expect(saved.statusCode, saved.body).toBe(200);
      expect(saved.json()).toMatchObject({ phone: '+41 44 000 00 00', optInEmail: false });
      // Closing the account with a stale If-Match is refused too.
      expectError(await s.admin.delete(`/api/users/${customer.id}`, { headers: ifMatch(etag) }), 412, 'ERR_EDIT_CONFLICT');
      expect((await get()).statusCode).toBe(200);
    });
  });

  describe('licenses', () => {
    it('a revoked license is not un-revoked by a stale dialog, and a stale delete is refused', async () => {
      const product = await s.product();
      const [tan] = await s.tans({ productId: product.id });
      const customer = await s.customer();
      const machineId = machine();
      const activated = await customer.api.post('/api/licenses/activate', { body: { tan: tan.code, machineId } });
      expect(activated.statusCode, activated.body).toBe(201);
      const licenseId = (activated.json() as { id: number }).id;
      const get = () => s.admin.get(`/api/licenses/${licenseId}`);
      const etag = etagOf(await get());
      expect((await s.admin.put(`/api/licenses/${licenseId}`, { body: { revoked: true } })).statusCode).toBe(200);
      const current = await expectConflict(await s.admin.put(`/api/licenses/${licenseId}`, { body: { revoked: false, validUntil: null }, headers: ifMatch(etag) }), get);
      expect(current.revoked).toBe(true);
      // The desktop software's refresh still finds the license revoked.
      expectError(await s.as(null).post('/api/client/v1/license', { body: { machineId, product: product.name } }), 403, 'ERR_LICENSE_REVOKED');
      expectError(await s.admin.delete(`/api/licenses/${licenseId}`, { headers: ifMatch(etag) }), 412, 'ERR_EDIT_CONFLICT');
      expect((await s.admin.delete(`/api/licenses/${licenseId}`, { headers: ifMatch((await get()).headers.etag as string) })).statusCode).toBe(204);
    });
  });

  describe('the catalogue, shop connections and webhook endpoints', () => {
    /** Opened by two: the second one's change makes the first one's stale; the first's delete is refused too. */
    async function staleAfterAnotherChange(url: string, change: Record<string, unknown>, mine: Record<string, unknown>) {
      const get = () => s.admin.get(url);
      const etag = etagOf(await get());
      const changed = await s.admin.put(url, { body: change });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.headers.etag).toBe((await get()).headers.etag);
      const current = await expectConflict(await s.admin.put(url, { body: mine, headers: ifMatch(etag) }), get);
      expect(current).toMatchObject(change);
      expectError(await s.admin.delete(url, { headers: ifMatch(etag) }), 412, 'ERR_EDIT_CONFLICT');
      expect((await get()).statusCode).toBe(200);
    }

    it('a product', async () => {
      const product = await s.product();
      await staleAfterAnotherChange(`/api/products/${product.id}`, { notes: 'theirs' }, { notes: 'mine' });
    });

    it('a feature', async () => {
      const created = await s.admin.post('/api/features', { body: { name: uniqueName('FEATURE').toUpperCase().replace(/-/g, '_') } });
      expect(created.statusCode, created.body).toBe(201);
      await staleAfterAnotherChange(`/api/features/${created.json().id}`, { hidden: true }, { notes: 'mine' });
    });

    it('a license policy', async () => {
      const policyId = await s.policy();
      const get = () => s.admin.get(`/api/license-policies/${policyId}`);
      const etag = etagOf(await get());
      expect((await s.admin.put(`/api/license-policies/${policyId}`, { body: { notes: 'theirs' } })).statusCode).toBe(200);
      const current = await expectConflict(await s.admin.put(`/api/license-policies/${policyId}`, { body: { notes: 'mine' }, headers: ifMatch(etag) }), get);
      expect(current.notes).toBe('theirs');
    });

    it('a shop connection', async () => {
      const connection = await connect(s.admin, { provider: 'stripe', secret: SECRET, name: 'Before' });
      await staleAfterAnotherChange(`/api/shop-connections/${connection.id}`, { graceDays: 7 }, { name: 'Mine' });
    });

    it('a webhook endpoint', async () => {
      const created = await s.admin.post('/api/webhook-endpoints', { body: { url: 'https://example.com/hook', events: ['tan.created'], enabled: false } });
      expect(created.statusCode, created.body).toBe(201);
      await staleAfterAnotherChange(`/api/webhook-endpoints/${created.json().id}`, { description: 'theirs' }, { description: 'mine' });
    });
  });

  describe('settings', () => {
    it('PATCH changes only the keys given; a stale one is refused with the current settings; of many at once one wins', async () => {
      const get = () => s.admin.get('/api/settings');
      const before = await get();
      const etag = etagOf(before);
      const patched = await s.admin.patch('/api/settings', { body: { 'anylic.maxDays': 20 } });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json()).toMatchObject({ 'anylic.maxDays': 20, 'tan.maxLicenseCount': before.json()['tan.maxLicenseCount'] });
      const current = await expectConflict(await s.admin.patch('/api/settings', { body: { 'tan.maxLicenseCount': 77 }, headers: ifMatch(etag) }), get);
      expect(current['anylic.maxDays']).toBe(20);
      expectError(await s.admin.patch('/api/settings', { body: { 'anylic.maxDays': 'many' } }), 400, 'ERR_VALIDATION');
      expectError(await s.admin.patch('/api/settings', { body: { 'no.such.key': 1 } }), 404, 'ERR_NOT_FOUND');

      const fresh = (await get()).headers.etag as string;
      const responses = await s.race(RACERS + 2, (i) => s.as(s.cookies.admin, i).patch('/api/settings', { body: { 'tan.maxLicenseCount': 100 + i }, headers: ifMatch(fresh) }));
      expect(responses.map((response) => response.statusCode).sort()).toEqual([200, ...Array(RACERS + 1).fill(412)]);
    });

    it('is refused to a customer, a distributor and an anonymous caller', async () => {
      const customer = await s.customer();
      const distributor = s.as((await loggedIn(t.app, 'DISTRIBUTOR')).cookie);
      for (const caller of [customer.api, distributor]) expectError(await caller.patch('/api/settings', { body: {} }), 403, 'ERR_FORBIDDEN');
      expectError(await s.as(null).patch('/api/settings', { body: { 'anylic.maxDays': 3 } }), 401, 'ERR_UNAUTHENTICATED');
    });
  });

  it('the OpenAPI document describes If-Match on each versioned change and the ETag of its answers', async () => {
    const document = (await t.app.inject({ url: '/api/openapi.json' })).json() as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string; description?: string }[]; responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    };
    for (const [path, method] of [
      ['/tans/{id}', 'put'],
      ['/licenses/{id}', 'delete'],
      ['/users/{id}', 'put'],
      ['/settings', 'patch'],
      ['/webhook-endpoints/{id}', 'put'],
    ] as const) {
      const operation = document.paths[path][method];
      const header = operation.parameters?.find((parameter) => parameter.in === 'header' && parameter.name === 'if-match');
      expect(header?.description, `${method} ${path}`).toMatch(/ETag/);
      expect(operation.responses['412']).toBeDefined();
    }
    expect(document.paths['/tans/{id}'].get.responses['200'].headers).toHaveProperty('ETag');
    expect(document.paths['/tans/{id}'].put.responses['412'].headers).toHaveProperty('ETag');
  });
});
