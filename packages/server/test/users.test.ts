import { describe, expect, it } from 'vitest';
import { client, createUser, describeBothDatabases, expectError, loggedIn, login, uniqueEmail } from './harness.ts';
import { privateDataDir } from './accounts-helpers.ts';

const FULL_USER = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  company: 'Analytical Engines Ltd',
  address: '12 St James Square',
  address2: null,
  zip: 'SW1Y 4JH',
  city: 'London',
  country: 'gb',
  phone: '+44 20 1234',
  fax: null,
  notes: 'Met at the fair',
  accessRole: 'USER',
  optInEmail: true,
};

describeBothDatabases(
  'users',
  (t) => {
    describe('GET /api/users', () => {
      it('lists accounts for administrators with filter, accessRole, sort, offset and limit', async () => {
        const admin = await loggedIn(t.app, 'ADMIN');
        const tag = uniqueEmail('list').split('@')[0];
        const made = [];
        for (const [prefix, role] of [['b', 'USER'], ['a', 'DISTRIBUTOR'], ['c', 'USER']] as const) {
          made.push(await createUser(t.app, { email: `${prefix}-${tag}@example.com`, role }));
        }
        const as = client(t.app, admin.cookie);
        const all = await as.get('/api/users', { query: { filter: tag.toUpperCase(), sort: 'email' } });
        expect(all.statusCode, all.body).toBe(200);
        expect(all.json().totalCount).toBe(3);
        expect(all.json().items.map((u: { email: string }) => u.email[0])).toEqual(['a', 'b', 'c']);
        expect(all.json().items[0]).toMatchObject({ accessRole: 'DISTRIBUTOR', confirmed: true, username: made[1].email });

        const descending = await as.get('/api/users', { query: { filter: tag, sort: '-email', offset: '1', limit: '1' } });
        expect(descending.json()).toEqual({ totalCount: 3, totalCountExact: true, nextCursor: expect.any(String), items: [expect.objectContaining({ email: made[0].email })] });

        const distributors = await as.get('/api/users', { query: { filter: tag, accessRole: 'DISTRIBUTOR' } });
        expect(distributors.json().items.map((u: { id: number }) => u.id)).toEqual([made[1].id]);

        const byDefault = await as.get('/api/users', { query: { filter: tag } });
        expect(byDefault.json().items.map((u: { id: number }) => u.id)).toEqual(made.map((u) => u.id).reverse());
      });

      it('sorts and finds names and company regardless of accents and case, also after a name changed', async () => {
        const as = client(t.app, (await loggedIn(t.app, 'ADMIN')).cookie);
        const tag = uniqueEmail('accents').split('@')[0];
        const people = [
          ['Zoë', 'Zimmermann', 'zeta GmbH'],
          ['Ömer', 'Özdemir', 'Ørsted A/S'],
          ['olga', 'Oberst', 'Omega'],
          ['Émile', 'ärzte', 'Éclair SA'],
          ['Ada', 'Abel', null],
          ['Şule', 'Straße', 'Ångström AB'],
        ] as const;
        const ids: Record<string, number> = {};
        for (const [firstName, lastName, company] of people) {
          // E-mail addresses without the names: the search must find these by the names themselves.
          const created = await as.post('/api/users', { body: { ...FULL_USER, email: `person${Object.keys(ids).length}-${tag}@example.com`, firstName, lastName, company } });
          expect(created.statusCode, created.body).toBe(201);
          ids[lastName] = created.json().id;
        }
        const sorted = async (sort: string, field: 'lastName' | 'firstName' | 'company' = 'lastName') =>
          ((await as.get('/api/users', { query: { filter: tag, sort } })).json().items as Record<string, string | null>[]).map((user) => user[field]);
        expect(await sorted('lastName')).toEqual(['Abel', 'ärzte', 'Oberst', 'Özdemir', 'Straße', 'Zimmermann']);
        expect(await sorted('-lastName')).toEqual(['Zimmermann', 'Straße', 'Özdemir', 'Oberst', 'ärzte', 'Abel']);
        expect(await sorted('firstName', 'firstName')).toEqual(['Ada', 'Émile', 'olga', 'Ömer', 'Şule', 'Zoë']);
        // No company comes last either way.
        expect(await sorted('company', 'company')).toEqual(['Ångström AB', 'Éclair SA', 'Omega', 'Ørsted A/S', 'zeta GmbH', null]);
        expect(await sorted('-company', 'company')).toEqual(['zeta GmbH', 'Ørsted A/S', 'Omega', 'Éclair SA', 'Ångström AB', null]);

        // The key follows a changed name, and one left out of the change keeps its own.
        const changed = await as.put(`/api/users/${ids.Zimmermann}`, { body: { lastName: 'Ährens' } });
        expect(changed.statusCode, changed.body).toBe(200);
        expect(await sorted('lastName')).toEqual(['Abel', 'Ährens', 'ärzte', 'Oberst', 'Özdemir', 'Straße']);
        expect(await sorted('firstName', 'firstName')).toEqual(['Ada', 'Émile', 'olga', 'Ömer', 'Şule', 'Zoë']);

        // One or two letters find the names that start so, with or without the accent.
        const found = async (filter: string) => ((await as.get('/api/users', { query: { filter, limit: '1000' } })).json().items as { id: number }[]).map((user) => user.id);
        for (const filter of ['öz', 'OZ', 'Oz']) expect(await found(filter), filter).toContain(ids.Özdemir);
        expect(await found('ob')).not.toContain(ids.Özdemir);
        expect(await found('Ä')).toEqual(expect.arrayContaining([ids.Zimmermann, ids.ärzte, ids.Abel]));
        // Three letters or more: anywhere in names and company, with or without the accents.
        for (const filter of ['ozdemir', 'ÖZDEMIR', 'zdemi', 'orsted a/s']) expect(await found(filter), filter).toEqual([ids.Özdemir]);
        for (const filter of ['strasse', 'Straße', 'STRASSE']) expect(await found(filter), filter).toEqual([ids.Straße]);
        expect(await found('angstrom')).toEqual([ids.Straße]);
        expect(await found('emile arzte eclair')).toEqual([ids.ärzte]);
      });

      it('searches names and company too, takes % and _ literally, and leaves closed accounts out', async () => {
        const admin = await loggedIn(t.app, 'ADMIN');
        const as = client(t.app, admin.cookie);
        const created = await as.post('/api/users', { body: { ...FULL_USER, email: uniqueEmail(), company: 'Percent 100%_Corp' } });
        expect(created.statusCode, created.body).toBe(201);
        expect((await as.get('/api/users', { query: { filter: '100%_c' } })).json().totalCount).toBe(1);
        expect((await as.get('/api/users', { query: { filter: '100_' } })).json().totalCount).toBe(0);
        expect((await as.get('/api/users', { query: { filter: 'lovelace' } })).json().totalCount).toBeGreaterThanOrEqual(1);
        expect((await as.delete(`/api/users/${created.json().id}`)).statusCode).toBe(204);
        expect((await as.get('/api/users', { query: { filter: '100%_c' } })).json().totalCount).toBe(0);
        expect((await as.get('/api/users', { query: { filter: 'closed.invalid' } })).json().totalCount).toBe(0);
      });

      it('refuses customers and distributors with 403, anonymous callers with 401', async () => {
        expectError(await client(t.app).get('/api/users'), 401, 'ERR_UNAUTHENTICATED');
        for (const role of ['USER', 'DISTRIBUTOR'] as const) {
          const caller = await loggedIn(t.app, role);
          expectError(await client(t.app, caller.cookie).get('/api/users'), 403, 'ERR_FORBIDDEN');
        }
      });

      it('refuses bad list parameters with 400', async () => {
        const admin = await loggedIn(t.app, 'ADMIN');
        const as = client(t.app, admin.cookie);
        const queries: Record<string, string>[] = [{ limit: '0' }, { limit: '5000' }, { offset: '-1' }, { sort: 'password' }, { accessRole: 'ROOT' }, { filter: 'x'.repeat(201) }];
        for (const query of queries) {
          expectError(await as.get('/api/users', { query }), 400, 'ERR_VALIDATION');
        }
      });
    });

    describe('POST /api/users', () => {
      it('creates a confirmed account with a random password and sends no mail', async () => {
        const admin = await loggedIn(t.app, 'ADMIN');
        const email = uniqueEmail('made');
        const response = await client(t.app, admin.cookie).post('/api/users', { body: { ...FULL_USER, email } });
        expect(response.statusCode, response.body).toBe(201);
        const made = response.json();
        expect(made).toMatchObject({ email, confirmed: true, country: 'GB', notes: 'Met at the fair', formattedName: 'Ada Lovelace (Analytical Engines Ltd)' });
        const row = await t.app.ctx.db.selectFrom('users').select('password_hash').where('id', '=', made.id).executeTakeFirstOrThrow();
        expect(row.password_hash).toMatch(/^\$argon2id\$/);
        expect(await t.app.ctx.db.selectFrom('mail_outbox').select('id').where('recipient', '=', email).execute()).toEqual([]);
        await t.app.ctx.mail.flush();
        const entry = await t.app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', 'User').where('record_id', '=', made.id).executeTakeFirstOrThrow();
        expect(entry).toMatchObject({ operation: 'insert', user_id: admin.id });
        // The person gets in through "Forgot password"; nobody was told the random one.
        expectError(await client(t.app).post('/api/session', { body: { username: email, password: '' + 'x'.repeat(5) } }), 401, 'ERR_LOGIN_FAILED');
      });

      it('takes the minimum: address and names; role defaults to customer', async () => {
        const admin = await loggedIn(t.app, 'ADMIN');
        const response = await client(t.app, admin.cookie).post('/api/users', { body: { email: uniqueEmail(), firstName: 'Min', lastName: 'Imal' } });
        expect(response.statusCode, response.body).toBe(201);
        expect(response.json()).toMatchObject({ accessRole: 'USER', optInEmail: false, company: null });
      });

      it('refuses a registered address with 409 and bad input with 400', async () => {
        const admin = await loggedIn(t.app, 'ADMIN');
        const as = client(t.app, admin.cookie);
        expectError(await as.post('/api/users', { body: { ...FULL_USER, email: admin.email.toUpperCase() } }), 409, 'ERR_DUPLICATE_EMAIL');
        const missing = expectError(await as.post('/api/users', { body: { email: uniqueEmail() } }), 400, 'ERR_VALIDATION');
        expect(missing.details?.map((d) => d.path).sort()).toEqual(['firstName', 'lastName']);
        expectError(await as.post('/api/users', { body: { ...FULL_USER, email: uniqueEmail(), country: 'Germany' } }), 400, 'ERR_VALIDATION');
        expectError(await as.post('/api/users', { body: { ...FULL_USER, email: uniqueEmail(), accessRole: 'ROOT' } }), 400, 'ERR_VALIDATION');
        expectError(await as.post('/api/users', { body: { ...FULL_USER, email: 'a@b' } }), 400, 'ERR_VALIDATION');
        expectError(await as.post('/api/users', { body: { ...FULL_USER, email: uniqueEmail(), firstName: 'x'.repeat(256) } }), 400, 'ERR_VALIDATION');
      });

      it('refuses customers and distributors with 403, anonymous callers with 401', async () => {
        expectError(await client(t.app).post('/api/users', { body: { ...FULL_USER, email: uniqueEmail() } }), 401, 'ERR_UNAUTHENTICATED');
        for (const role of ['USER', 'DISTRIBUTOR'] as const) {
          const caller = await loggedIn(t.app, role);
          expectError(await client(t.app, caller.cookie).post('/api/users', { body: { ...FULL_USER, email: uniqueEmail() } }), 403, 'ERR_FORBIDDEN');
        }
      });
    });

    describe('GET /api/users/{id}', () => {
      it('answers the own account, and any account to administrators', async () => {
        const user = await loggedIn(t.app);
        const admin = await loggedIn(t.app, 'ADMIN');
        expect((await client(t.app, user.cookie).get(`/api/users/${user.id}`)).json()).toMatchObject({ id: user.id, email: user.email });
        expect((await client(t.app, admin.cookie).get(`/api/users/${user.id}`)).json()).toMatchObject({ id: user.id });
      });

      it("keeps the administrators' notes from the person themselves, in every answer about their account", async () => {
        const admin = client(t.app, (await loggedIn(t.app, 'ADMIN')).cookie);
        for (const role of ['USER', 'DISTRIBUTOR'] as const) {
          const person = await loggedIn(t.app, role);
          expect((await admin.put(`/api/users/${person.id}`, { body: { notes: 'Haggles; never give a discount' } })).json()).toMatchObject({ notes: 'Haggles; never give a discount' });
          const own = client(t.app, person.cookie);
          const answers = [
            await own.put(`/api/users/${person.id}`, { body: { city: 'Bonn' } }),
            await own.put(`/api/users/${person.id}`, { body: { city: 'Bonn' } }),
            await own.get(`/api/users/${person.id}`),
            await own.post(`/api/users/${person.id}/consent/email`),
            await own.delete(`/api/users/${person.id}/consent/email`),
          ];
          for (const answer of answers) {
            expect(answer.statusCode, answer.body).toBe(200);
            expect(answer.json(), role).toMatchObject({ id: person.id, city: 'Bonn' });
            expect(answer.body).not.toContain('Haggles');
            expect(answer.json()).not.toHaveProperty('notes');
          }
          expect((await admin.get(`/api/users/${person.id}`)).json()).toMatchObject({ notes: 'Haggles; never give a discount' });
        }
      });

      it('answers another account, an unknown one and a closed one with 404', async () => {
        const user = await loggedIn(t.app);
        const distributor = await loggedIn(t.app, 'DISTRIBUTOR');
        const other = await createUser(t.app);
        expectError(await client(t.app, user.cookie).get(`/api/users/${other.id}`), 404, 'ERR_NOT_FOUND');
        expectError(await client(t.app, distributor.cookie).get(`/api/users/${other.id}`), 404, 'ERR_NOT_FOUND');
        const admin = await loggedIn(t.app, 'ADMIN');
        expectError(await client(t.app, admin.cookie).get('/api/users/2000000000'), 404, 'ERR_NOT_FOUND');
        expect((await client(t.app, admin.cookie).delete(`/api/users/${other.id}`)).statusCode).toBe(204);
        expectError(await client(t.app, admin.cookie).get(`/api/users/${other.id}`), 404, 'ERR_NOT_FOUND');
      });

      it('refuses anonymous callers with 401 and bad ids with 400', async () => {
        const user = await loggedIn(t.app);
        expectError(await client(t.app).get(`/api/users/${user.id}`), 401, 'ERR_UNAUTHENTICATED');
        for (const id of ['abc', '0', '-3', '1.5', '99999999999']) expectError(await client(t.app, user.cookie).get(`/api/users/${id}`), 400, 'ERR_VALIDATION');
      });
    });

    describe('PUT /api/users/{id}', () => {
      it('lets a customer change own name and address fields, and records the change', async () => {
        const user = await loggedIn(t.app);
        const response = await client(t.app, user.cookie).put(`/api/users/${user.id}`, { body: { firstName: 'Grace', lastName: 'Hopper', city: 'Arlington', country: 'us' } });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toMatchObject({ firstName: 'Grace', lastName: 'Hopper', city: 'Arlington', country: 'US', formattedName: 'Grace Hopper' });
        const entry = await t.app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', 'User').where('record_id', '=', user.id).where('operation', '=', 'update').executeTakeFirstOrThrow();
        expect(entry.user_id).toBe(user.id);
        expect(JSON.parse(entry.new_values!)).toEqual({ firstName: 'Grace', lastName: 'Hopper', city: 'Arlington', country: 'US' });
        expect(JSON.parse(entry.old_values!)).toMatchObject({ city: null, country: null });
      });

      it('refuses a customer changing e-mail, notes or role with 403 naming the fields, but ignores them unchanged', async () => {
        const user = await loggedIn(t.app);
        const own = client(t.app, user.cookie);
        for (const body of [{ email: uniqueEmail() }, { notes: 'vip' }, { accessRole: 'ADMIN' }]) {
          const refused = expectError(await own.put(`/api/users/${user.id}`, { body }), 403, 'ERR_FORBIDDEN');
          expect(refused.details?.map((d) => d.path)).toEqual(Object.keys(body));
        }
        const current = (await own.get(`/api/users/${user.id}`)).json();
        const { id: _id, username: _u, formattedName: _f, confirmed: _c, createdAt: _d, ...fields } = current;
        const unchanged = await own.put(`/api/users/${user.id}`, { body: { ...fields, zip: '12345' } });
        expect(unchanged.statusCode, unchanged.body).toBe(200);
        expect(unchanged.json()).toMatchObject({ zip: '12345', accessRole: 'USER', email: user.email });
      });

      it('answers another account with 404 to customers and distributors', async () => {
        const other = await createUser(t.app);
        for (const role of ['USER', 'DISTRIBUTOR'] as const) {
          const caller = await loggedIn(t.app, role);
          expectError(await client(t.app, caller.cookie).put(`/api/users/${other.id}`, { body: { firstName: 'Hacked' } }), 404, 'ERR_NOT_FOUND');
        }
      });

      it('lets an administrator change e-mail, notes and role; a taken address is 409', async () => {
        const admin = await loggedIn(t.app, 'ADMIN');
        const user = await createUser(t.app);
        const newEmail = uniqueEmail('moved');
        const response = await client(t.app, admin.cookie).put(`/api/users/${user.id}`, { body: { email: newEmail, notes: 'reseller', accessRole: 'DISTRIBUTOR' } });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toMatchObject({ email: newEmail, notes: 'reseller', accessRole: 'DISTRIBUTOR' });
        await login(t.app, newEmail, user.password);
        expectError(await client(t.app, admin.cookie).put(`/api/users/${user.id}`, { body: { email: admin.email } }), 409, 'ERR_DUPLICATE_EMAIL');
      });

      it('keeps the last administrator: demoting it is 422 ERR_LAST_ADMIN', async () => {
        const app = await t.newApp();
        const admin = await createUser(app, { role: 'ADMIN' });
        const cookie = await login(app, admin.email, admin.password);
        expectError(await client(app, cookie).put(`/api/users/${admin.id}`, { body: { accessRole: 'USER' } }), 422, 'ERR_LAST_ADMIN');
        expectError(await client(app, cookie).delete(`/api/users/${admin.id}`), 422, 'ERR_LAST_ADMIN');
        const second = await createUser(app, { role: 'ADMIN' });
        expect((await client(app, cookie).put(`/api/users/${second.id}`, { body: { accessRole: 'USER' } })).statusCode).toBe(200);
        await createUser(app, { role: 'ADMIN' });
        expect((await client(app, cookie).put(`/api/users/${admin.id}`, { body: { accessRole: 'USER' } })).statusCode).toBe(200);
      });

      it('refuses bad input with 400 and anonymous callers with 401', async () => {
        const user = await loggedIn(t.app);
        const own = client(t.app, user.cookie);
        expectError(await own.put(`/api/users/${user.id}`, { body: { firstName: '' } }), 400, 'ERR_VALIDATION');
        expectError(await own.put(`/api/users/${user.id}`, { body: { country: 'Deutschland' } }), 400, 'ERR_VALIDATION');
        expectError(await own.put(`/api/users/${user.id}`, { body: { optInEmail: 'yes' } }), 400, 'ERR_VALIDATION');
        expectError(await own.put(`/api/users/${user.id}`, { body: { city: 'Nul\u0000City' } }), 400, 'ERR_VALIDATION');
        expectError(await own.put(`/api/users/${user.id}`, { body: { lastName: 'Two\nLines' } }), 400, 'ERR_VALIDATION');
        expectError(await client(t.app).put(`/api/users/${user.id}`, { body: { firstName: 'X' } }), 401, 'ERR_UNAUTHENTICATED');
      });
    });

    describe('POST and DELETE /api/users/{id}/consent/email', () => {
      it('turns the own consent on and off, recorded in the change log', async () => {
        const user = await loggedIn(t.app);
        const own = client(t.app, user.cookie);
        const on = await own.post(`/api/users/${user.id}/consent/email`);
        expect(on.statusCode, on.body).toBe(200);
        expect(on.json().optInEmail).toBe(true);
        expect((await own.delete(`/api/users/${user.id}/consent/email`)).json().optInEmail).toBe(false);
        expect((await own.delete(`/api/users/${user.id}/consent/email`)).json().optInEmail).toBe(false);
        const entries = await t.app.ctx.db.selectFrom('change_log').select('new_values').where('model', '=', 'User').where('record_id', '=', user.id).where('operation', '=', 'update').orderBy('id').execute();
        expect(entries.map((e) => JSON.parse(e.new_values!))).toEqual([{ optInEmail: true }, { optInEmail: false }]);
      });

      it('lets an administrator set it for anyone; others get 404 for foreign accounts, 401 without login, 400 for bad ids', async () => {
        const other = await createUser(t.app);
        const admin = await loggedIn(t.app, 'ADMIN');
        expect((await client(t.app, admin.cookie).post(`/api/users/${other.id}/consent/email`)).json().optInEmail).toBe(true);
        for (const role of ['USER', 'DISTRIBUTOR'] as const) {
          const caller = await loggedIn(t.app, role);
          expectError(await client(t.app, caller.cookie).delete(`/api/users/${other.id}/consent/email`), 404, 'ERR_NOT_FOUND');
          expectError(await client(t.app, caller.cookie).post('/api/users/x/consent/email'), 400, 'ERR_VALIDATION');
        }
        expectError(await client(t.app).post(`/api/users/${other.id}/consent/email`), 401, 'ERR_UNAUTHENTICATED');
      });
    });
  },
  { env: { DATA_DIR: privateDataDir() } },
);
