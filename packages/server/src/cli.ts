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
import { rotateSigningKey } from './platform/signing/keys.ts';
import { PRODUCT_VERSION } from './platform/version.ts';
import { createUserFromCli } from './modules/users/cli.ts';
import { BENCH_ACCOUNTS, BENCH_SIZES, seedBench } from './modules/bench-seed/service.ts';
import { DemoStepFailed } from './modules/demo-seed/api.ts';
import { DemoRefused, seedDemo } from './modules/demo-seed/service.ts';

interface Command {
  summary: string;
  /** More about what it does, for its --help. */
  details?: string;
  options: OptionSpecs;
  run(values: OptionValues, config: Config): Promise<void>;
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
  'keys:rotate': {
    summary: 'makes a new license-signing key',
    details: 'Running servers sign with it within a minute; the old public keys stay published, so files signed before keep verifying.',
    options: {},
    async run(_values, config) {
      const kid = await withDatabase(config, (database) => rotateSigningKey(database, config));
      console.log(`New signing key ${kid}; running servers sign with it within a minute, older keys stay published.`);
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
  return [`Usage: ${synopsis(name, command.options)}`, '', `${command.summary[0].toUpperCase()}${command.summary.slice(1)}.`, ...(command.details ? [command.details] : []), '', 'Options:', ...describeOptions(command.options)].join('\n');
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
  const parsed = parseOptions(rest, command.options);
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
  await command.run(parsed.values, loadConfig());
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
      (error instanceof Error && 'code' in error && typeof error.code === 'string');
    console.error(error instanceof Error ? `Error: ${error.message}` : `Error: ${String(error)}`);
    if (!known && error instanceof Error && error.stack) console.error(error.stack.split('\n').slice(1).join('\n'));
    process.exit(1);
  },
);
