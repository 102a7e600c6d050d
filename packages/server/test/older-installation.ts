/** A database as an installation of an earlier version left it, for tests of what a migration fills in. */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Migrator, type Migration } from 'kysely/migration';
import { withSchemaLock, type TestDatabase } from './harness.ts';

/** Migrates a fresh database up to the last migration numbered before `number` (`'0039'`). */
export async function migrateBefore(fresh: TestDatabase, number: string): Promise<void> {
  const folder = path.join(import.meta.dirname, '../migrations');
  const migrations: Record<string, Migration> = {};
  for (const file of fs.readdirSync(folder).filter((name) => /^\d{4}_.*\.ts$/.test(name)).sort()) {
    migrations[file.replace(/\.ts$/, '')] = await import(pathToFileURL(path.join(folder, file)).href);
  }
  const before = Object.keys(migrations).filter((name) => name < number).at(-1)!;
  const schema = fresh.config.kind === 'postgres' ? fresh.config.schema : undefined;
  const migrator = new Migrator({ db: fresh.database.db, provider: { getMigrations: async () => migrations }, migrationTableSchema: schema });
  // Migrations scan every schema: on PostgreSQL they take turns with the other test files' DDL.
  const migrate = () => migrator.migrateTo(before);
  const { error } = await (fresh.config.kind === 'postgres' ? withSchemaLock(migrate) : migrate());
  if (error) throw error;
}
