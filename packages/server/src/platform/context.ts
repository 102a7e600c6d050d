import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { MailService } from './mail/service.ts';

/** What services need from the platform; built once by buildApp and handed to every module. */
export interface AppContext extends Database {
  config: Config;
  log: FastifyBaseLogger;
  /** The outbox worker: queue mails with enqueueMail in a transaction, then call wake(). */
  mail: MailService;
}

/** Who did something, for permissions and the change log; null user is the system. */
export interface Actor {
  userId: number | null;
}

export const SYSTEM: Actor = { userId: null };
