/**
 * `npm run cli -- <command> [options]`: the operator's commands. Nothing happens without a command
 * (no database is opened or created); every mistake is one line; `--help` explains each command.
 */
import path from 'node:path';
import { z } from 'zod';
import { email as emailSchema, password as passwordSchema, PASSWORD_MIN_LENGTH, ROLES } from '@lm/contract';
import { ConfigError, loadConfig, type Config } from './platform/config.ts';
import { loadEnvFile } from './platform/env-file.ts';
import { describeOptions, parseOptions, synopsis, type OptionSpecs, type OptionValues } from './platform/cli/options.ts';
import { BackupError, backupSqlite, restoreSqlite } from './platform/db/backup.ts';
import { openDatabase, type Database } from './platform/db/database.ts';
import { migrateToLatest } from './platform/db/migrate.ts';
import { KeyCommandError, listSigningKeys, retireSigningKey, rotateSigningKey } from './platform/signing/keys.ts';
import type { ScheduledKey } from './platform/signing/key-schedule.ts';
import { PRODUCT_VERSION } from './platform/version.ts';
import { createUserFromCli } from './modules/users/cli.ts';
import { nameBreakGlassAdministrator } from './modules/sso/policy.ts';
import { BENCH_ACCOUNTS, BENCH_SIZES, seedBench } from './modules/bench-seed/service.ts';
import { DemoStepFailed } from './modules/demo-seed/api.ts';
import { DemoRefused, seedDemo } from './modules/demo-seed/service.ts';

interface Command {
  summary: string;
  /** More about what it does, for its --help. */
  details?: string;
  /** One required argument before the options, e.g. a key id. */
  argument?: { name: string; description: string };
  options: OptionSpecs;
  run(values: OptionValues, config: Config, argument?: string): Promise<void>;
}

/** Runs work on the configured database, migrated to this version's schema first (created when missing). */
async function withDatabase<T>(config: Config, work: (database: Database) => Promise<T>): Promise<T> {
  const database = openDatabase(config.database);
  try {
    await migrateToLatest(database.db);
    return await work(database);
  } finally {
    await database.close();
  }
}

const POSTGRES_BACKUP = 'For PostgreSQL use pg_dump and pg_restore (see "Backups" in the README).';

function sqliteFile(config: Config, command: string): string {
  if (config.database.kind !== 'sqlite') throw new BackupError(`${command} copies the embedded SQLite database, but DATABASE_URL names PostgreSQL. ${POSTGRES_BACKUP}`);
  return config.database.file;
}

const ROLE_LIST = `${ROLES.slice(0, -1).join(', ')} or ${ROLES.at(-1)}`;
const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const count = { value: '<n>', schema: z.coerce.number().int().min(1).max(10_000_000).optional(), problem: 'must be a whole number from 1 to 10,000,000' };

/** A moment given on the command line: ISO 8601 with its time zone, so that it means the same everywhere. */
const isoTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/)
  .refine((value) => !Number.isNaN(Date.parse(value)))
  .transform((value) => new Date(value));
const ISO_TIME_PROBLEM = 'must be a time such as 2027-01-04T09:00:00Z (ISO 8601 with time zone)';

const keyLine = (key: ScheduledKey) => [key.kid.padEnd(17), key.state.padEnd(10), key.createdAt.padEnd(25), key.activatesAt.padEnd(25), key.unpublishAt ?? (key.retiredAt ? 'never' : '')].join(' ');

