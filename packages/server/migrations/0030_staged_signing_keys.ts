import type { Kysely } from 'kysely';

/**
 * Staged key rotation (issue 47): a key is published when it is made and signs from `activates_at`
 * on (every instance reads the time from here); `retired_at` marks a key that never signs again, and
 * `unpublish_at` the moment it leaves `/api/client/v1/keys`. Keys made before sign from their
 * creation, as they did: the newest one that has started signs.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('signing_keys').addColumn('activates_at', 'text').execute();
  await db.schema.alterTable('signing_keys').addColumn('retired_at', 'text').execute();
  await db.schema.alterTable('signing_keys').addColumn('unpublish_at', 'text').execute();
  await db.updateTable('signing_keys').set((eb) => ({ activates_at: eb.ref('created_at') })).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['unpublish_at', 'retired_at', 'activates_at']) await db.schema.alterTable('signing_keys').dropColumn(column).execute();
}
