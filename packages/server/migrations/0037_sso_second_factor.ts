import type { Kysely } from 'kysely';

/**
 * The second factor after single sign-on (issue 54, DESIGN.md section 6j): when the identity
 * provider did not assert one (or is not trusted to) for an account that signs in with a second
 * factor, the callback keeps the verified identity here for a few minutes, under the hash of a
 * token in the browser's cookie, and the login page asks for the code. `attempts` counts wrong codes:
 * after five the step is gone and the person signs in again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sso_second_factors')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('identity_id', 'integer', (c) => c.references('sso_identities.id').onDelete('cascade'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sso_second_factors').execute();
}
