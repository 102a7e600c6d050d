/** Shared steps of the account tests: register, read the mail, follow its link. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import type { App } from '../src/app.ts';
import { client, DEFAULT_PASSWORD, uniqueEmail } from './harness.ts';
import { linkTo, onlyMailTo } from './mail-helpers.ts';

/** A data directory of its own, so that the mail files a suite reads are its own; removed after the file. */
export function privateDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-accounts-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export async function registerAccount(app: App, options: { email?: string; password?: string; optInEmail?: boolean; locale?: string } = {}) {
  const email = options.email ?? uniqueEmail('reg');
  const password = options.password ?? DEFAULT_PASSWORD;
  const response = await client(app).post('/api/users/register', {
    body: { email, password, password_confirm: password, optInEmail: options.optInEmail ?? false },
    headers: options.locale ? { 'accept-language': options.locale } : {},
  });
  expect(response.statusCode, response.body).toBe(204);
  return { email, password };
}

/** The id and token of the confirmation link in the (only) mail to the address. */
export async function confirmationLinkOf(app: App, email: string) {
  const link = linkTo(await onlyMailTo(app, email), '/register/confirm');
  return { link, id: Number(link.searchParams.get('id')), token: link.searchParams.get('token')!, email: link.searchParams.get('email')! };
}

/** Registers and confirms through the mail: a customer who can log in. */
export async function registeredAndConfirmed(app: App, options: Parameters<typeof registerAccount>[1] = {}) {
  const account = await registerAccount(app, options);
  const { id, token } = await confirmationLinkOf(app, account.email);
  const response = await client(app).post('/api/users/confirm', { body: { id, token } });
  expect(response.statusCode, response.body).toBe(204);
  return { ...account, id };
}

export async function expireTokensOf(app: App, userId: number): Promise<void> {
  await app.ctx.db.updateTable('user_tokens').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('user_id', '=', userId).execute();
}
