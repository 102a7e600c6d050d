/**
 * The mails a journey's server wrote (no SMTP_URL: one .eml file per mail in DATA_DIR/mail), read
 * as a person would: find the mail to an address, take its link. nodemailer writes the text part
 * quoted-printable; that is all that needs decoding here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { TestServer } from './harness.ts';

function decodeQuotedPrintable(text: string): string {
  const bytes = text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** The raw messages sent to an address so far, oldest first. */
export function mailsTo(server: TestServer, address: string): string[] {
  const dir = path.join(server.dataDir, 'mail');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.eml'))
    .sort()
    .map((file) => fs.readFileSync(path.join(dir, file), 'utf8'))
    .filter((raw) => new RegExp(`^To: .*${address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'mi').test(raw));
}

/** Waits for the `nth` mail to the address (1 = the first) and answers its link to `page`, made relative. */
export async function linkFromMail(server: TestServer, address: string, page: string, nth = 1): Promise<string> {
  await expect.poll(() => mailsTo(server, address).length).toBeGreaterThanOrEqual(nth);
  const text = decodeQuotedPrintable(mailsTo(server, address)[nth - 1]);
  const match = text.match(new RegExp(`${server.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${page}\\?[^\\s"<]+`));
  if (!match) throw new Error(`no link to ${page} in the mail to ${address}`);
  const url = new URL(match[0].replace(/&amp;/g, '&'));
  return `${url.pathname}${url.search}`;
}

/** Waits for a mail to the address and answers the path of its link under `prefix` (a link without a query: `/invitations/<token>`). */
export async function pathFromMail(server: TestServer, address: string, prefix: string): Promise<string> {
  await expect.poll(() => mailsTo(server, address).length).toBeGreaterThan(0);
  const text = decodeQuotedPrintable(mailsTo(server, address).at(-1)!);
  const match = text.match(new RegExp(`${server.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${prefix}[^\\s"<?]+`));
  if (!match) throw new Error(`no link to ${prefix} in the mail to ${address}`);
  return new URL(match[0]).pathname;
}
