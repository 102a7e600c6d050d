import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_PROTOCOL_RATE_LIMIT, parseNetwork, type ProtocolRateLimit } from './limits/protocol-limiter.ts';
import type { MailWorkerOptions } from './mail/options.ts';
import type { WebhookWorkerOptions } from './webhooks/options.ts';

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** One proxy address, CIDR range (`10.0.0.0/8`, `fd00::/8`) or proxy-addr's named range. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const version = net.isIP(address);
  if (!version || rest.length) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128));
}

/**
 * Which proxies in front are trusted to have written X-Forwarded-For (DESIGN.md section 8): none
 * (`false`), a number of hops, or their addresses and ranges. The client is the nearest address no
 * trusted proxy stands for, never what the client wrote further left. `true` means one proxy.
 */
const trustProxy = z.string().transform((value, context): Config['trustProxy'] => {
  const text = value.trim().toLowerCase();
  if (['false', '0', 'no', 'off'].includes(text)) return false;
  if (['true', 'yes', 'on'].includes(text)) return 1;
  if (/^\d{1,2}$/.test(text)) return Number(text);
  const entries = text.split(',').map((entry) => entry.trim()).filter(Boolean);
  const wrong = entries.filter((entry) => !isProxyAddress(entry));
  if (entries.length && !wrong.length) return entries;
  context.addIssue({ code: 'custom', message: `must be false, a number of proxy hops, or proxy addresses/CIDR ranges separated by commas${wrong.length ? ` (not an address: ${wrong.join(', ')})` : ''}` });
  return z.NEVER;
});

const PORT_RANGE = 'must be a whole number from 0 to 65535';
const POOL_SIZE = 'must be a whole number of connections from 1 to 1000';
const GRACE = 'must be a whole number of seconds from 1 to 3600';

/** A whole number of calls a minute, from 1 to 10,000,000. */
const perMinute = (fallback: number) => {
  const problem = 'must be a whole number of calls a minute from 1 to 10000000';
  return z.coerce.number(problem).int(problem).min(1, problem).max(10_000_000, problem).default(fallback);
};

/** Addresses and CIDR ranges separated by commas. */
const networks = z.string().transform((value, context) => {
  const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  const wrong = entries.filter((entry) => !parseNetwork(entry));
  if (!wrong.length) return entries;
  context.addIssue({ code: 'custom', message: `must be addresses or CIDR ranges (10.0.0.0/8, 2001:db8::/32) separated by commas (not one: ${wrong.join(', ')})` });
  return z.NEVER;
});
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The sender of mails until MAIL_FROM names the vendor's own address. */
export const DEFAULT_MAIL_FROM = 'License Manager <no-reply@localhost>';

/** The largest release artifact an upload may have, in bytes, unless ARTIFACT_MAX_SIZE says otherwise: 8 GiB. */
export const DEFAULT_ARTIFACT_MAX_SIZE = 8 * 1024 ** 3;
const ARTIFACT_SIZE = 'must be a whole number of bytes, 1 or more';

