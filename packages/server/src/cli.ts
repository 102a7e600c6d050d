import { parseArgs } from 'node:util';
import { accessRole, email as emailSchema, password as passwordSchema } from '@lm/contract';
import { loadConfig } from './platform/config.ts';
import { openDatabase } from './platform/db/database.ts';
import { migrateToLatest } from './platform/db/migrate.ts';
import { createUserFromCli } from './modules/users/cli.ts';
import { rotateSigningKey } from './platform/signing/keys.ts';

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  user:create --email <address> --role <ADMIN|DISTRIBUTOR|USER> [--password <password>]
              [--first-name <name>] [--last-name <name>]
      Creates a confirmed account. Without --password a random one is printed.
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
