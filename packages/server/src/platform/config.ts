import path from 'node:path';
import { z } from 'zod';
import type { MailWorkerOptions } from './mail/service.ts';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const environment = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .refine((url) => /^(postgres(ql)?|sqlite):/.test(url), 'must start with postgres://, postgresql:// or sqlite:')
    .optional(),
  PUBLIC_URL: z.url().optional(),
  SMTP_URL: z
    .string()
    .refine((url) => /^smtps?:\/\//.test(url), 'must start with smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z.string().min(3).default('License Manager <no-reply@localhost>'),
  SECRET_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  TRUST_PROXY: booleanFlag.default(false),
  ADMIN_EMAIL: z.email().default('admin@localhost.localdomain'),
  ADMIN_PASSWORD: z.string().min(5).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEB_DIST: z.string().optional(),
});

export type Environment = z.input<typeof environment>;

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema?: string };
  publicUrl: string;
  smtpUrl?: string;
  mailFrom: string;
  secretKey?: string;
  trustProxy: boolean;
  adminEmail: string;
  adminPassword?: string;
  logLevel: string;
  webDist: string;
  /** Tests switch off rate limits they are not about. */
  rateLimits: boolean;
  /** Timing of the mail outbox worker (tests shorten it); defaults in platform/mail/service.ts. */
  mailWorker?: Partial<MailWorkerOptions>;
}

export class ConfigError extends Error {}

/** Reads the configuration from environment variables (DESIGN.md section 8); a wrong value stops the start. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = environment.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  const database: Config['database'] =
    e.DATABASE_URL && e.DATABASE_URL.startsWith('postgres')
      ? { kind: 'postgres', url: e.DATABASE_URL }
      : { kind: 'sqlite', file: e.DATABASE_URL ? e.DATABASE_URL.replace(/^sqlite:(\/\/)?/, '') : path.join(dataDir, 'license-manager.db') };
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    database,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    secretKey: e.SECRET_KEY,
    trustProxy: e.TRUST_PROXY,
    adminEmail: e.ADMIN_EMAIL.toLowerCase(),
    adminPassword: e.ADMIN_PASSWORD,
    logLevel: e.LOG_LEVEL,
    webDist: path.resolve(e.WEB_DIST ?? path.join(import.meta.dirname, '../../../web/dist')),
    rateLimits: true,
  };
}
