import { type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import { withId } from './0001_foundation.ts';

const notNull = (c: ColumnDefinitionBuilder) => c.notNull();

/**
 * Accounts: closed accounts (kept as an anonymous row so that their licenses, TAN activations and
 * statistics stay consistent), single-use tokens of the e-mail flows (stored as SHA-256 hashes), and
 * the outbox of mails written in the transaction of the change that causes them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('closed_at', 'text').execute();

  await withId(db, db.schema.createTable('user_tokens'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'text', notNull)
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('new_email', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('expires_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('user_tokens_user').on('user_tokens').columns(['user_id', 'purpose']).execute();
  await db.schema.createIndex('user_tokens_expires').on('user_tokens').column('expires_at').execute();

  await withId(db, db.schema.createTable('mail_outbox'))
    .addColumn('recipient', 'text', notNull)
    .addColumn('subject', 'text', notNull)
    .addColumn('text_body', 'text')
    .addColumn('html_body', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', notNull)
    .addColumn('claimed_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('failed_at', 'text')
    .execute();
  await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['failed_at', 'next_attempt_at']).execute();
  await db.schema.createIndex('mail_outbox_recipient').on('mail_outbox').column('recipient').execute();

  // The consent export walks consenting accounts in id order.
  await db.schema.createIndex('users_opt_in_email').on('users').columns(['opt_in_email', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('users_opt_in_email').execute();
  await db.schema.dropTable('mail_outbox').execute();
  await db.schema.dropTable('user_tokens').execute();
  await db.schema.alterTable('users').dropColumn('closed_at').execute();
}
