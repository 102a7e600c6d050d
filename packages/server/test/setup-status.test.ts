import { describe, expect, it } from 'vitest';
import { mailSenderSet } from '../src/modules/setup/service.ts';
import { DEFAULT_MAIL_FROM } from '../src/platform/config.ts';
import { createPolicy, createProduct } from './catalogue-fixtures.ts';
import { client, createUser, describeBothDatabases, expectError, loggedIn } from './harness.ts';
import { createTans } from './licensing-test-data.ts';

describeBothDatabases('the first-run checklist of a new installation', (t) => {
  it('starts with nothing set up and follows each step as it is done', async () => {
    const app = await t.newApp();
    const admin = await loggedIn(app, 'ADMIN');
    const status = async () => {
      const response = await client(app, admin.cookie).get('/api/setup-status');
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as Record<string, boolean>;
    };
    expect(await status()).toEqual({ hasProduct: false, hasOwnPolicy: false, hasTan: false, mailSenderSet: false, hasDistributor: false });

    const product = await createProduct(app, admin.cookie);
    expect(await status()).toMatchObject({ hasProduct: true, hasOwnPolicy: false, hasTan: false });
    await createPolicy(app, admin.cookie);
    expect(await status()).toMatchObject({ hasOwnPolicy: true, hasTan: false });
    await createTans(client(app, admin.cookie), { productId: product.id });
    expect(await status()).toMatchObject({ hasTan: true, hasDistributor: false });
    await createUser(app, { role: 'DISTRIBUTOR' });
    expect(await status()).toEqual({ hasProduct: true, hasOwnPolicy: true, hasTan: true, mailSenderSet: false, hasDistributor: true });
  });

  it('is for administrators only', async () => {
    for (const role of ['USER', 'DISTRIBUTOR'] as const) {
      const caller = await loggedIn(t.app, role);
      expectError(await client(t.app, caller.cookie).get('/api/setup-status'), 403, 'ERR_FORBIDDEN');
    }
    expectError(await client(t.app).get('/api/setup-status'), 401, 'ERR_UNAUTHENTICATED');
  });

  it('counts the mail sender as set once mails go out by SMTP from an address of the vendor', async () => {
    const app = await t.newApp({ env: { SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'Acme Licensing <licenses@acme.example>' } });
    const admin = await loggedIn(app, 'ADMIN');
    expect((await client(app, admin.cookie).get('/api/setup-status')).json()).toMatchObject({ mailSenderSet: true });
  });
});

describe('mailSenderSet', () => {
  it('needs both SMTP and a sender other than the default', () => {
    expect(mailSenderSet({ smtpUrl: 'smtp://mail.acme.example', mailFrom: 'Acme <licenses@acme.example>' })).toBe(true);
    expect(mailSenderSet({ smtpUrl: 'smtp://mail.acme.example', mailFrom: DEFAULT_MAIL_FROM })).toBe(false);
    expect(mailSenderSet({ smtpUrl: undefined, mailFrom: 'Acme <licenses@acme.example>' })).toBe(false);
  });
});
