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

/**
 * A migration module. `vacuumAfter` names tables that PostgreSQL vacuums once the migrations have
 * committed (VACUUM cannot run in their transaction): a table rewritten by a migration has no
 * visibility map until then, and index-only scans of it read every row after all.
 */
type MigrationModule = Migration & { vacuumAfter?: string[] };

/** Loads `migrations/NNNN_name.ts` in name order. */
class FolderMigrationProvider implements MigrationProvider {
  readonly modules: Record<string, MigrationModule> = {};

  async getMigrations(): Promise<Record<string, Migration>> {
    for (const file of migrationFiles()) {
      this.modules[file.replace(/\.ts$/, '')] ??= await import(pathToFileURL(path.join(MIGRATIONS_DIR, file)).href);
    }
    return this.modules;
  }
}

export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  // Without a schema, Kysely finds its migration tables in any schema of the database and then does
  // not create them in ours (another app or schema in the same database): name the current one.
  const migrationTableSchema = isPostgres(db)
    ? (await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db)).rows[0]?.schema ?? undefined
    : undefined;
  const provider = new FolderMigrationProvider();
  const migrator = new Migrator({ db, provider, migrationTableSchema });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isPostgres(db)) return;
  const executed = (results ?? []).filter((result) => result.status === 'Success');
  const tables = new Set(executed.flatMap((result) => provider.modules[result.migrationName]?.vacuumAfter ?? []));
  for (const table of tables) await sql`vacuum (analyze) ${sql.table(table)}`.execute(db);
}
