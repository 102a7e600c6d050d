import { expect, it } from 'vitest';
import { enqueueMail, MailService } from '../src/platform/mail/index.ts';
import type { MailTransport } from '../src/platform/mail/transport.ts';
import { client, describeBothDatabases, login, uniqueEmail } from './harness.ts';
import { privateDataDir, registerAccount } from './accounts-helpers.ts';
import { freePort, linkTo, startSmtpServer, type ReceivedMail } from './mail-helpers.ts';
import type { App } from '../src/app.ts';
import { HANG_GUARD_MS } from './processes.ts';

async function followConfirmationLink(app: App, mail: ReceivedMail): Promise<void> {
  const link = linkTo(mail, '/register/confirm');
  const response = await client(app).post('/api/users/confirm', { body: { id: Number(link.searchParams.get('id')), token: link.searchParams.get('token') } });
  expect(response.statusCode, response.body).toBe(204);
}

async function waitUntil<T>(probe: () => Promise<T | undefined>, timeoutMs = HANG_GUARD_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describeBothDatabases(
  'mail over SMTP',
  (t) => {
    it('delivers the confirmation mail to a real SMTP server; its link confirms and the account logs in', async () => {
      const smtp = await startSmtpServer();
      try {
        const app = await t.newApp({ env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'Licenses <licenses@example.com>' } });
        expect(app.ctx.mail.transport.kind).toBe('smtp');
        const { email, password } = await registerAccount(app, { locale: 'en' });
        const result = await app.ctx.mail.flush();
        expect(result.deferred).toBe(0);
        const mail = await smtp.waitFor((m) => m.to.includes(email));
        expect(mail.from).toContain('licenses@example.com');
        expect(mail.subject).toBe('Confirm your registration at License Manager');
        expect(mail.html).toContain('<a href="http://localhost:3000/register/confirm?');
        await followConfirmationLink(app, mail);
        await login(app, email, password);
        expect(await app.ctx.db.selectFrom('mail_outbox').select('id').execute()).toEqual([]);
      } finally {
        await smtp.close();
      }
    });

    it('keeps the mail while the SMTP server is down, answers the request at once, and delivers when it comes up', async () => {
      const port = await freePort();
      const app = await t.newApp({
        env: { SMTP_URL: `smtp://127.0.0.1:${port}` },
        config: { mailWorker: { pollIntervalMs: 50, retryBaseMs: 100, retryMaxMs: 300 } },
      });
      const started = Date.now();
      const { email, password } = await registerAccount(app);
      expect(Date.now() - started).toBeLessThan(5_000);

      // The worker tried, failed, and kept the mail for a later attempt.
      const failed = await waitUntil(async () => {
        const row = await app.ctx.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', email).executeTakeFirst();
        return row && row.attempts >= 1 ? row : undefined;
      });
      expect(failed.last_error).toMatch(/ECONNREFUSED|connect/i);
      expect(failed.failed_at).toBeNull();

      const smtp = await startSmtpServer(port);
      try {
        const mail = await smtp.waitFor((m) => m.to.includes(email));
        await waitUntil(async () => ((await app.ctx.db.selectFrom('mail_outbox').select('id').execute()).length === 0 ? true : undefined));
        expect(smtp.received.filter((m) => m.to.includes(email))).toHaveLength(1);
        await followConfirmationLink(app, mail);
        await login(app, email, password);
      } finally {
        await smtp.close();
      }
    });

    it('gives a mail up only when it is older than every link in it, keeping the failure without the bodies', async () => {
      const port = await freePort();
      const app = await t.newApp({ env: { SMTP_URL: `smtp://127.0.0.1:${port}` }, config: { mailWorker: { maxAgeMs: 0, pollIntervalMs: 60_000 } } });
      const email = uniqueEmail('lost');
      await enqueueMail(app.ctx.db, { to: email, subject: 'S', text: 'T', html: '<p>H</p>' });
      expect(await app.ctx.mail.flush()).toEqual({ sent: 0, deferred: 0, givenUp: 1 });
      const row = await app.ctx.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', email).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ text_body: null, html_body: null, attempts: 1 });
      expect(row.failed_at).toEqual(expect.any(String));
      expect(await app.ctx.mail.flush()).toEqual({ sent: 0, deferred: 0, givenUp: 0 });
    });

    it('sends each mail once when several instances share the outbox', async () => {
      const app = await t.newApp({ config: { mailWorker: { pollIntervalMs: 60_000 } } });
      await app.ctx.mail.flush();
      // The app's own worker would be a fourth, uncounted one (its first pass may fall in the race).
      await app.ctx.mail.stop();
      const sent: number[] = [];
      const counting = (): MailTransport => ({
        kind: 'smtp',
        async send(mail) {
          await new Promise((resolve) => setTimeout(resolve, 2));
          sent.push(mail.id);
        },
        close() {},
      });
      for (let i = 0; i < 30; i++) await enqueueMail(app.ctx.db, { to: `n${i}@example.com`, subject: 'S', text: 'T', html: 'H' });
      const workers = [1, 2, 3].map(() => new MailService(app.ctx.db, app.log, counting(), 'from@example.com', { pollIntervalMs: 60_000 }));
      const results = await Promise.all(workers.map((worker) => worker.flush()));
      expect(results.reduce((sum, result) => sum + result.sent, 0)).toBe(30);
      expect(sent).toHaveLength(30);
      expect(new Set(sent).size).toBe(30);
    });
  },
  { env: { DATA_DIR: privateDataDir() } },
);