const environment = z.object({
  PORT: z.coerce.number(PORT_RANGE).int(PORT_RANGE).min(0, PORT_RANGE).max(65535, PORT_RANGE).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .refine((url) => /^(postgres(ql)?|sqlite):/.test(url), 'must start with postgres://, postgresql:// or sqlite:')
    .optional(),
  DATABASE_READ_URL: z
    .string()
    .transform((value) => value.split(',').map((url) => url.trim()).filter(Boolean))
    .refine((urls) => urls.every((url) => /^postgres(ql)?:\/\//.test(url)), 'must be postgres:// or postgresql:// URLs separated by commas')
    .optional(),
  READ_REPLICA_MAX_LAG_MS: z.coerce.number('must be a whole number of milliseconds').int('must be a whole number of milliseconds').min(0, 'must not be negative').default(1000),
  READ_YOUR_WRITES_MS: z.coerce.number('must be a whole number of milliseconds').int('must be a whole number of milliseconds').min(0, 'must not be negative').default(5000),
  DATABASE_WAIT_SECONDS: z.coerce.number('must be a whole number of seconds').int('must be a whole number of seconds').min(0, 'must be a whole number of seconds').default(0),
  DATABASE_POOL_SIZE: z.coerce.number(POOL_SIZE).int(POOL_SIZE).min(1, POOL_SIZE).max(1000, POOL_SIZE).optional(),
  STOP_GRACE_SECONDS: z.coerce.number(GRACE).int(GRACE).min(1, GRACE).max(3600, GRACE).default(8),
  PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// address' }).optional(),
  SMTP_URL: z
    .string()
    .refine((url) => /^smtps?:\/\//.test(url), 'must start with smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z.string().min(3).default(DEFAULT_MAIL_FROM),
  SECRET_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  TRUST_PROXY: trustProxy.default(false),
  ADMIN_EMAIL: z.email('must be an e-mail address').default('admin@localhost.localdomain'),
  ADMIN_PASSWORD: z.string().min(5, 'must be at least 5 characters').optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`).default('info'),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  WEB_DIST: z.string().optional(),
  WEBHOOK_PRIVATE_ADDRESSES: z.enum(['admins', 'all'], 'must be admins or all').default('admins'),
  PROTOCOL_RATE_LIMIT: perMinute(DEFAULT_PROTOCOL_RATE_LIMIT.perMachine),
  PROTOCOL_RATE_LIMIT_PER_ADDRESS: perMinute(DEFAULT_PROTOCOL_RATE_LIMIT.perAddress),
  PROTOCOL_RATE_LIMIT_ALLOW: networks.default([]),
  ARTIFACT_MAX_SIZE: z.coerce.number(ARTIFACT_SIZE).int(ARTIFACT_SIZE).min(1, ARTIFACT_SIZE).max(Number.MAX_SAFE_INTEGER, ARTIFACT_SIZE).default(DEFAULT_ARTIFACT_MAX_SIZE),
  DEVICE_POLL_INTERVAL_SECONDS: z.coerce.number('must be a whole number from 1 to 60').int('must be a whole number from 1 to 60').min(1, 'must be a whole number from 1 to 60').max(60, 'must be a whole number from 1 to 60').default(5),
});

export type Environment = z.input<typeof environment>;

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema?: string; replicas?: ReplicaConfig; /** PostgreSQL's pool: connections per instance (DATABASE_POOL_SIZE). */ poolSize?: number };
  /** How long a start waits for PostgreSQL to take connections (platform/db/wait.ts); 0: not at all. */
  databaseWaitSeconds: number;
  publicUrl: string;
  smtpUrl?: string;
  mailFrom: string;
  secretKey?: string;
  /** false, a number of trusted hops, or trusted proxy addresses/ranges (Fastify's trustProxy). */
  trustProxy: false | number | string[];
  adminEmail: string;
  adminPassword?: string;
  logLevel: string;
  /** The Bearer token /metrics asks for; without one, /metrics answers direct requests from this machine only. */
  metricsToken?: string;
  webDist: string;
  /** How long a stop (SIGTERM) lets the requests in flight finish before it answers the rest 503 and exits. */
  stopGraceSeconds: number;
  /** Tests switch off rate limits they are not about. */
  rateLimits: boolean;
  /** The desktop protocol's calls a minute per machine and per address, and networks without the address cap. */
  protocolRateLimit: ProtocolRateLimit;
  /** Timing of the mail outbox worker (tests shorten it); defaults in platform/mail/service.ts. */
  mailWorker?: Partial<MailWorkerOptions>;
  /**
   * Whose webhook endpoints may post to loopback and private addresses: administrators only (they
   * run the server; distributors' endpoints reach public addresses only), or everyone's.
   */
  webhookPrivateAddresses: 'admins' | 'all';
  /** Timing of the webhook outbox worker (tests shorten it); defaults in modules/webhooks/worker.ts. */
  webhookWorker?: Partial<WebhookWorkerOptions>;
  /** The largest release artifact an upload may have, in bytes (ARTIFACT_MAX_SIZE). */
  artifactMaxSize: number;
  /** How often a desktop program polls during sign-in (RFC 8628 `interval`, seconds). */
  devicePollIntervalSeconds: number;
}

/** DATABASE_READ_URL and its timing (DESIGN.md section 9, "Read replicas"). */
export interface ReplicaConfig {
  urls: string[];
  /** A replica whose replay is further behind the primary serves no reads (READ_REPLICA_MAX_LAG_MS). */
  maxLagMs: number;
  /** A session's or token's reads go to the primary for this long after its own write (READ_YOUR_WRITES_MS). */
  readYourWritesMs: number;
}

export class ConfigError extends Error {}

/** Values shown back in an error; the others may hold passwords (URLs with credentials, keys, tokens). */
const SHOWN_VALUES = new Set(['READ_REPLICA_MAX_LAG_MS', 'READ_YOUR_WRITES_MS', 'PORT', 'HOST', 'DATA_DIR', 'DATABASE_WAIT_SECONDS', 'PUBLIC_URL', 'TRUST_PROXY', 'ADMIN_EMAIL', 'LOG_LEVEL', 'WEBHOOK_PRIVATE_ADDRESSES', 'PROTOCOL_RATE_LIMIT', 'PROTOCOL_RATE_LIMIT_PER_ADDRESS', 'DATABASE_POOL_SIZE', 'STOP_GRACE_SECONDS', 'ARTIFACT_MAX_SIZE', 'DEVICE_POLL_INTERVAL_SECONDS']);

/**
 * Reads the configuration from environment variables (DESIGN.md section 8). A wrong value stops the
 * start with one line that names every wrong variable and what it must be.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = environment.safeParse(cleaned);
  if (!parsed.success) {
    const problems = new Map<string, string>();
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0]);
      if (problems.has(name)) continue;
      problems.set(name, `${name}: ${issue.message}${SHOWN_VALUES.has(name) ? ` (got "${cleaned[name]}")` : ''}`);
    }
    throw new ConfigError(`Invalid configuration: ${[...problems.values()].join('; ')}`);
  }
  const e = parsed.data;
  const onPostgres = Boolean(e.DATABASE_URL?.startsWith('postgres'));
  if (e.DATABASE_READ_URL?.length && !onPostgres) throw new ConfigError('Invalid configuration: DATABASE_READ_URL: read replicas need a PostgreSQL DATABASE_URL');
  // A replica at the largest lag allowed, seen a check interval ago, must have replayed a write by the time its writer's reads may go there again.
  if (e.DATABASE_READ_URL?.length && e.READ_YOUR_WRITES_MS < e.READ_REPLICA_MAX_LAG_MS + 1000) {
    throw new ConfigError(`Invalid configuration: READ_YOUR_WRITES_MS: must be at least READ_REPLICA_MAX_LAG_MS + 1000 (${e.READ_REPLICA_MAX_LAG_MS + 1000}), or a person could miss their own change`);
  }
  const replicas: ReplicaConfig | undefined = e.DATABASE_READ_URL?.length ? { urls: e.DATABASE_READ_URL, maxLagMs: e.READ_REPLICA_MAX_LAG_MS, readYourWritesMs: e.READ_YOUR_WRITES_MS } : undefined;
  const dataDir = path.resolve(e.DATA_DIR);
  const database: Config['database'] =
    e.DATABASE_URL && e.DATABASE_URL.startsWith('postgres')
      ? { kind: 'postgres', url: e.DATABASE_URL, ...(replicas ? { replicas } : {}), ...(e.DATABASE_POOL_SIZE ? { poolSize: e.DATABASE_POOL_SIZE } : {}) }
      : { kind: 'sqlite', file: e.DATABASE_URL ? e.DATABASE_URL.replace(/^sqlite:(\/\/)?/, '') : path.join(dataDir, 'license-manager.db') };
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    database,
    databaseWaitSeconds: e.DATABASE_WAIT_SECONDS,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    secretKey: e.SECRET_KEY,
    trustProxy: e.TRUST_PROXY,
    adminEmail: e.ADMIN_EMAIL.toLowerCase(),
    adminPassword: e.ADMIN_PASSWORD,
    logLevel: e.LOG_LEVEL,
    metricsToken: e.METRICS_TOKEN,
    webDist: path.resolve(e.WEB_DIST ?? path.join(import.meta.dirname, '../../../web/dist')),
    stopGraceSeconds: e.STOP_GRACE_SECONDS,
    rateLimits: true,
    protocolRateLimit: { perMachine: e.PROTOCOL_RATE_LIMIT, perAddress: e.PROTOCOL_RATE_LIMIT_PER_ADDRESS, allow: e.PROTOCOL_RATE_LIMIT_ALLOW },
    webhookPrivateAddresses: e.WEBHOOK_PRIVATE_ADDRESSES,
    artifactMaxSize: e.ARTIFACT_MAX_SIZE,
    devicePollIntervalSeconds: e.DEVICE_POLL_INTERVAL_SECONDS,
  };
}
