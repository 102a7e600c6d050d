/**
 * Reading the mails the server sent, for tests: the .eml files of the file transport (no SMTP_URL)
 * and raw messages received by a loopback SMTP server. A small MIME reader is enough for what
 * nodemailer writes: headers with encoded words, multipart/alternative, quoted-printable or base64.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import type { App } from '../src/app.ts';
import { HANG_GUARD_MS } from './processes.ts';

export interface ReceivedMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
}

function decodeWords(value: string): string {
  return value.replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=\s*/g, (_all, _charset: string, encoding: string, data: string) =>
    encoding.toUpperCase() === 'B'
      ? Buffer.from(data, 'base64').toString('utf8')
      : Buffer.from(data.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'),
  );
}

function parseHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '7bit').toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable':
      return Buffer.from(body.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
    default:
      return body;
  }
}

interface Part {
  headers: Record<string, string>;
  body: string;
}

function split(raw: string): Part {
  const end = raw.indexOf('\n\n');
  return end < 0 ? { headers: parseHeaders(raw), body: '' } : { headers: parseHeaders(raw.slice(0, end)), body: raw.slice(end + 2) };
}

function leafParts(part: Part): Part[] {
  const type = part.headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!type.toLowerCase().startsWith('multipart/') || !boundary) return [part];
  const sections = part.body.split(`--${boundary}`).slice(1);
  return sections.filter((section) => !section.startsWith('--')).flatMap((section) => leafParts(split(section.replace(/^\n/, ''))));
}

export function parseMail(raw: string): ReceivedMail {
  const message = split(raw.replace(/\r\n/g, '\n'));
  const parts = leafParts(message);
  const find = (type: string) => {
    const part = parts.find((p) => (p.headers['content-type'] ?? 'text/plain').toLowerCase().startsWith(type));
    return part ? decodeBody(part.body, part.headers['content-transfer-encoding']).trimEnd() : '';
  };
  return {
    to: decodeWords(message.headers.to ?? ''),
    from: decodeWords(message.headers.from ?? ''),
    subject: decodeWords(message.headers.subject ?? ''),
    text: find('text/plain'),
    html: find('text/html'),
  };
}

/** The mails the file transport wrote to `dataDir/mail`, oldest first. */
export function mailFiles(dataDir: string): ReceivedMail[] {
  const dir = path.join(dataDir, 'mail');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.eml'))
    .sort()
    .map((file) => parseMail(fs.readFileSync(path.join(dir, file), 'utf8')));
}

/** Sends what is queued and answers the mails written to one address since the test began. */
export async function mailsTo(app: App, address: string): Promise<ReceivedMail[]> {
  await app.ctx.mail.flush();
  return mailFiles(app.ctx.config.dataDir).filter((mail) => mail.to.toLowerCase().includes(address.toLowerCase()));
}

/** The only mail to an address (fails the test if there is none or more than one). */
export async function onlyMailTo(app: App, address: string): Promise<ReceivedMail> {
  const mails = await mailsTo(app, address);
  if (mails.length !== 1) throw new Error(`expected one mail to ${address}, found ${mails.length}`);
  return mails[0];
}

/** The link of a mail to one page, parsed. */
export function linkTo(mail: ReceivedMail, pagePath: string): URL {
  const match = mail.text.match(/https?:\/\/\S+/g)?.find((url) => new URL(url).pathname === pagePath);
  if (!match) throw new Error(`no link to ${pagePath} in: ${mail.text}`);
  return new URL(match);
}

export { freePort } from './processes.ts';

export interface LoopbackSmtp {
  port: number;
  received: ReceivedMail[];
  /** Resolves with the next mail to arrive (or one already received that matches). */
  waitFor(predicate: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** An SMTP server on 127.0.0.1 (no TLS, no auth) that keeps what it receives. */
export async function startSmtpServer(port = 0): Promise<LoopbackSmtp> {
  const received: ReceivedMail[] = [];
  const waiters: { predicate: (mail: ReceivedMail) => boolean; resolve: (mail: ReceivedMail) => void }[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mail = parseMail(Buffer.concat(chunks).toString('utf8'));
        received.push(mail);
        for (const waiter of waiters.splice(0)) {
          if (waiter.predicate(mail)) waiter.resolve(mail);
          else waiters.push(waiter);
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.server.address() as net.AddressInfo;
  return {
    port: address.port,
    received,
    waitFor(predicate, timeoutMs = HANG_GUARD_MS) {
      const already = received.find(predicate);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no matching mail arrived in time')), timeoutMs);
        waiters.push({ predicate, resolve: (mail) => (clearTimeout(timer), resolve(mail)) });
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
