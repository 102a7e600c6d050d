import { randomBytes } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OrderWebhookResult } from '@lm/contract/order';
import { orderSignature } from '../src/modules/orders/signature.ts';
import { privateDataDir } from './accounts-helpers.ts';
import { client, describeBothDatabases, expectError, login, loggedIn, uniqueEmail } from './harness.ts';
import { linkTo, mailsTo, onlyMailTo } from './mail-helpers.ts';

const SECRET = 'shop-secret-for-tests-0123456789';

describeBothDatabases(
  'order webhook',
  (t) => {
    let admin: ReturnType<typeof client>;
    let productId: number;

    const setting = async (key: string, value: unknown) => {
      const response = value === null ? await admin.delete(`/api/settings/${key}`) : await admin.put(`/api/settings/${key}`, { body: { value } });
      expect(response.statusCode, response.body).toBe(204);
    };

    async function insertProduct(active = true): Promise<number> {
      const now = new Date().toISOString();
      const policy = await t.app.ctx.db.selectFrom('license_policies').select('id').where('name', '=', 'SINGLE_HOST_PERPETUAL').executeTakeFirstOrThrow();
      const row = await t.app.ctx.db
        .insertInto('products')
        .values({ name: `Shop-${randomBytes(3).toString('hex')}`, version: '1.0', active, default_license_policy_id: policy.id, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    }

    const order = (fields: Record<string, unknown> = {}) => ({
      orderId: `order-${randomBytes(6).toString('hex')}`,
      timestamp: new Date().toISOString(),
      email: uniqueEmail('buyer'),
      firstName: 'Ada',
      lastName: 'Lovelace',
      company: 'Engines Ltd',
      locale: 'de',
      machineId: `MACHINE-${randomBytes(4).toString('hex')}`,
      ...fields,
    });

    /** Posts the exact bytes that are signed; the signature may be replaced to test refusals. */
    function deliver(body: unknown, options: { signature?: string | null; secret?: string; raw?: string; headers?: Record<string, string> } = {}) {
      const raw = options.raw ?? JSON.stringify(body);
      const signature = options.signature === undefined ? orderSignature(options.secret ?? SECRET, raw) : options.signature;
      return t.app.inject({
        method: 'POST',
        url: '/api/webhooks/orders',
        payload: raw,
        headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-signature': signature }), ...options.headers },
      });
    }

    const accepted = async (body: unknown) => {
      const response = await deliver(body);
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as OrderWebhookResult;
    };

    const count = async (table: 'users' | 'licenses' | 'webhook_orders') =>
      Number((await t.app.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow()).count);

    beforeAll(async () => {
      admin = client(t.app, (await loggedIn(t.app, 'ADMIN')).cookie);
      productId = await insertProduct();
    });

    beforeEach(async () => {
      await setting('webhook.secret', SECRET);
      await setting('order.autoCreateAccount', true);
      await setting('order.autoTemporaryLicense', true);
      await setting('order.temporaryLicenseProductId', productId);
      await setting('order.temporaryLicenseDays', 14);
    });

    describe('signature and freshness', () => {
      it('refuses every delivery while no webhook secret is set (401)', async () => {
        await setting('webhook.secret', null);
        expectError(await deliver(order()), 401, 'ERR_INVALID_SIGNATURE');
      });

      it('refuses a wrong, missing, truncated or foreign-key signature (401) and creates nothing', async () => {
        const users = await count('users');
        const body = order();
        const raw = JSON.stringify(body);
        const good = orderSignature(SECRET, raw);
        expectError(await deliver(body, { signature: null }), 401, 'ERR_INVALID_SIGNATURE');
        expectError(await deliver(body, { signature: 'nonsense' }), 401, 'ERR_INVALID_SIGNATURE');
        expectError(await deliver(body, { signature: good.slice(0, 40) }), 401, 'ERR_INVALID_SIGNATURE');
        expectError(await deliver(body, { secret: 'another-secret-0123456789' }), 401, 'ERR_INVALID_SIGNATURE');
        // The signature covers the raw bytes: the same JSON formatted differently is another body.
        expectError(await deliver(body, { raw: JSON.stringify(body, null, 2), signature: good }), 401, 'ERR_INVALID_SIGNATURE');
        expect(await count('users')).toBe(users);
        expect(await count('webhook_orders')).toBe(0);
      });

      it('checks the signature before the body: an unsigned malformed body gets 401, a signed one 400', async () => {
        expectError(await deliver({ orderId: 'x' }, { signature: null }), 401, 'ERR_INVALID_SIGNATURE');
        const invalid = expectError(await deliver({ ...order(), email: 'not-an-address' }), 400, 'ERR_VALIDATION');
        expect(invalid.details?.some((detail) => detail.path === 'email')).toBe(true);
        expectError(await deliver({ ...order(), timestamp: 'yesterday' }), 400, 'ERR_VALIDATION');
        expectError(await deliver(null, { raw: '{"orderId":' }), 400, 'ERR_BAD_REQUEST');
      });

      it('refuses line items, which only a generic shop connection maps to TANs, instead of dropping them, and takes an empty list', async () => {
        const orders = await count('webhook_orders');
        const withItems = order({ items: [{ externalId: 'PRO-YEARLY', quantity: 1 }] });
        const refused = expectError(await deliver(withItems), 400, 'ERR_VALIDATION');
        expect(refused.details).toMatchObject([{ path: 'items', code: 'itemsNeedShopConnection' }]);
        expect(refused.details?.[0].message).toContain('Generic');
        expect(await count('webhook_orders')).toBe(orders);
        expect((await deliver(order({ items: [] }))).statusCode).toBe(200);
      });

      it('refuses timestamps more than five minutes off as replays (401), accepts Unix seconds', async () => {
        const tenMinutes = 10 * 60 * 1000;
        expectError(await deliver(order({ timestamp: new Date(Date.now() - tenMinutes).toISOString() })), 401, 'ERR_STALE_REQUEST');
        expectError(await deliver(order({ timestamp: new Date(Date.now() + tenMinutes).toISOString() })), 401, 'ERR_STALE_REQUEST');
        expectError(await deliver(order({ timestamp: Math.floor(Date.now() / 1000) - 3600 })), 401, 'ERR_STALE_REQUEST');
        expect((await accepted(order({ timestamp: Math.floor(Date.now() / 1000) - 60 }))).account).toBe('created');
      });

      it('takes only JSON (415 otherwise), and leaves the JSON parsing of other routes alone', async () => {
        const response = await t.app.inject({ method: 'POST', url: '/api/webhooks/orders', payload: 'orderId=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
        expectError(response, 415, 'ERR_UNSUPPORTED_MEDIA_TYPE');
        expect((await admin.put('/api/settings/order.temporaryLicenseDays', { body: { value: 21 } })).statusCode).toBe(204);
        expectError(await admin.put('/api/settings/order.temporaryLicenseDays', { body: { value: 'soon' } }), 400, 'ERR_VALIDATION');
      });
    });

    describe('days valid', () => {
      it('cannot exceed the maximum for temporary licenses, in the setting and when the maximum is lowered later', async () => {
        const refused = expectError(await admin.put('/api/settings/order.temporaryLicenseDays', { body: { value: 45 } }), 400, 'ERR_VALIDATION');
        expect(refused.details).toMatchObject([{ path: 'value', code: 'tooBig', params: { maximum: 30 } }]);
        await setting('order.temporaryLicenseDays', 30);
        await setting('license.temporaryMaxDays', 10);
        try {
          const result = await accepted(order());
          const license = await t.app.ctx.db.selectFrom('licenses').select('valid_until').where('id', '=', result.licenseId!).executeTakeFirstOrThrow();
          expect(license.valid_until).toBe(new Date(Date.now() + 10 * 86400000).toISOString().slice(0, 10));
        } finally {
          await setting('license.temporaryMaxDays', null);
        }
      });
    });

    describe('automations', () => {
      it('creates a confirmed customer account and a temporary license bound to the order machine', async () => {
        const body = order();
        const result = await accepted(body);
        expect(result).toMatchObject({ orderId: body.orderId, duplicate: false, account: 'created', temporaryLicense: 'created' });

        const user = await t.app.ctx.db.selectFrom('users').selectAll().where('id', '=', result.userId!).executeTakeFirstOrThrow();
        expect(user).toMatchObject({ email: body.email, first_name: 'Ada', last_name: 'Lovelace', company: 'Engines Ltd', access_role: 'USER', locale: 'de' });
        expect(Boolean(user.confirmed)).toBe(true);
        expect(user.password_hash).toMatch(/^\$argon2id\$/);

        const license = await t.app.ctx.db.selectFrom('licenses').selectAll().where('id', '=', result.licenseId!).executeTakeFirstOrThrow();
        const inFourteenDays = new Date(Date.now() + 14 * 86400000).toISOString().slice(0, 10);
        expect(license).toMatchObject({ kind: 'TEMPORARY', owner_id: user.id, product_id: productId, machine_id: body.machineId, valid_until: inFourteenDays, tan_id: null });
        expect(Boolean(license.revoked)).toBe(false);
        const bound = await t.app.ctx.db.selectFrom('license_machines').select('machine_id').where('license_id', '=', license.id).execute();
        expect(bound).toEqual([{ machine_id: body.machineId }]);
        // The machine's trial of the product, for the licensing rules of later self-service trials.
        const trials = await t.app.ctx.db.selectFrom('license_trials').select(['machine_id', 'license_id']).where('product_id', '=', productId).where('machine_id', '=', body.machineId).execute();
        expect(trials).toEqual([{ machine_id: body.machineId, license_id: license.id }]);

        // Both changes are in the change log as the system's, without the password hash.
        const userChanges = (await admin.get('/api/changes/User', { query: { recordId: String(user.id) } })).json();
        expect(userChanges.items).toMatchObject([{ operation: 'insert', userId: null, newValues: { email: body.email, confirmed: true } }]);
        expect(JSON.stringify(userChanges)).not.toContain('argon2');
        const licenseChanges = (await admin.get('/api/changes/License', { query: { recordId: String(license.id) } })).json();
        expect(licenseChanges.items).toMatchObject([{ operation: 'insert', userId: null, newValues: { kind: 'TEMPORARY', machineId: body.machineId } }]);
      });

      it('mails the new customer a link to choose a password, in the order\'s language, which then logs them in', async () => {
        const body = order({ locale: 'de', firstName: 'Grete' });
        await accepted(body);
        const mail = await onlyMailTo(t.app, body.email);
        expect(mail.subject).toBe('Ihr Konto bei License Manager');
        expect(mail.text).toContain('Hallo Grete,');
        expect(mail.text).toContain('7 Tage');
        const link = linkTo(mail, '/reset-password');
        expect(link.searchParams.get('email')).toBe(body.email);
        const chosen = 'chosen-by-the-customer';
        const reset = await client(t.app).post('/api/users/reset-password', { body: { email: body.email, password: chosen, token: link.searchParams.get('token') } });
        expect(reset.statusCode, reset.body).toBe(204);
        await login(t.app, body.email, chosen);

        // An existing account and a repeated order mail nothing.
        await accepted(order({ email: body.email }));
        await accepted(body);
        expect(await mailsTo(t.app, body.email)).toHaveLength(1);
      });

      it('writes the set-password mail in English when the order names no language', async () => {
        const body = order({ locale: undefined });
        await accepted(body);
        expect((await onlyMailTo(t.app, body.email)).subject).toBe('Your account at License Manager');
      });

      it('takes a region-tagged language as the language (de-AT is German), and an unknown one as English', async () => {
        const german = order({ locale: 'de-AT' });
        await accepted(german);
        const row = await t.app.ctx.db.selectFrom('users').select('locale').where('email', '=', german.email).executeTakeFirstOrThrow();
        expect(row.locale).toBe('de');
        const other = order({ locale: 'pt-BR' });
        await accepted(other);
        expect((await onlyMailTo(t.app, other.email)).subject).toBe('Your account at License Manager');
      });

      it('leaves the license unbound when the order carries no machine id, until the customer changes the machine', async () => {
        const customer = await loggedIn(t.app, 'USER');
        const result = await accepted(order({ email: customer.email, machineId: undefined }));
        const license = await t.app.ctx.db.selectFrom('licenses').selectAll().where('id', '=', result.licenseId!).executeTakeFirstOrThrow();
        expect(license.machine_id).toBeNull();
        expect(await t.app.ctx.db.selectFrom('license_machines').select('id').where('license_id', '=', license.id).execute()).toEqual([]);

        const changed = await client(t.app, customer.cookie).put(`/api/licenses/${license.id}/machine`, { body: { machineId: 'SET-BY-CUSTOMER' } });
        expect(changed.statusCode, changed.body).toBe(200);
        const bound = await t.app.ctx.db.selectFrom('licenses').select('machine_id').where('id', '=', license.id).executeTakeFirstOrThrow();
        expect(bound.machine_id).toBe('SET-BY-CUSTOMER');
      });

      it('handles an order id once: a repeated delivery answers the first result and creates nothing', async () => {
        const body = order();
        const first = await accepted(body);
        const users = await count('users');
        const licenses = await count('licenses');
        const again = await accepted(body);
        expect(again).toEqual({ ...first, duplicate: true });
        // Even with other contents: the order id decides.
        const altered = await accepted({ ...body, email: uniqueEmail('other'), machineId: 'OTHER-MACHINE' });
        expect(altered).toEqual({ ...first, duplicate: true });
        expect(await count('users')).toBe(users);
        expect(await count('licenses')).toBe(licenses);
      });

      it('handles the same order delivered twice at once exactly once', async () => {
        const body = order();
        const licenses = await count('licenses');
        const results = (await Promise.all([deliver(body), deliver(body)])).map((response) => {
          expect(response.statusCode, response.body).toBe(200);
          return response.json() as OrderWebhookResult;
        });
        expect(results.map((result) => result.duplicate).sort()).toEqual([false, true]);
        expect(results[0].licenseId).toBe(results[1].licenseId);
        expect(await count('licenses')).toBe(licenses + 1);
      });

      it('with automatic account creation off: no account for an unknown address, the existing one otherwise', async () => {
        await setting('order.autoCreateAccount', false);
        const users = await count('users');
        expect(await accepted(order())).toMatchObject({ account: 'none', userId: null, temporaryLicense: 'no-account', licenseId: null });
        expect(await count('users')).toBe(users);

        const customer = await loggedIn(t.app, 'USER');
        const result = await accepted(order({ email: customer.email.toUpperCase() }));
        expect(result).toMatchObject({ account: 'existing', userId: customer.id, temporaryLicense: 'created' });
        const license = await t.app.ctx.db.selectFrom('licenses').select('owner_id').where('id', '=', result.licenseId!).executeTakeFirstOrThrow();
        expect(license.owner_id).toBe(customer.id);
      });

      it('with automatic temporary license off: the account only', async () => {
        await setting('order.autoTemporaryLicense', false);
        const licenses = await count('licenses');
        expect(await accepted(order())).toMatchObject({ account: 'created', temporaryLicense: 'off', licenseId: null });
        expect(await count('licenses')).toBe(licenses);
      });

      it('with both automations off: records the order and does nothing else', async () => {
        await setting('order.autoCreateAccount', false);
        await setting('order.autoTemporaryLicense', false);
        const [users, licenses] = [await count('users'), await count('licenses')];
        expect(await accepted(order())).toMatchObject({ account: 'none', temporaryLicense: 'off' });
        expect([await count('users'), await count('licenses')]).toEqual([users, licenses]);
      });

      it('creates no license without a configured active product', async () => {
        await setting('order.temporaryLicenseProductId', null);
        expect(await accepted(order())).toMatchObject({ account: 'created', temporaryLicense: 'no-product' });
        await setting('order.temporaryLicenseProductId', await insertProduct(false));
        expect(await accepted(order())).toMatchObject({ account: 'created', temporaryLicense: 'no-product' });
      });

      it('creates no second license for a machine that already holds one of the product', async () => {
        const machineId = `BUSY-${randomBytes(4).toString('hex')}`;
        expect((await accepted(order({ machineId }))).temporaryLicense).toBe('created');
        expect(await accepted(order({ machineId }))).toMatchObject({ account: 'created', temporaryLicense: 'machine-has-license', licenseId: null });
      });
    });
  },
  { env: { DATA_DIR: privateDataDir() } },
);
