import { beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_LOG_MODELS, type ChangeLogModel } from '@lm/contract';
import type { ChangeLogEntry } from '@lm/contract/change-log';
import { formatTanCode } from '@lm/contract/tan';
import { recordChange } from '../src/platform/changelog.ts';
import { SYSTEM, type Actor } from '../src/platform/context.ts';
import { client, createUser, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { createTans, insertProduct } from './licensing-test-data.ts';

type Client = ReturnType<typeof client>;

describeBothDatabases('change log', (t) => {
  let admin: Client;
  let adminActor: Actor;
  let adminName: string;

  beforeAll(async () => {
    const created = await loggedIn(t.app, 'ADMIN');
    admin = client(t.app, created.cookie);
    adminActor = { userId: created.id };
    adminName = `${created.email.split('@')[0]} Administrator`;
  });

  /** Writes changes the way every service does: in a transaction, through recordChange. */
  async function change(actor: Actor, model: ChangeLogModel, recordId: number, operation: 'insert' | 'update' | 'delete', oldValues: object | null, newValues: object | null) {
    await t.app.ctx.db.transaction().execute((trx) =>
      recordChange(trx, actor, { model, recordId, operation, oldValues: oldValues as Record<string, unknown>, newValues: newValues as Record<string, unknown> }),
    );
  }

  const entries = async (model: string, query: Record<string, string> = {}) => {
    const response = await admin.get(`/api/changes/${model}`, { query });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { items: ChangeLogEntry[]; totalCount: number };
  };

  describe('GET /api/changes/{model}', () => {
    for (const model of CHANGE_LOG_MODELS) {
      it(`lists the ${model} inserts, updates and deletes newest first, by user and by system`, async () => {
        const recordId = 1000 + CHANGE_LOG_MODELS.indexOf(model);
        await change(SYSTEM, model, recordId, 'insert', null, { id: recordId, name: 'first' });
        await change(adminActor, model, recordId, 'update', { id: recordId, name: 'first' }, { id: recordId, name: 'second' });
        await change(adminActor, model, recordId, 'delete', { id: recordId, name: 'second' }, null);

        const { items, totalCount } = await entries(model, { recordId: String(recordId) });
        expect(totalCount).toBe(3);
        expect(items.map((entry) => entry.operation)).toEqual(['delete', 'update', 'insert']);
        expect(items.every((entry) => entry.model === model && entry.recordId === recordId)).toBe(true);
        const [deleted, updated, inserted] = items;
        expect(inserted).toMatchObject({ userId: null, userName: null, oldValues: null, newValues: { id: recordId, name: 'first' } });
        expect(updated).toMatchObject({ userId: adminActor.userId, userName: adminName, oldValues: { name: 'first' }, newValues: { name: 'second' } });
        expect(deleted).toMatchObject({ userId: adminActor.userId, oldValues: { name: 'second' }, newValues: null });
        expect(Date.parse(inserted.timestamp)).toBeLessThanOrEqual(Date.parse(deleted.timestamp));
      });
    }

    it('names the records the values point to as they are called now: products, policies, accounts and TANs', async () => {
      const first = await insertProduct(t.app, { version: '1.0' });
      const second = await insertProduct(t.app, { version: '2.0' });
      const distributor = await loggedIn(t.app, 'DISTRIBUTOR');
      const [tan] = await createTans(admin, { productId: first.id, distributorId: distributor.id });
      expect((await admin.put(`/api/tans/${tan.id}`, { body: { productId: second.id } })).statusCode).toBe(200);
      const response = await admin.get('/api/changes/Tan', { query: { recordId: String(tan.id) } });
      const { items, references } = response.json();
      expect(items[0]).toMatchObject({ oldValues: { productId: first.id }, newValues: { productId: second.id } });
      expect(references.Product).toEqual({ [first.id]: `${first.name} 1.0`, [second.id]: `${second.name} 2.0` });
      expect(references.User[distributor.id]).toBe(`${distributor.email.split('@')[0]} Distributor`);
      const owner = await loggedIn(t.app, 'USER');
      const activated = await client(t.app, owner.cookie).post('/api/licenses/activate', { body: { tan: tan.code, machineId: 'CHANGES-1' } });
      expect(activated.statusCode, activated.body).toBe(201);
      const licenseLog = (await admin.get('/api/changes/License', { query: { recordId: String(activated.json().id) } })).json();
      expect(licenseLog.references.Tan).toEqual({ [tan.id]: formatTanCode(tan.code) });
      expect(licenseLog.references.User[owner.id]).toBeDefined();
      expect(Object.keys(licenseLog.references.LicensePolicy)).toHaveLength(1);
    });

    it('shows the system insert of an account created from the command line', async () => {
      const user = await createUser(t.app);
      const { items } = await entries('User', { recordId: String(user.id) });
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({ operation: 'insert', userId: null, userName: null, newValues: { id: user.id, email: user.email } });
    });

    it('keeps one model apart from the others', async () => {
      await change(SYSTEM, 'Feature', 77, 'insert', null, { name: 'only-a-feature' });
      const { items } = await entries('Product', { filter: 'only-a-feature' });
      expect(items).toEqual([]);
      expect((await entries('Feature', { filter: 'only-a-feature' })).totalCount).toBe(1);
    });

    it('filters by operation and by text in the values, case-insensitively and with % taken literally', async () => {
      await change(SYSTEM, 'Tan', 501, 'insert', null, { notes: 'Campaign Spring-50%' });
      await change(SYSTEM, 'Tan', 502, 'insert', null, { notes: 'Campaign Spring-500' });
      await change(adminActor, 'Tan', 501, 'update', { notes: 'Campaign Spring-50%' }, { notes: 'Campaign Autumn' });
      expect((await entries('Tan', { filter: 'campaign spring' })).totalCount).toBe(3);
      expect((await entries('Tan', { filter: 'spring-50%' })).items.map((entry) => entry.recordId).sort()).toEqual([501, 501]);
      expect((await entries('Tan', { filter: 'campaign', operation: 'update' })).items.map((entry) => entry.recordId)).toEqual([501]);
      // Letters beyond ASCII fold too (SQLite's own lower() leaves them as they are).
      await change(SYSTEM, 'Tan', 503, 'insert', null, { notes: 'Aktion MÜNCHEN' });
      expect((await entries('Tan', { filter: 'aktion münchen' })).items.map((entry) => entry.recordId)).toEqual([503]);
    });

    it('pages and sorts: oldest first on request, by record id', async () => {
      for (const recordId of [601, 602, 603]) await change(SYSTEM, 'LicensePolicy', recordId, 'insert', null, { name: `policy-${recordId}`, page: 'paging' });
      const newest = await entries('LicensePolicy', { filter: 'paging', limit: '2' });
      expect(newest.totalCount).toBe(3);
      expect(newest.items.map((entry) => entry.recordId)).toEqual([603, 602]);
      const rest = await entries('LicensePolicy', { filter: 'paging', limit: '2', offset: '2' });
      expect(rest.items.map((entry) => entry.recordId)).toEqual([601]);
      const oldest = await entries('LicensePolicy', { filter: 'paging', sort: 'timestamp' });
      expect(oldest.items.map((entry) => entry.recordId)).toEqual([601, 602, 603]);
      const byRecord = await entries('LicensePolicy', { filter: 'paging', sort: '-recordId' });
      expect(byRecord.items.map((entry) => entry.recordId)).toEqual([603, 602, 601]);
    });

    it('never shows secrets: not written, and not shown if an old row holds one', async () => {
      await change(adminActor, 'User', 701, 'update', { email: 'a@example.com', passwordHash: '$argon2id$old' }, {
        email: 'b@example.com',
        password_hash: '$argon2id$new',
        confirmationToken: 'tok-1',
        settings: { webhookSecret: 'whsec-1', theme: 'dark' },
      });
      const stored = await t.app.ctx.db.selectFrom('change_log').select(['old_values', 'new_values']).where('record_id', '=', 701).executeTakeFirstOrThrow();
      expect(`${stored.old_values}${stored.new_values}`).not.toMatch(/argon2id|tok-1|whsec-1/);

      await t.app.ctx.db
        .insertInto('change_log')
        .values({
          model: 'User',
          record_id: 702,
          operation: 'update',
          timestamp: new Date().toISOString(),
          user_id: null,
          old_values: JSON.stringify({ email: 'c@example.com', passwordHash: '$argon2id$legacy' }),
          new_values: JSON.stringify({ email: 'c@example.com', resetToken: 'legacy-token', webhook: { secret: 'legacy-secret' } }),
        })
        .execute();
      const response = await admin.get('/api/changes/User', { query: { recordId: '702' } });
      expect(response.statusCode).toBe(200);
      expect(response.body).not.toMatch(/argon2id|legacy-token|legacy-secret/);
      expect(response.json().items[0]).toMatchObject({ oldValues: { email: 'c@example.com' }, newValues: { email: 'c@example.com', webhook: {} } });
    });

    it('refuses unknown models, bad record ids, sort fields and operations (400)', async () => {
      expectError(await admin.get('/api/changes/Setting'), 400, 'ERR_VALIDATION');
      expectError(await admin.get('/api/changes/product'), 400, 'ERR_VALIDATION');
      expectError(await admin.get('/api/changes/Product', { query: { recordId: 'abc' } }), 400, 'ERR_VALIDATION');
      expectError(await admin.get('/api/changes/Product', { query: { recordId: '-1' } }), 400, 'ERR_VALIDATION');
      expectError(await admin.get('/api/changes/Product', { query: { sort: '-oldValues' } }), 400, 'ERR_VALIDATION');
      expectError(await admin.get('/api/changes/Product', { query: { operation: 'upsert' } }), 400, 'ERR_VALIDATION');
      expectError(await admin.get('/api/changes/Product', { query: { limit: '100000' } }), 400, 'ERR_VALIDATION');
    });

    it('refuses callers without view-change-log: anonymous 401, customers and distributors 403', async () => {
      expectError(await client(t.app).get('/api/changes/Product'), 401, 'ERR_UNAUTHENTICATED');
      for (const role of ['USER', 'DISTRIBUTOR'] as const) {
        const caller = client(t.app, (await loggedIn(t.app, role)).cookie);
        for (const model of CHANGE_LOG_MODELS) expectError(await caller.get(`/api/changes/${model}`), 403, 'ERR_FORBIDDEN');
      }
    });
  });
});
