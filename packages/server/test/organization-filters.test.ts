import { expect, it } from 'vitest';
import { client, createUser, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { insertLicense, insertPolicy, insertProduct, insertTan } from './licensing-fixtures.ts';

/**
 * Staff see the organization on licenses, TANs and accounts, and filter the lists by it (issue 50,
 * DESIGN.md section 6f); a distributor's view stays its own TANs and licenses, customers are refused.
 */
describeBothDatabases('staff lists by organization', (t) => {
  type Row = { id: number; organization: { id: number; name: string } | null };

  async function organization(name: string) {
    const owner = await loggedIn(t.app);
    const created = await client(t.app, owner.cookie).post('/api/organizations', { body: { name } });
    expect(created.statusCode, created.body).toBe(201);
    return { owner, id: (created.json() as { id: number }).id, name };
  }

  /** A TAN of a distributor claimed by an organization (or none), and a license activated from it. */
  async function owned(org: { id: number } | null, distributorId: number, ownerId: number) {
    const product = await insertProduct(t.app);
    const policyId = await insertPolicy(t.app, { type: 'PERPETUAL' });
    const tanId = await insertTan(t.app, { productId: product.id, policyId, licenseCount: 3, distributorId });
    const licenseId = await insertLicense(t.app, { ownerId, productId: product.id, policyId, tanId, machineId: `machine-${tanId}` });
    const organizationId = org?.id ?? null;
    await t.app.ctx.db.updateTable('tans').set({ organization_id: organizationId }).where('id', '=', tanId).execute();
    await t.app.ctx.db.updateTable('licenses').set({ organization_id: organizationId, distributor_id: distributorId }).where('id', '=', licenseId).execute();
    return { tanId, licenseId };
  }

  const ids = (body: string) => (JSON.parse(body) as { items: Row[] }).items.map((row) => row.id).sort((a, b) => a - b);

  it('the filter narrows the TANs, licenses and accounts; each row names its organization', async () => {
    const admin = await loggedIn(t.app, 'ADMIN');
    const first = await createUser(t.app, { role: 'DISTRIBUTOR' });
    const second = await createUser(t.app, { role: 'DISTRIBUTOR' });
    const acme = await organization('Acme Filter GmbH');
    const other = await organization('Other Filter AG');
    const a1 = await owned(acme, first.id, acme.owner.id);
    const a2 = await owned(acme, second.id, acme.owner.id);
    await owned(other, first.id, other.owner.id);
    const loose = await owned(null, first.id, acme.owner.id);
    const staff = client(t.app, admin.cookie);

    const tans = await staff.get(`/api/tans?organizationId=${acme.id}`);
    expect(tans.statusCode, tans.body).toBe(200);
    expect(ids(tans.body)).toEqual([a1.tanId, a2.tanId].sort((a, b) => a - b));
    expect((tans.json() as { items: Row[] }).items[0].organization).toEqual({ id: acme.id, name: 'Acme Filter GmbH' });

    for (const url of [`/api/licenses?scope=all&organizationId=${acme.id}`, `/api/licenses?organizationId=${acme.id}`]) {
      const licenses = await staff.get(url);
      expect(licenses.statusCode, licenses.body).toBe(200);
      expect(ids(licenses.body)).toEqual([a1.licenseId, a2.licenseId].sort((a, b) => a - b));
      expect((licenses.json() as { items: Row[] }).items.every((row) => row.organization?.name === 'Acme Filter GmbH')).toBe(true);
    }
    // Without the filter the organization is still shown, and null where there is none.
    const byTan = await staff.get(`/api/licenses?tanId=${loose.tanId}`);
    expect((byTan.json() as { items: Row[] }).items).toMatchObject([{ id: loose.licenseId, organization: null }]);

    const colleague = await createUser(t.app);
    await t.app.ctx.db.insertInto('organization_members').values({ organization_id: acme.id, user_id: colleague.id, role: 'member', created_at: new Date().toISOString() }).execute();
    const members = await staff.get(`/api/users?organizationId=${acme.id}`);
    expect(members.statusCode, members.body).toBe(200);
    expect(ids(members.body)).toEqual([acme.owner.id, colleague.id].sort((a, b) => a - b));
    const everyone = (await staff.get(`/api/users?filter=${encodeURIComponent(colleague.email)}`)).json() as { items: { organizations: Row[] }[] };
    expect(everyone.items[0].organizations).toEqual([{ id: acme.id, name: 'Acme Filter GmbH' }]);
    expectError(await staff.get('/api/tans?organizationId=abc'), 400, 'ERR_VALIDATION');
  });

  it("a distributor sees only its own through the filter; customers are refused", async () => {
    const first = await loggedIn(t.app, 'DISTRIBUTOR');
    const second = await loggedIn(t.app, 'DISTRIBUTOR');
    const acme = await organization('Acme Scoped GmbH');
    const mine = await owned(acme, first.id, acme.owner.id);
    const theirs = await owned(acme, second.id, acme.owner.id);

    const asFirst = client(t.app, first.cookie);
    expect(ids((await asFirst.get(`/api/tans?organizationId=${acme.id}`)).body)).toEqual([mine.tanId]);
    expect(ids((await asFirst.get(`/api/licenses?scope=all&organizationId=${acme.id}`)).body)).toEqual([mine.licenseId]);
    expect(ids((await asFirst.get(`/api/licenses?organizationId=${acme.id}`)).body)).toEqual([mine.licenseId]);
    expect(ids((await client(t.app, second.cookie).get(`/api/tans?organizationId=${acme.id}`)).body)).toEqual([theirs.tanId]);
    expectError(await asFirst.get(`/api/users?organizationId=${acme.id}`), 403, 'ERR_FORBIDDEN');

    // The owner is a customer: the staff lists stay closed, also through the filter.
    const owner = client(t.app, acme.owner.cookie);
    expectError(await owner.get(`/api/tans?organizationId=${acme.id}`), 403, 'ERR_FORBIDDEN');
    expectError(await owner.get(`/api/licenses?organizationId=${acme.id}`), 403, 'ERR_FORBIDDEN');
    expectError(await owner.get(`/api/licenses?scope=all&organizationId=${acme.id}`), 403, 'ERR_FORBIDDEN');
    expectError(await owner.get(`/api/users?organizationId=${acme.id}`), 403, 'ERR_FORBIDDEN');
  });
});