const COMMANDS: Record<string, Command> = {
  'user:create': {
    summary: 'creates a confirmed account',
    details: 'Without --password a random password is made and printed once.',
    options: {
      email: { value: '<address>', description: "the account's e-mail address", required: true, schema: emailSchema, problem: 'must be an e-mail address' },
      role: { value: '<role>', description: `${ROLE_LIST} (default USER)`, schema: z.string().toUpperCase().pipe(z.enum(ROLES)).default('USER'), problem: `must be ${ROLE_LIST}` },
      password: { value: '<password>', description: `the password (at least ${PASSWORD_MIN_LENGTH} characters)`, schema: passwordSchema, secret: true, problem: `must be ${PASSWORD_MIN_LENGTH} to 1024 characters` },
      'first-name': { value: '<name>', description: 'first name (default: the part of the address before @)' },
      'last-name': { value: '<name>', description: 'last name (default: the role, e.g. Administrator)' },
    },
    async run(values, config) {
      const input = { email: values.email as string, role: values.role as (typeof ROLES)[number] };
      const result = await withDatabase(config, (database) =>
        createUserFromCli(database, { ...input, password: values.password as string | undefined, firstName: values['first-name'] as string | undefined, lastName: values['last-name'] as string | undefined }),
      );
      console.log(`Created ${input.role} ${input.email} (id ${result.id})${result.generatedPassword ? ` with the password ${result.generatedPassword}` : ''}`);
    },
  },
  'sso:break-glass': {
    summary: 'names the administrator who may still sign in with a password when single sign-on is required for staff',
    details: 'The way back in when the identity provider is down or misconfigured. One at a time: naming another replaces the previous one.',
    options: { email: { value: '<address>', description: "the administrator's e-mail address", required: true, schema: emailSchema, problem: 'must be an e-mail address' } },
    async run(values, config) {
      const problem = await withDatabase(config, (database) => nameBreakGlassAdministrator(database.db, values.email as string));
      if (problem) {
        console.error(problem);
        process.exitCode = 1;
        return;
      }
      console.log(`${values.email as string} may sign in with a password while single sign-on is required for staff.`);
    },
  },
  'keys:rotate': {
    summary: 'makes a new license-signing key, signing now or from a time you choose',
    details:
      'The new public key is published at once in /api/client/v1/keys. Without --activate-at running servers sign with it within a minute; with it, every server signs with it from that moment on (give it at least a minute ahead), so software can pin the next key before it signs. Old public keys stay published, so files signed before keep verifying.',
    options: { 'activate-at': { value: '<time>', description: 'when it starts signing, ISO 8601 with time zone, e.g. 2027-01-04T09:00:00Z (default now)', schema: isoTime, problem: ISO_TIME_PROBLEM } },
    async run(values, config) {
      const activateAt = values['activate-at'] as Date | undefined;
      const { kid, activatesAt } = await withDatabase(config, (database) => rotateSigningKey(database, config, activateAt));
      console.log(
        activateAt && activateAt.getTime() > Date.now()
          ? `New signing key ${kid}, published now; every server signs with it from ${activatesAt}. Pin it in your software before then.`
          : `New signing key ${kid}; running servers sign with it within a minute, older keys stay published.`,
      );
    },
  },
  'keys:list': {
    summary: 'lists the signing keys and their states',
    details: 'published: signs from its activation time; active: signs now; retiring: signs no more, still published so that its files verify; retired: no longer published.',
    options: {},
    async run(_values, config) {
      const keys = await withDatabase(config, (database) => listSigningKeys(database));
      console.log(['kid               state      created                   activates                 unpublished', ...keys.map(keyLine)].join('\n'));
    },
  },
  'keys:retire': {
    summary: 'stops a signing key from signing, and unpublishes it at a time you choose',
    argument: { name: '<kid>', description: 'the key id, from keys:list' },
    details:
      'A refresh no longer confirms a file signed with it (the software gets a file of the active key), and a staged key is called off. The public key stays published until --unpublish-at, so files it signed keep verifying until then. The key that signs now is refused: rotate first.',
    options: { 'unpublish-at': { value: '<time>', description: 'when it leaves /api/client/v1/keys, ISO 8601 with time zone (default: stays published)', schema: isoTime, problem: ISO_TIME_PROBLEM } },
    async run(values, config, kid) {
      const key = await withDatabase(config, (database) => retireSigningKey(database, kid!, (values['unpublish-at'] as Date | undefined) ?? null));
      console.log(`Retired ${key.kid}: it signs no more; ${key.unpublishAt ? `published until ${key.unpublishAt}` : 'it stays published'}.`);
    },
  },
  backup: {
    summary: 'copies the SQLite database to a new file, also while the server runs',
    details: `The copy is the database as it was at one moment, checked before it is kept. It holds password hashes and the signing key (encrypted only with SECRET_KEY): keep it as safe as the server. ${POSTGRES_BACKUP}`,
    options: { to: { value: '<file>', description: 'the backup file to write; it must not exist yet', required: true } },
    async run(values, config) {
      const summary = backupSqlite(sqliteFile(config, 'backup'), values.to as string);
      console.log(`Backed up ${megabytes(summary.bytes)} (schema ${summary.migration ?? 'empty'}) to ${summary.file}`);
    },
  },
  restore: {
    summary: 'puts a backup in place of the SQLite database (server stopped)',
    details:
      'Refused while the server or another command has the database open. The database it replaces is kept beside it as <file>.before-restore-<time>. The next start migrates an older backup to this version.',
    options: { from: { value: '<file>', description: 'a file made by the backup command', required: true } },
    async run(values, config) {
      const summary = restoreSqlite(values.from as string, sqliteFile(config, 'restore'));
      console.log(`Restored ${summary.file} from ${path.resolve(values.from as string)} (schema ${summary.migration ?? 'empty'}).`);
      if (summary.previous) console.log(`The database it replaced is kept as ${summary.previous}; remove it once the restored one works.`);
    },
  },
  'seed:demo': {
    summary: 'fills a new installation with example data to try every page',
    details:
      'A CAD vendor\'s fourteen months: catalogue, a reseller, 24 customers with trials, TANs, licenses, upgrades and desktop refreshes, made through the API at the moments they would have happened, so that lists, statistics and the change log show what a real installation shows. Refused on an installation that has products, TANs, licenses or accounts other than administrators. Every demo account (under example.com, which no mail reaches) gets the same password: --password, or a random one printed at the end.',
    options: {
      password: { value: '<password>', description: `the demo accounts' password (at least ${PASSWORD_MIN_LENGTH} characters)`, schema: passwordSchema, secret: true, problem: `must be ${PASSWORD_MIN_LENGTH} to 1024 characters` },
    },
    async run(values, config) {
      const report = await seedDemo(config, { password: values.password as string | undefined });
      const { email, created, password } = report.administrator;
      const administrator = !created
        ? `${email} (with its own password)`
        : password
          ? `${email} with the password ${password} (created now as the first administrator; shown only this once)`
          : `${email} with the password of ADMIN_PASSWORD (created now as the first administrator)`;
      console.log(
        [
          `Seeded in ${report.seconds} s: ${report.products} products, ${report.features} features, ${report.tans} TANs, ${report.licenses} licenses, ${report.accounts} accounts.`,
          `Log in as the administrator ${administrator},`,
          `as the distributor ${report.distributor}, or as a customer such as ${report.customers.slice(0, 3).join(', ')} (${report.customers.length} in all),`,
          `each with the password ${report.password}`,
        ].join('\n'),
      );
    },
  },
  'seed:bench': {
    summary: "fills the database with the licensing benchmark's data set",
    details: `Default ${BENCH_SIZES.tans.toLocaleString('en')} TANs, ${BENCH_SIZES.licenses.toLocaleString('en')} licenses, ${BENCH_SIZES.users.toLocaleString('en')} users (a few minutes). Does nothing on a database that already holds it.`,
    options: {
      tans: { ...count, description: 'number of TANs' },
      licenses: { ...count, description: 'number of licenses' },
      users: { ...count, description: 'number of users' },
    },
    async run(values, config) {
      const sizes = {
        ...BENCH_SIZES,
        tans: (values.tans as number | undefined) ?? BENCH_SIZES.tans,
        licenses: (values.licenses as number | undefined) ?? BENCH_SIZES.licenses,
        users: (values.users as number | undefined) ?? BENCH_SIZES.users,
      };
      sizes.heavyUserLicenses = Math.min(sizes.heavyUserLicenses, Math.floor(sizes.licenses / 10));
      const report = await withDatabase(config, (database) => seedBench(database.db, sizes, (text) => console.log(text)));
      console.log(
        report.skipped
          ? `Already seeded: ${report.tans} TANs, ${report.licenses} licenses, ${report.users} users`
          : `Seeded ${report.tans} TANs, ${report.licenses} licenses and ${report.users} users in ${report.seconds} s; log in as ${BENCH_ACCOUNTS.admin.email} / ${BENCH_ACCOUNTS.admin.password}`,
      );
    },
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length)) + 3;
  return [
    'Usage: npm run cli -- <command> [options]',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}${command.summary}`),
    '',
    'Run `npm run cli -- <command> --help` for the options of a command; `--version` prints the version.',
    'The configuration (DATABASE_URL, DATA_DIR, SECRET_KEY, …) comes from the environment and ./.env, as for the server.',
  ].join('\n');
}

function commandHelp(name: string, command: Command): string {
  return [`Usage: ${synopsis(name, command.options).replace(name, command.argument ? `${name} ${command.argument.name}` : name)}`, '', `${command.summary[0].toUpperCase()}${command.summary.slice(1)}.`, ...(command.details ? [command.details] : []), '', 'Options:', ...describeOptions(command.options)].join('\n');
}

/** Answers the exit code: 0 done, 1 failed, 2 wrong usage. */
async function main(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    console.log(topic && COMMANDS[topic] ? commandHelp(topic, COMMANDS[topic]) : usage());
    return 0;
  }
  if (name === '--version' || name === '-v') {
    console.log(PRODUCT_VERSION);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`Unknown command "${name}". Commands: ${Object.keys(COMMANDS).join(', ')} (npm run cli -- --help).`);
    return 2;
  }
  const argument = command.argument && rest[0] !== undefined && !rest[0].startsWith('-') ? rest.shift() : undefined;
  const parsed = parseOptions(rest, command.options);
  if (command.argument && argument === undefined && !parsed.help) parsed.problems.unshift(`${command.argument.name} is required (${command.argument.description})`);
  if (parsed.help) {
    console.log(commandHelp(name, command));
    return 0;
  }
  if (parsed.problems.length) {
    for (const problem of parsed.problems) console.error(`${name}: ${problem}`);
    console.error(`See \`npm run cli -- ${name} --help\`.`);
    return 2;
  }
  loadEnvFile();
  await command.run(parsed.values, loadConfig(), argument);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // Known refusals (configuration, backup, a rule of the application, a system or database error
    // with its code) are one line; anything else is a bug, reported with its stack.
    const known =
      error instanceof ConfigError ||
      error instanceof BackupError ||
      error instanceof DemoRefused ||
      error instanceof DemoStepFailed ||
      error instanceof KeyCommandError ||
      (error instanceof Error && 'code' in error && typeof error.code === 'string');
    console.error(error instanceof Error ? `Error: ${error.message}` : `Error: ${String(error)}`);
    if (!known && error instanceof Error && error.stack) console.error(error.stack.split('\n').slice(1).join('\n'));
    process.exit(1);
  },
);
