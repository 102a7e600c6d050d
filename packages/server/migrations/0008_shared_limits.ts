import type { Kysely } from 'kysely';
import { withId } from './0001_foundation.ts';

/**
 * Limits shared by every app instance (issue 13): the attempts that count toward a limit (failed
 * logins and TAN activations, mails asked for) live in the database instead of each process's
 * memory, so that two instances allow no more than one and a restart forgets nothing. And the
 * browsers an account has logged in from (device cookies, stored as hashes): a stranger's failed
 * logins cannot lock the owner out of a browser the owner has used before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('limit_events'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('limit_events_key_at').on('limit_events').columns(['key', 'at']).execute();
  await db.schema.createIndex('limit_events_at').on('limit_events').column('at').execute();

  await db.schema
    .createTable('login_devices')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('login_devices_user').on('login_devices').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('login_devices').execute();
  await db.schema.dropTable('limit_events').execute();
}
