import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { MailService } from './service.ts';
import { fileTransport, smtpTransport } from './transport.ts';

export { enqueueMail, mailBacklog, removeMailsTo, type OutgoingMail } from './outbox.ts';
export { renderMail, type MailContent } from './layout.ts';
export { MailService, type MailPassResult } from './service.ts';
export { retryDelay, type MailWorkerOptions } from './options.ts';

/** The mail worker for the config: SMTP when SMTP_URL is set, otherwise files in DATA_DIR/mail. */
export function createMailService(config: Config, db: Kysely<DB>, log: FastifyBaseLogger): MailService {
  const transport = config.smtpUrl ? smtpTransport(config.smtpUrl) : fileTransport(path.join(config.dataDir, 'mail'), log);
  return new MailService(db, log.child({ component: 'mail' }), transport, config.mailFrom, config.mailWorker);
}
