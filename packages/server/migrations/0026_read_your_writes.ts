import type { Kysely } from 'kysely';

/**
 * Read replicas (issue 55, DESIGN.md section 9): when a session or an API token last wrote. Its reads
 * go to the primary for READ_YOUR_WRITES_MS after that, on every instance, so that a person sees
 * their own change at once even where a replica has not replayed it yet.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('wrote_at', 'text').execute();
  await db.schema.alterTable('api_tokens').addColumn('wrote_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_tokens').dropColumn('wrote_at').execute();
  await db.schema.alterTable('sessions').dropColumn('wrote_at').execute();
}
