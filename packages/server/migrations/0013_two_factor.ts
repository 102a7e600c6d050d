import { sql, type Kysely } from 'kysely';
import { withId } from './0001_foundation.ts';
import { isPostgres } from '../src/platform/db/dialect.ts';

/**
 * Two-factor sign-in and the account's sessions (issue 18): an account's TOTP secret (encrypted
 * with SECRET_KEY like the signing key; pending until a first code confirms it) with the last time
 * step used, so that no code works twice; its recovery codes as hashes; and per session an id of its
 * own, the browser, the address and the last use, so that the account can see and end its sessions.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('user_two_factor')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'text')
    .addColumn('last_used_step', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable('user_recovery_codes'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('user_recovery_codes_user').on('user_recovery_codes').columns(['user_id', 'code_hash']).execute();

  for (const column of ['id', 'user_agent', 'address', 'last_used_at']) await db.schema.alterTable('sessions').addColumn(column, 'text').execute();
  const randomId = isPostgres(db) ? sql`substr(md5(random()::text || clock_timestamp()::text || token_hash), 1, 24)` : sql`lower(hex(randomblob(12)))`;
  await sql`update sessions set id = ${randomId}, last_used_at = created_at`.execute(db);
  await db.schema.createIndex('sessions_id').on('sessions').column('id').unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('sessions_id').execute();
  for (const column of ['last_used_at', 'address', 'user_agent', 'id']) await db.schema.alterTable('sessions').dropColumn(column).execute();
  await db.schema.dropTable('user_recovery_codes').execute();
  await db.schema.dropTable('user_two_factor').execute();
}
