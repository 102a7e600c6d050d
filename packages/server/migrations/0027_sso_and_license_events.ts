import type { Kysely } from 'kysely';
import { withId } from './0001_foundation.ts';

/**
 * Single sign-on for staff and the runtime event log (issue 54, DESIGN.md section 6j):
 * - `sso_identities`: the provider's (issuer, subject) of an account; one account per identity,
 *   linked on first sign-in (provisioned) or by the account's signed-in owner, never by e-mail.
 * - `sso_logins`: a sign-in on its way to the provider: its `state` (hashed), nonce and PKCE
 *   verifier, for the callback of any instance; short-lived.
 * - `license_events`: what happened to a license that is no change of its record (a refusal and its
 *   code, no seat, a lease expired, clock tampering reported, ...), written behind the protocol's
 *   answers; kept for `events.retentionDays`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('sso_identities'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_login_at', 'text')
    .addUniqueConstraint('sso_identities_issuer_subject', ['issuer', 'subject'])
    .execute();
  await db.schema.createIndex('sso_identities_user').on('sso_identities').column('user_id').execute();

  await db.schema
    .createTable('sso_logins')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    /** Set when a signed-in account links its own identity: the identity goes to that account only. */
    .addColumn('link_user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable('license_events'))
    .addColumn('license_id', 'integer')
    .addColumn('tan_id', 'integer')
    .addColumn('owner_id', 'integer')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('code', 'text')
    .addColumn('machine_id', 'text')
    .addColumn('repeats', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('license_events_license').on('license_events').columns(['license_id', 'at']).execute();
  await db.schema.createIndex('license_events_tan').on('license_events').columns(['tan_id', 'at']).execute();
  await db.schema.createIndex('license_events_at').on('license_events').columns(['at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('license_events').execute();
  await db.schema.dropTable('sso_logins').execute();
  await db.schema.dropTable('sso_identities').execute();
}
