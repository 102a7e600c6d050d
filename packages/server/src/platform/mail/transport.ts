import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';
import type { OutgoingMail } from './outbox.ts';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../private-files.ts';

/** Delivers one mail or throws; the worker retries what throws. */
export interface MailTransport {
  readonly kind: 'smtp' | 'file';
  send(mail: OutgoingMail & { id: number; from: string }): Promise<void>;
  close(): void;
}

/** SMTP through nodemailer; the URL may carry nodemailer's options as query parameters. */
export function smtpTransport(url: string): MailTransport {
  // nodemailer's defaults wait minutes for a silent server; a worker should move on sooner (the URL may override).
  const transporter = nodemailer.createTransport({ url, connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000 });
  return {
    kind: 'smtp',
    async send(mail) {
      await transporter.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    },
    close: () => transporter.close(),
  };
}

const FIRST_LINK = /https?:\/\/\S+/;

/**
 * Without SMTP_URL (a laptop, a demo): each mail becomes an .eml file in `dir`, which any mail
 * program opens, and its link goes to the log, so that nobody needs a mail server to try the product.
 */
export function fileTransport(dir: string, log: FastifyBaseLogger): MailTransport {
  const builder = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'file',
    async send(mail) {
      const info = await builder.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
      await fs.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const file = path.join(dir, `${stamp}-${mail.id}.eml`);
      await fs.writeFile(file, info.message as Buffer, { mode: PRIVATE_FILE_MODE });
      log.info({ to: mail.to, subject: mail.subject, file, link: mail.text.match(FIRST_LINK)?.[0] }, 'mail written to file (SMTP_URL is not set)');
    },
    close: () => builder.close(),
  };
}
