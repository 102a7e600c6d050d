import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { Limits } from './limits/limiter.ts';
import type { MailService } from './mail/service.ts';
import type { Metrics } from './metrics/index.ts';

/** What services need from the platform; built once by buildApp and handed to every module. */
export interface AppContext extends Database {
  config: Config;
  log: FastifyBaseLogger;
  /** The outbox worker: queue mails with enqueueMail in a transaction, then call wake(). */
  mail: MailService;
  /** Limits on attempts, shared by every instance through the database. */
  limits: Limits;
  /** What /metrics reports; modules count their own outcomes and announce their outboxes here. */
  metrics: Metrics;
}

/** Who did something, for permissions and the change log; null user is the system. */
export interface Actor {
  userId: number | null;
  /** The name of the API token the user acted through, if any (the change log shows "token <name>"). */
  tokenName?: string | null;
}

export const SYSTEM: Actor = { userId: null };
