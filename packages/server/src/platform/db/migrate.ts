import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import { isPostgres } from './dialect.ts';

const MIGRATIONS_DIR = path.join(import.meta.dirname, '../../../migrations');

const migrationFiles = () => fs.readdirSync(MIGRATIONS_DIR).filter((file) => /^\d{4}_.*\.ts$/.test(file)).sort();

/** The names of the migrations this version knows, oldest first (as Kysely records them). */
export function knownMigrations(): string[] {
  return migrationFiles().map((file) => file.replace(/\.ts$/, ''));
}

/** Loads `migrations/NNNN_name.ts` in name order. */
class FolderMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    for (const file of migrationFiles()) {
      migrations[file.replace(/\.ts$/, '')] = await import(pathToFileURL(path.join(MIGRATIONS_DIR, file)).href);
    }
    return migrations;
  }
}

export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  // Without a schema, Kysely finds its migration tables in any schema of the database and then does
  // not create them in ours (another app or schema in the same database): name the current one.
  const migrationTableSchema = isPostgres(db)
    ? (await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db)).rows[0]?.schema ?? undefined
    : undefined;
  const migrator = new Migrator({ db, provider: new FolderMigrationProvider(), migrationTableSchema });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
