import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { openDatabase } from '../src/platform/db/database.ts';
import { buildTestApp, client, createUser, describeBothDatabases, expectError, loggedIn, login, testConfig, uniqueEmail } from './harness.ts';
import { freePort, linkTo, startSmtpServer, type LoopbackSmtp } from './mail-helpers.ts';
import { seatPolicy, seatTan } from './organizations-support.ts';
import { accepted, connect, sign, stripeCheckout } from './shop-support.ts';

const SHOP_SECRET = 'whsec_organizations_test_0123456789';

/** Organizations, invitations and named-user seats (issue 50, DESIGN.md section 6f). Mail goes through a real SMTP server on loopback. */
const smtpPort = await freePort();
let smtp: LoopbackSmtp;
beforeAll(async () => {
  smtp = await startSmtpServer(smtpPort);
});
afterAll(async () => smtp?.close());

describeBothDatabases(
  'organizations',
  (t) => {
    async function organizationOf(cookie: string, name = 'Acme GmbH') {
      const created = await client(t.app, cookie).post('/api/organizations', { body: { name, company: 'Acme' } });
      expect(created.statusCode, created.body).toBe(201);
      return created.json() as { id: number; role: string };
    }

    /** Invites `email` as `role` and answers the link's token, read from the mail the SMTP server received. */
    async function invite(cookie: string, organizationId: number, email: string, role = 'member') {
      const answer = await client(t.app, cookie).post(`/api/organizations/${organizationId}/invitations`, { body: { email, role } });
      expect(answer.statusCode, answer.body).toBe(201);
      await t.app.ctx.mail.flush();
      const mail = await smtp.waitFor((m) => m.to.includes(email));
      const path = new URL(mail.text.match(/https?:\/\/\S+\/invitations\/[\w-]+/)![0]).pathname;
      return { mail, token: linkTo(mail, path).pathname.split('/').pop()! };
    }

    async function member(organizationId: number, ownerCookie: string, role = 'member', locale?: string) {
      const person = await loggedIn(t.app);
      if (locale) await t.app.ctx.db.updateTable('users').set({ locale }).where('id', '=', person.id).execute();
      const { token } = await invite(ownerCookie, organizationId, person.email, role);
      const accepted = await client(t.app, person.cookie).post(`/api/invitations/${token}/accept`);
      expect(accepted.statusCode, accepted.body).toBe(200);
      return person;
    }

    it('invite in German by real SMTP; the link works once, for the invited address only', async () => {
      const owner = await loggedIn(t.app);
      const org = await organizationOf(owner.cookie);
      expect(org.role).toBe('owner');
      const invitee = await createUser(t.app);
      await t.app.ctx.db.updateTable('users').set({ locale: 'de' }).where('id', '=', invitee.id).execute();
      const { mail, token } = await invite(owner.cookie, org.id, invitee.email);
      expect(mail.subject).toBe('Einladung zu Acme GmbH');
      expect(mail.text).toContain('Der Link gilt 7 Tage');

      const info = await client(t.app).get(`/api/invitations/${token}`);
      expect(info.json()).toMatchObject({ organizationName: 'Acme GmbH', email: invitee.email, role: 'member' });
      const stranger = await loggedIn(t.app);
      expectError(await client(t.app, stranger.cookie).post(`/api/invitations/${token}/accept`), 403, 'ERR_FORBIDDEN');
      expectError(await client(t.app).post(`/api/invitations/${token}/accept`), 401, 'ERR_UNAUTHENTICATED');
      const cookie = await login(t.app, invitee.email);
      const joined = await client(t.app, cookie).post(`/api/invitations/${token}/accept`);
      expect(joined.json()).toMatchObject({ id: org.id, role: 'member', memberCount: 2 });
      const reused = expectError(await client(t.app, cookie).post(`/api/invitations/${token}/accept`, { headers: { 'accept-language': 'de' } }), 422, 'ERR_INVALID_TOKEN');
      expect(reused.message).toContain('invitation');
      expectError(await client(t.app, owner.cookie).post(`/api/organizations/${org.id}/invitations`, { body: { email: invitee.email } }), 409, 'ERR_ALREADY_MEMBER');

      // An expired link is refused like a used one.
      const late = uniqueEmail('late');
      const { token: expired } = await invite(owner.cookie, org.id, late);
      await t.app.ctx.db.updateTable('organization_invitations').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('email', '=', late).execute();
      expectError(await client(t.app).get(`/api/invitations/${expired}`), 422, 'ERR_INVALID_TOKEN');
    });

    it('roles: members cannot manage; other organizations and accounts see nothing; the last owner stays', async () => {
      const owner = await loggedIn(t.app);
      const org = await organizationOf(owner.cookie);
      const plain = await member(org.id, owner.cookie);
      const asMember = client(t.app, plain.cookie);
      expectError(await asMember.post(`/api/organizations/${org.id}/invitations`, { body: { email: uniqueEmail() } }), 403, 'ERR_FORBIDDEN');
      expectError(await asMember.put(`/api/organizations/${org.id}`, { body: { name: 'Taken over' } }), 403, 'ERR_FORBIDDEN');
      expectError(await asMember.put(`/api/organizations/${org.id}/members/${plain.id}`, { body: { role: 'admin' } }), 403, 'ERR_FORBIDDEN');
      expectError(await asMember.delete(`/api/organizations/${org.id}/members/${owner.id}`), 403, 'ERR_FORBIDDEN');
      expectError(await asMember.get(`/api/organizations/${org.id}/tans`), 403, 'ERR_FORBIDDEN');

      const outsider = await loggedIn(t.app);
      const other = await organizationOf(outsider.cookie, 'Other Ltd');
      for (const path of ['', '/members', '/seats', '/licenses', '/tans']) {
        expectError(await client(t.app, outsider.cookie).get(`/api/organizations/${org.id}${path}`), 404, 'ERR_NOT_FOUND');
        expectError(await client(t.app, owner.cookie).get(`/api/organizations/${other.id}${path}`), 404, 'ERR_NOT_FOUND');
      }
      expectError(await client(t.app, outsider.cookie).post(`/api/organizations/${org.id}/seats`, { body: { tanId: 1, userId: outsider.id } }), 404, 'ERR_NOT_FOUND');
      const mine = (await client(t.app, outsider.cookie).get('/api/organizations')).json() as { items: { id: number }[] };
      expect(mine.items.map((item) => item.id)).toEqual([other.id]);
      expectError(await client(t.app, outsider.cookie).get('/api/organizations?all=true'), 403, 'ERR_FORBIDDEN');
      const staff = await loggedIn(t.app, 'ADMIN');
      expect((await client(t.app, staff.cookie).get(`/api/organizations/${org.id}/members`)).json()).toMatchObject({ totalCount: 2 });
      expectError(await client(t.app, staff.cookie).post(`/api/organizations/${org.id}/seats`, { body: { tanId: 1, userId: plain.id } }), 403, 'ERR_FORBIDDEN');
      expectError(await client(t.app, owner.cookie).post(`/api/organizations/${org.id}/suspend`, { body: { suspended: true } }), 403, 'ERR_FORBIDDEN');

      expectError(await client(t.app, owner.cookie).delete(`/api/organizations/${org.id}/members/${owner.id}`), 422, 'ERR_LAST_OWNER');
      expectError(await client(t.app, owner.cookie).put(`/api/organizations/${org.id}/members/${owner.id}`, { body: { role: 'member' } }), 422, 'ERR_LAST_OWNER');
      expectError(await client(t.app, owner.cookie).delete(`/api/users/${owner.id}`), 422, 'ERR_LAST_OWNER');
      expect((await client(t.app, owner.cookie).put(`/api/organizations/${org.id}/members/${plain.id}`, { body: { role: 'owner' } })).statusCode).toBe(200);
      expect((await asMember.delete(`/api/organizations/${org.id}/members/${owner.id}`)).statusCode).toBe(204);
      expectError(await client(t.app, owner.cookie).get(`/api/organizations/${org.id}`), 404, 'ERR_NOT_FOUND');
    });

    it('seats: count, members only, the reassignment wait, the own seat back; members see theirs; closing an account frees it', async () => {
      const owner = await loggedIn(t.app);
      const org = await organizationOf(owner.cookie);
      const [ada, bob, cyd] = [await member(org.id, owner.cookie), await member(org.id, owner.cookie), await member(org.id, owner.cookie)];
      const tan = await seatTan(t.app, 2, 24);
      const asOwner = client(t.app, owner.cookie);
      expectError(await asOwner.post(`/api/organizations/${org.id}/seats`, { body: { tanId: tan.id, userId: ada.id } }), 404, 'ERR_NOT_FOUND');
      expectError(await asOwner.post(`/api/organizations/${org.id}/tans`, { body: { tan: 'xxxx-xxxx-xxxx' } }), 422, 'ERR_INVALID_LICENSE');
      const claimed = await asOwner.post(`/api/organizations/${org.id}/tans`, { body: { tan: tan.code } });
      expect(claimed.json()).toMatchObject({ id: tan.id, seatMode: 'USER', licenseCount: 2, used: 0 });
      const outsider = await loggedIn(t.app);
      expectError(await asOwner.post(`/api/organizations/${org.id}/seats`, { body: { tanId: tan.id, userId: outsider.id } }), 422, 'ERR_NOT_MEMBER');

      const seatA = (await asOwner.post(`/api/organizations/${org.id}/seats`, { body: { tanId: tan.id, userId: ada.id } })).json() as { id: number };
      expect((await asOwner.post(`/api/organizations/${org.id}/seats`, { body: { tanId: tan.id, userId: bob.id } })).statusCode).toBe(201);
      const full = expectError(await asOwner.post(`/api/organizations/${org.id}/seats`, { body: { tanId: tan.id, userId: cyd.id } }), 409, 'ERR_SEATS_TAKEN');
      expect(full.params).toEqual({ count: 2 });
      expect((await client(t.app, ada.cookie).get(`/api/organizations/${org.id}/seats`)).json()).toMatchObject({ totalCount: 1, items: [{ userId: ada.id }] });

      expect((await asOwner.delete(`/api/organizations/${org.id}/seats/${seatA.id}`)).statusCode).toBe(204);
      expectError(await asOwner.delete(`/api/organizations/${org.id}/seats/${seatA.id}`), 404, 'ERR_NOT_FOUND');
      expectError(await asOwner.post(`/api/organizations/${org.id}/seats`, { body: { tanId: tan.id, userId: cyd.id } }), 409, 'ERR_SEAT_REASSIGN_WAIT');
      expect((await asOwner.post(`/api/organizations/${org.id}/seats`, { body: { tanId: tan.id, userId: ada.id } })).statusCode).toBe(201);

      // Bob closes his account: his seat ends and his membership goes.
      expect((await client(t.app, bob.cookie).delete(`/api/users/${bob.id}`)).statusCode).toBe(204);
      const seats = (await asOwner.get(`/api/organizations/${org.id}/seats`)).json() as { items: { userId: number }[] };
      expect(seats.items.map((seat) => seat.userId)).toEqual([ada.id]);
      expect((await asOwner.get(`/api/organizations/${org.id}`)).json()).toMatchObject({ memberCount: 3 });
      const changes = await t.app.ctx.db.selectFrom('change_log').select('new_values').where('model', '=', 'Organization').where('record_id', '=', org.id).execute();
      expect(changes.length).toBeGreaterThan(5);
    });

    it('staff suspend every TAN of an organization in one call', async () => {
      const owner = await loggedIn(t.app);
      const org = await organizationOf(owner.cookie);
      for (const tan of [await seatTan(t.app, 1), await seatTan(t.app, 1)]) await client(t.app, owner.cookie).post(`/api/organizations/${org.id}/tans`, { body: { tan: tan.code } });
      const staff = await loggedIn(t.app, 'ADMIN');
      expect((await client(t.app, staff.cookie).post(`/api/organizations/${org.id}/suspend`, { body: { suspended: true } })).json()).toEqual({ tanCount: 2 });
      const tans = (await client(t.app, staff.cookie).get(`/api/organizations/${org.id}/tans`)).json() as { items: { suspended: boolean }[] };
      expect(tans.items.every((tan) => tan.suspended)).toBe(true);
    });

    it("a shop purchase of a USER policy puts the TAN in the buyer's organization, mailed without 'activate'", async () => {
      const admin = await loggedIn(t.app, 'ADMIN');
      const { productId, policyId } = await seatPolicy(t.app);
      const price = `price_${Date.now()}`;
      const connection = await connect(client(t.app, admin.cookie), { provider: 'stripe', secret: SHOP_SECRET, mappings: [{ externalId: price, productId, licensePolicyId: policyId, seats: 5 }] });
      const email = uniqueEmail('buyer');
      const [result] = await accepted(t.app, connection.id, sign('stripe', SHOP_SECRET, stripeCheckout({ price, email, machineId: 'buyer-pc', locale: 'de' })));
      const tan = await t.app.ctx.db.selectFrom('tans').select(['organization_id', 'activated_count', 'license_count']).where('id', '=', result.tanIds[0]).executeTakeFirstOrThrow();
      expect(tan).toMatchObject({ activated_count: 0, license_count: 5 });
      const membership = await t.app.ctx.db.selectFrom('organization_members').innerJoin('users', 'users.id', 'organization_members.user_id').select(['organization_id', 'role']).where('users.email', '=', email).executeTakeFirstOrThrow();
      expect(membership).toEqual({ organization_id: tan.organization_id, role: 'owner' });
      await t.app.ctx.mail.flush();
      const mail = await smtp.waitFor((m) => m.to.includes(email) && m.text.includes('Organisation'));
      expect(mail.text).toContain(`/organizations/${tan.organization_id}`);
      expect(mail.text).not.toMatch(/aktivier/i);
    });

    describe('concurrent seat assignment', () => {
      let second: App | undefined;
      beforeAll(async () => {
        if (t.kind === 'postgres') second = await buildTestApp(testConfig(t.config.database), openDatabase(t.config.database));
      });
      afterAll(async () => {
        if (second) {
          await second.close();
          await second.ctx.close();
        }
      });

      it("never passes the TAN's count: 12 racers for 5 seats (two instances on PostgreSQL)", async () => {
        const owner = await loggedIn(t.app);
        const org = await organizationOf(owner.cookie);
        const people = [];
        for (let i = 0; i < 12; i++) {
          const person = await createUser(t.app);
          await t.app.ctx.db.insertInto('organization_members').values({ organization_id: org.id, user_id: person.id, role: 'member', created_at: new Date().toISOString() }).execute();
          people.push(person);
        }
        const tan = await seatTan(t.app, 5);
        await client(t.app, owner.cookie).post(`/api/organizations/${org.id}/tans`, { body: { tan: tan.code } });
        const answers = await Promise.all(
          people.map((person, i) =>
            ((i % 2 && second) || t.app).inject({ method: 'POST', url: `/api/organizations/${org.id}/seats`, headers: { cookie: owner.cookie }, payload: { tanId: tan.id, userId: person.id } }),
          ),
        );
        const statuses = answers.map((answer) => answer.statusCode).sort();
        expect(statuses.filter((status) => status === 201)).toHaveLength(5);
        expect(statuses.filter((status) => status === 409)).toHaveLength(7);
        const held = await t.app.ctx.db.selectFrom('organization_seats').select('id').where('tan_id', '=', tan.id).where('unassigned_at', 'is', null).execute();
        expect(held).toHaveLength(5);
      });
    });
  },
  { env: { SMTP_URL: `smtp://127.0.0.1:${smtpPort}` } },
);
