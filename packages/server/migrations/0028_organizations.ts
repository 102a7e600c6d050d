import type { Kysely } from 'kysely';
import { withId } from './0001_foundation.ts';

/**
 * Organizations and named users (issue 50, DESIGN.md section 6f):
 * - `organizations`, their `organization_members` (role owner/admin/member) and
 *   `organization_invitations` (a link by e-mail, stored as the SHA-256 of its token, 7 days);
 * - `tans.organization_id` / `licenses.organization_id`: what an organization owns;
 * - a policy's `seat_mode` (MACHINE, today's behaviour, or USER: a TAN's count is named users),
 *   `seat_reassign_hours` and `machines_per_user`;
 * - `organization_seats`: a TAN's seat assigned to a member (kept after unassignment, whose time
 *   holds the seat back for the reassignment wait); `licenses.seat_id`: a machine signed in on it;
 * - `device_authorizations` (RFC 8628, device code stored hashed) and `desktop_sign_ins` (the
 *   access token of a person on one machine, stored hashed).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('organizations'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('company', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('organization_members')
    .addColumn('organization_id', 'integer', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('organization_members_pkey', ['organization_id', 'user_id'])
    .execute();
  await db.schema.createIndex('organization_members_user').on('organization_members').column('user_id').execute();
  await withId(db, db.schema.createTable('organization_invitations'))
    .addColumn('organization_id', 'integer', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text')
    .execute();
  await db.schema.createIndex('organization_invitations_org').on('organization_invitations').columns(['organization_id', 'email']).execute();

  await db.schema.alterTable('tans').addColumn('organization_id', 'integer', (c) => c.references('organizations.id')).execute();
  await db.schema.createIndex('tans_organization').on('tans').column('organization_id').execute();
  await db.schema.alterTable('licenses').addColumn('organization_id', 'integer', (c) => c.references('organizations.id')).execute();
  await db.schema.createIndex('licenses_organization').on('licenses').column('organization_id').execute();

  await db.schema.alterTable('license_policies').addColumn('seat_mode', 'text', (c) => c.notNull().defaultTo('MACHINE')).execute();
  await db.schema.alterTable('license_policies').addColumn('seat_reassign_hours', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('license_policies').addColumn('machines_per_user', 'integer', (c) => c.notNull().defaultTo(2)).execute();

  await withId(db, db.schema.createTable('organization_seats'))
    .addColumn('organization_id', 'integer', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('tan_id', 'integer', (c) => c.notNull().references('tans.id'))
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('assigned_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('assigned_at', 'text', (c) => c.notNull())
    .addColumn('unassigned_at', 'text')
    .execute();
  await db.schema.createIndex('organization_seats_tan').on('organization_seats').columns(['tan_id', 'unassigned_at']).execute();
  await db.schema.createIndex('organization_seats_user').on('organization_seats').columns(['user_id', 'unassigned_at']).execute();
  await db.schema.alterTable('licenses').addColumn('seat_id', 'integer', (c) => c.references('organization_seats.id')).execute();
  await db.schema.createIndex('licenses_seat').on('licenses').column('seat_id').execute();

  await withId(db, db.schema.createTable('device_authorizations'))
    .addColumn('device_code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_code', 'text', (c) => c.notNull().unique())
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('machine_id', 'text', (c) => c.notNull())
    .addColumn('interval_seconds', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('last_polled_at', 'text')
    .execute();
  await withId(db, db.schema.createTable('desktop_sign_ins'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('machine_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('desktop_sign_ins_user').on('desktop_sign_ins').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('desktop_sign_ins').execute();
  await db.schema.dropTable('device_authorizations').execute();
  await db.schema.dropIndex('licenses_seat').execute();
  await db.schema.alterTable('licenses').dropColumn('seat_id').execute();
  await db.schema.dropTable('organization_seats').execute();
  for (const column of ['machines_per_user', 'seat_reassign_hours', 'seat_mode']) await db.schema.alterTable('license_policies').dropColumn(column).execute();
  await db.schema.dropIndex('licenses_organization').execute();
  await db.schema.alterTable('licenses').dropColumn('organization_id').execute();
  await db.schema.dropIndex('tans_organization').execute();
  await db.schema.alterTable('tans').dropColumn('organization_id').execute();
  await db.schema.dropTable('organization_invitations').execute();
  await db.schema.dropTable('organization_members').execute();
  await db.schema.dropTable('organizations').execute();
}
