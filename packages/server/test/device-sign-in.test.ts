import { expect, it } from 'vitest';
import { client, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { flushLastSeen } from './licensing-fixtures.ts';
import { decodeLicenseFile, seatTan } from './organizations-support.ts';

/** Desktop sign-in by the OAuth 2.0 Device Authorization Grant (RFC 8628, DESIGN.md section 6f). */
describeBothDatabases(
  'desktop sign-in',
  (t) => {
    const protocol = (path: string, body: unknown, headers: Record<string, string> = {}) => t.app.inject({ method: 'POST', url: `/api/client/v1/${path}`, payload: body as object, headers });

    /** An organization with a member holding a seat of a USER-policy TAN; answers what the tests drive. */
    async function seated() {
      const owner = await loggedIn(t.app);
      const org = (await client(t.app, owner.cookie).post('/api/organizations', { body: { name: 'Acme' } })).json() as { id: number };
      const person = await loggedIn(t.app);
      await t.app.ctx.db.insertInto('organization_members').values({ organization_id: org.id, user_id: person.id, role: 'member', created_at: new Date().toISOString() }).execute();
      const tan = await seatTan(t.app, 3);
      await client(t.app, owner.cookie).post(`/api/organizations/${org.id}/tans`, { body: { tan: tan.code } });
      const seat = (await client(t.app, owner.cookie).post(`/api/organizations/${org.id}/seats`, { body: { tanId: tan.id, userId: person.id } })).json() as { id: number };
      return { owner, org, person, tan, seat };
    }

    /** Polls without waiting for the interval: the last poll is moved back in time instead. */
    async function pollNow(deviceCode: string) {
      await t.app.ctx.db.updateTable('device_authorizations').set({ last_polled_at: '2000-01-01T00:00:00.000Z' }).execute();
      return protocol('device/token', { device_code: deviceCode });
    }

    async function signIn(cookie: string, product: string, machineId: string) {
      const started = (await protocol('device/authorize', { product, machineId })).json() as { device_code: string; user_code: string; verification_uri_complete: string; interval: number };
      expect((await client(t.app, cookie).post('/api/device/approve', { body: { userCode: started.user_code } })).statusCode).toBe(204);
      const token = (await pollNow(started.device_code)).json() as { access_token: string };
      return token.access_token;
    }

    it('approve on /device, poll with slow_down, get the file of the seat; the token fits one machine; removed member refused', async () => {
      const { owner, org, person, tan } = await seated();
      expectError(await protocol('device/authorize', { product: 'no such product', machineId: 'pc-1' }), 404, 'ERR_NO_LICENSE');
      const started = await protocol('device/authorize', { product: tan.productName, machineId: 'pc-1' });
      expect(started.statusCode, started.body).toBe(200);
      const grant = started.json() as { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string; expires_in: number; interval: number };
      expect(grant).toMatchObject({ verification_uri: 'http://localhost:3000/device', expires_in: 900, interval: 1 });
      expect(grant.user_code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
      expect(grant.verification_uri_complete).toBe(`http://localhost:3000/device?code=${grant.user_code}`);

      expect((await protocol('device/token', { device_code: grant.device_code })).json()).toMatchObject({ error: 'authorization_pending' });
      const fast = await protocol('device/token', { device_code: grant.device_code });
      expect(fast.statusCode).toBe(400);
      expect(fast.json()).toMatchObject({ error: 'slow_down' });

      expectError(await client(t.app).get(`/api/device?userCode=${grant.user_code}`), 401, 'ERR_UNAUTHENTICATED');
      const shown = await client(t.app, person.cookie).get(`/api/device?userCode=${grant.user_code.toLowerCase()}`);
      expect(shown.json()).toMatchObject({ productName: tan.productName, machineId: 'pc-1' });
      expectError(await client(t.app, person.cookie).post('/api/device/approve', { body: { userCode: 'AAAA' } }), 400, 'ERR_VALIDATION');
      expect((await client(t.app, person.cookie).post('/api/device/approve', { body: { userCode: grant.user_code } })).statusCode).toBe(204);
      expectError(await client(t.app, person.cookie).post('/api/device/approve', { body: { userCode: grant.user_code } }), 409, 'ERR_DEVICE_DECIDED');

      const issued = await pollNow(grant.device_code);
      expect(issued.statusCode, issued.body).toBe(200);
      const { access_token: token, token_type: type } = issued.json() as { access_token: string; token_type: string };
      expect(type).toBe('Bearer');
      expect((await pollNow(grant.device_code)).json()).toMatchObject({ error: 'invalid_grant' });

      const bearer = { authorization: `Bearer ${token}` };
      const file = await protocol('license', { product: tan.productName, machineId: 'pc-1' }, bearer);
      expect(file.statusCode, file.body).toBe(200);
      expect(decodeLicenseFile(file.json())).toMatchObject({ machineId: 'pc-1', licensee: { userId: person.id } });
      const again = await protocol('license', { product: tan.productName, machineId: 'pc-1' }, { ...bearer, 'if-none-match': file.headers.etag as string });
      expect(again.statusCode).toBe(304);
      expectError(await protocol('license', { product: tan.productName, machineId: 'pc-2' }, bearer), 403, 'ERR_FORBIDDEN');
      expectError(await protocol('license', { product: tan.productName, machineId: 'pc-1' }, { authorization: 'Bearer lmdt_unknown' }), 401, 'ERR_UNAUTHENTICATED');

      expect((await client(t.app, owner.cookie).delete(`/api/organizations/${org.id}/members/${person.id}`)).statusCode).toBe(204);
      expectError(await protocol('license', { product: tan.productName, machineId: 'pc-1' }, bearer), 403, 'ERR_SEAT_UNASSIGNED');
      // Without the sign-in the machine's license is gone too.
      expectError(await protocol('license', { product: tan.productName, machineId: 'pc-1' }), 403, 'ERR_LICENSE_REVOKED');
    });

    it('machines per person, denial, expiry, sign-ins under Security revoked by their owner only, sign-out', async () => {
      const { person, tan } = await seated();
      const tokens = [await signIn(person.cookie, tan.productName, 'm-1'), await signIn(person.cookie, tan.productName, 'm-2'), await signIn(person.cookie, tan.productName, 'm-3')];
      for (const [i, token] of tokens.slice(0, 2).entries()) expect((await protocol('license', { product: tan.productName, machineId: `m-${i + 1}` }, { authorization: `Bearer ${token}` })).statusCode).toBe(200);
      expectError(await protocol('license', { product: tan.productName, machineId: 'm-3' }, { authorization: `Bearer ${tokens[2]}` }), 403, 'ERR_TOO_MANY_MACHINES');

      const denied = (await protocol('device/authorize', { product: tan.productName, machineId: 'm-4' })).json() as { device_code: string; user_code: string };
      expect((await client(t.app, person.cookie).post('/api/device/deny', { body: { userCode: denied.user_code } })).statusCode).toBe(204);
      expect((await pollNow(denied.device_code)).json()).toMatchObject({ error: 'access_denied' });
      const expired = (await protocol('device/authorize', { product: tan.productName, machineId: 'm-5' })).json() as { device_code: string; user_code: string };
      await t.app.ctx.db.updateTable('device_authorizations').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('user_code', '=', expired.user_code.replace('-', '')).execute();
      expect((await pollNow(expired.device_code)).json()).toMatchObject({ error: 'expired_token' });
      expectError(await client(t.app, person.cookie).post('/api/device/approve', { body: { userCode: expired.user_code } }), 404, 'ERR_NOT_FOUND');

      const list = (await client(t.app, person.cookie).get('/api/account/desktop-sign-ins')).json() as { items: { id: number; machineId: string }[] };
      expect(list.items.map((item) => item.machineId).sort()).toEqual(['m-1', 'm-2', 'm-3']);
      const other = await loggedIn(t.app);
      expect((await client(t.app, other.cookie).get('/api/account/desktop-sign-ins')).json()).toMatchObject({ totalCount: 0 });
      const first = list.items.find((item) => item.machineId === 'm-1')!;
      expectError(await client(t.app, other.cookie).delete(`/api/account/desktop-sign-ins/${first.id}`), 404, 'ERR_NOT_FOUND');
      expect((await client(t.app, person.cookie).delete(`/api/account/desktop-sign-ins/${first.id}`)).statusCode).toBe(204);
      expectError(await protocol('license', { product: tan.productName, machineId: 'm-1' }, { authorization: `Bearer ${tokens[0]}` }), 401, 'ERR_UNAUTHENTICATED');

      const signOut = await t.app.inject({ method: 'DELETE', url: '/api/client/v1/device/token', headers: { authorization: `Bearer ${tokens[1]}` } });
      expect(signOut.statusCode).toBe(204);
      expectError(await protocol('license', { product: tan.productName, machineId: 'm-2' }, { authorization: `Bearer ${tokens[1]}` }), 401, 'ERR_UNAUTHENTICATED');
    });

    it("a signed-in machine's contact is kept like an anonymous one's: its last contact, a clock set back, a refusal, and borrowing checked", async () => {
      const { person, tan } = await seated();
      const bearer = { authorization: `Bearer ${await signIn(person.cookie, tan.productName, 'c-1')}` };
      const tamperedAt = new Date(Date.now() - 60_000).toISOString();
      expect((await protocol('license', { product: tan.productName, machineId: 'c-1', clockTamperedAt: tamperedAt }, bearer)).statusCode).toBe(200);
      // The seat's policy is not floating: nothing to borrow, as for an anonymous machine.
      expectError(await protocol('license', { product: tan.productName, machineId: 'c-1', borrowDays: 3 }, bearer), 422, 'ERR_BORROW_NOT_ALLOWED');
      const license = await t.app.ctx.db.selectFrom('licenses').select('id').where('machine_id', '=', 'c-1').where('owner_id', '=', person.id).executeTakeFirstOrThrow();
      await flushLastSeen(t.app);
      expect(await t.app.ctx.db.selectFrom('license_last_seen').select('machine_id').where('license_id', '=', license.id).execute()).toEqual([{ machine_id: 'c-1' }]);
      const admin = await loggedIn(t.app, 'ADMIN');
      const events = (await client(t.app, admin.cookie).get(`/api/licenses/${license.id}/events`, { query: { sort: 'at' } })).json() as { items: { type: string; code: string | null }[] };
      expect(events.items.map((event) => [event.type, event.code])).toEqual([
        ['clock.tampered', null],
        ['activation.refused', 'ERR_BORROW_NOT_ALLOWED'],
      ]);
    });

    it("a machine whose seat license staff revoked stays out until the revocation is lifted; another machine may take its place", async () => {
      const { person, tan } = await seated();
      const admin = client(t.app, (await loggedIn(t.app, 'ADMIN')).cookie);
      const tokens = { lost: await signIn(person.cookie, tan.productName, 'lost'), kept: await signIn(person.cookie, tan.productName, 'kept'), spare: await signIn(person.cookie, tan.productName, 'spare') };
      const refresh = (machineId: keyof typeof tokens) => protocol('license', { product: tan.productName, machineId }, { authorization: `Bearer ${tokens[machineId]}` });
      expect((await refresh('lost')).statusCode).toBe(200);
      expect((await refresh('kept')).statusCode).toBe(200);
      const licensesOf = (machineId: string) => t.app.ctx.db.selectFrom('licenses').select(['id', 'revoked']).where('machine_id', '=', machineId).where('owner_id', '=', person.id).execute();
      const [lost] = await licensesOf('lost');
      expect((await admin.put(`/api/licenses/${lost.id}`, { body: { revoked: true } })).statusCode).toBe(200);

      // Refused as the revoked license it is, again and again: no new license is bound in its place.
      expectError(await refresh('lost'), 403, 'ERR_LICENSE_REVOKED');
      expectError(await refresh('lost'), 403, 'ERR_LICENSE_REVOKED');
      expect(await licensesOf('lost')).toHaveLength(1);
      // The revoked machine no longer takes one of the person's two machines.
      expect((await refresh('spare')).statusCode).toBe(200);
      expect((await refresh('kept')).statusCode).toBe(200);

      expect((await admin.put(`/api/licenses/${lost.id}`, { body: { revoked: false } })).statusCode).toBe(200);
      const back = await refresh('lost');
      expect(back.statusCode, back.body).toBe(200);
      expect(decodeLicenseFile(back.json())).toMatchObject({ machineId: 'lost', licensee: { userId: person.id } });
      expect(await licensesOf('lost')).toHaveLength(1);
    });

    it('a person without a seat is refused with ERR_SEAT_UNASSIGNED', async () => {
      const { tan } = await seated();
      const cookie = (await loggedIn(t.app)).cookie;
      const token = await signIn(cookie, tan.productName, 'x-1');
      expectError(await protocol('license', { product: tan.productName, machineId: 'x-1' }, { authorization: `Bearer ${token}` }), 403, 'ERR_SEAT_UNASSIGNED');
    });
  },
  { env: { DEVICE_POLL_INTERVAL_SECONDS: '1' } },
);
