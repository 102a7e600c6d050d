import { parseArgs } from 'node:util';
import { z } from 'zod';
import { accessRole, email as emailSchema, password as passwordSchema } from '@lm/contract';
import { loadConfig } from './platform/config.ts';
import { openDatabase } from './platform/db/database.ts';
import { migrateToLatest } from './platform/db/migrate.ts';
import { createUserFromCli } from './modules/users/cli.ts';
import { BENCH_ACCOUNTS, BENCH_SIZES, seedBench } from './modules/bench-seed/service.ts';
import { rotateSigningKey } from './platform/signing/keys.ts';

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  user:create --email <address> --role <ADMIN|DISTRIBUTOR|USER> [--password <password>]
              [--first-name <name>] [--last-name <name>]
      Creates a confirmed account. Without --password a random one is printed.
  seed:bench [--tans <n>] [--licenses <n>] [--users <n>]
      Fills the database with the licensing benchmark's data set (default 1,000,000 TANs,
      1,000,000 licenses, 200,000 users). Does nothing on a database that already holds it.
  keys:rotate
      Creates a new license signing key; the old public keys stay published.
`;

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  const config = loadConfig();
  const database = openDatabase(config.database);
  try {
    await migrateToLatest(database.db);
    switch (command) {
      case 'user:create': {
        const { values } = parseArgs({
          args: rest,
          options: {
            email: { type: 'string' },
            role: { type: 'string', default: 'USER' },
            password: { type: 'string' },
            'first-name': { type: 'string' },
            'last-name': { type: 'string' },
          },
        });
        const email = emailSchema.parse(values.email);
        const role = accessRole.parse(values.role?.toUpperCase());
        const password = values.password === undefined ? undefined : passwordSchema.parse(values.password);
        const result = await createUserFromCli(database, {
          email,
          role,
          password,
          firstName: values['first-name'],
          lastName: values['last-name'],
        });
        console.log(`Created ${role} ${email} (id ${result.id})${result.generatedPassword ? ` with the password ${result.generatedPassword}` : ''}`);
        return 0;
      }
      case 'seed:bench': {
        const { values } = parseArgs({ args: rest, options: { tans: { type: 'string' }, licenses: { type: 'string' }, users: { type: 'string' } } });
        const count = (value: string | undefined, fallback: number) => (value === undefined ? fallback : z.coerce.number().int().min(1).max(10_000_000).parse(value));
        const sizes = {
          ...BENCH_SIZES,
          tans: count(values.tans, BENCH_SIZES.tans),
          licenses: count(values.licenses, BENCH_SIZES.licenses),
          users: count(values.users, BENCH_SIZES.users),
        };
        sizes.heavyUserLicenses = Math.min(sizes.heavyUserLicenses, Math.floor(sizes.licenses / 10));
        const report = await seedBench(database.db, sizes, (text) => console.log(text));
        console.log(
          report.skipped
            ? `Already seeded: ${report.tans} TANs, ${report.licenses} licenses, ${report.users} users`
            : `Seeded ${report.tans} TANs, ${report.licenses} licenses and ${report.users} users in ${report.seconds} s; log in as ${BENCH_ACCOUNTS.admin.email} / ${BENCH_ACCOUNTS.admin.password}`,
        );
        return 0;
      }
      case 'keys:rotate': {
        const kid = await rotateSigningKey(database, config);
        console.log(`New signing key ${kid}; running servers sign with it within a minute, older keys stay published.`);
        return 0;
      }
      default:
        console.error(USAGE);
        return command ? 1 : 0;
    }
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
