import { describe, expect, it } from 'vitest';
import { ensureAdministrator } from '../src/modules/users/bootstrap.ts';
import { countUsersWithRole, findUserByEmail } from '../src/modules/users/repo.ts';
import { openDatabase } from '../src/platform/db/database.ts';
import { buildTestApp, client, createUser, describeBothDatabases, expectError, login, testConfig } from './harness.ts';

describeBothDatabases('first start', (t) => {
  describe('ensureAdministrator', () => {
    it('creates exactly one administrator with a random password that logs in', async () => {
      expect(await countUsersWithRole(t.app.ctx.db, 'ADMIN')).toBe(0);
      const created = await ensureAdministrator(t.app.ctx);
      expect(created).not.toBeNull();
      expect(created!.email).toBe('admin@example.com');
      expect(created!.password).toEqual(expect.any(String));
      expect(created!.password!.length).toBeGreaterThanOrEqual(12);
      expect(await countUsersWithRole(t.app.ctx.db, 'ADMIN')).toBe(1);

      const row = await findUserByEmail(t.app.ctx.db, created!.email);
      expect(row).toMatchObject({ access_role: 'ADMIN' });
      expect(Boolean(row!.confirmed)).toBe(true);
      expect(row!.password_hash).toMatch(/^\$argon2id\$/);

      const cookie = await login(t.app, created!.email, created!.password);
      expect((await client(t.app, cookie).get('/api/session')).json()).toMatchObject({ accessRole: 'ADMIN', username: 'admin@example.com' });
      // No English placeholder name: shown by its address in every language, until the person enters a name.
      const own = (await client(t.app, cookie).get(`/api/users/${row!.id}`)).json() as { firstName: string; lastName: string; formattedName: string };
      expect(own).toMatchObject({ firstName: '', lastName: '', formattedName: 'admin@example.com' });
    });

    it('is idempotent: a second start creates nobody and prints no password', async () => {
      expect(await ensureAdministrator(t.app.ctx)).toBeNull();
      expect(await ensureAdministrator(t.app.ctx)).toBeNull();
      expect(await countUsersWithRole(t.app.ctx.db, 'ADMIN')).toBe(1);
      const total = await t.app.ctx.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
      expect(Number(total.count)).toBe(1);
    });

    it('writes a change-log row for the insert, by the system, without the password hash', async () => {
      const admin = (await findUserByEmail(t.app.ctx.db, 'admin@example.com'))!;
      const rows = await t.app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', 'User').where('record_id', '=', admin.id).execute();
      expect(rows).toHaveLength(1);
      const [row] = rows;
      expect(row).toMatchObject({ operation: 'insert', user_id: null, old_values: null });
      expect(Number.isNaN(Date.parse(row.timestamp))).toBe(false);
      const values = JSON.parse(row.new_values!);
      expect(values).toMatchObject({ id: admin.id, email: 'admin@example.com', accessRole: 'ADMIN', confirmed: true });
      for (const secret of ['passwordHash', 'password_hash', 'password']) expect(values).not.toHaveProperty(secret);
      expect(row.new_values).not.toContain(admin.password_hash!);
      expect(row.new_values).not.toContain('argon2');
    });

    it('does not count other roles as an administrator', async () => {
      const app = await t.newApp();
      await createUser(app, { role: 'DISTRIBUTOR' });
      await createUser(app, { role: 'USER' });
      expect(await ensureAdministrator(app.ctx)).not.toBeNull();
      expect(await countUsersWithRole(app.ctx.db, 'ADMIN')).toBe(1);
    });

    it('takes ADMIN_EMAIL and ADMIN_PASSWORD and then prints no password', async () => {
      const app = await t.newApp({ env: { ADMIN_EMAIL: 'Boss@Example.COM', ADMIN_PASSWORD: 'from-the-environment' } });
      const created = await ensureAdministrator(app.ctx);
      expect(created).toEqual({ email: 'boss@example.com', password: undefined });
      await login(app, 'boss@example.com', 'from-the-environment');
    });

    it('creates one administrator when instances start at once on an empty database, and only its creator prints a password', async () => {
      const app = await t.newApp();
      // On PostgreSQL a second instance with its own pool, as behind a load balancer; SQLite is one file per process.
      const second = t.kind === 'postgres' ? await buildTestApp(testConfig(app.ctx.config.database), openDatabase(app.ctx.config.database)) : app;
      try {
        const starts = await Promise.all(Array.from({ length: 12 }, (_, i) => ensureAdministrator((i % 2 ? second : app).ctx)));
        const printed = starts.filter((start) => start !== null);
        expect(printed).toHaveLength(1);
        expect(await countUsersWithRole(app.ctx.db, 'ADMIN')).toBe(1);
        await login(second, printed[0]!.email, printed[0]!.password);
      } finally {
        if (second !== app) {
          await second.close();
          await second.ctx.close();
        }
      }
    });

    it('refuses an ADMIN_EMAIL that belongs to a non-administrator account', async () => {
      const app = await t.newApp({ env: { ADMIN_EMAIL: 'taken@example.com' } });
      await createUser(app, { email: 'taken@example.com', role: 'USER' });
      await expect(ensureAdministrator(app.ctx)).rejects.toThrow(/ADMIN_EMAIL taken@example.com/);
      expect(await countUsersWithRole(app.ctx.db, 'ADMIN')).toBe(0);
    });
  });

  describe('createUserFromCli', () => {
    it('refuses a duplicate address with ERR_DUPLICATE_EMAIL', async () => {
      const user = await createUser(t.app);
      await expect(createUser(t.app, { email: user.email })).rejects.toMatchObject({ status: 409, code: 'ERR_DUPLICATE_EMAIL' });
    });

    it('logs the insert in the change log without the password hash', async () => {
      const user = await createUser(t.app, { role: 'DISTRIBUTOR' });
      const row = await t.app.ctx.db.selectFrom('change_log').selectAll().where('model', '=', 'User').where('record_id', '=', user.id).executeTakeFirstOrThrow();
      expect(row.operation).toBe('insert');
      expect(JSON.parse(row.new_values!)).not.toHaveProperty('passwordHash');
      expect(row.new_values).not.toContain('argon2');
    });

    it('creates confirmed accounts that can log in; unknown ones still cannot', async () => {
      const user = await createUser(t.app, { role: 'USER', password: 'another secret' });
      await login(t.app, user.email, 'another secret');
      expectError(await client(t.app).post('/api/session', { body: { username: user.email, password: 'correct horse battery' } }), 401, 'ERR_LOGIN_FAILED');
    });
  });
});
