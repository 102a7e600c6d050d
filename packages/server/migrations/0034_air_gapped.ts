import type { Kysely } from 'kysely';

/**
 * Air-gapped sites and containers (issue 52, DESIGN.md section 6h):
 * - a policy's `lease_mode` (MACHINE, the default, or INSTANCE) and `lease_ttl_seconds` (60 to
 *   86,400, INSTANCE only): a FLOATING policy whose TAN is the key each process leases a seat with;
 * - `instance_leases`: one row per TAN and instance; a seat is a row whose `leased_until` lies ahead,
 *   so a lease not renewed frees its seat the moment it lapses (no job);
 * - `licenses.install_key_id` and `offline_file_issued_at`: a license activated offline is bound to
 *   the install key (its SHA-256 thumbprint; the public key kept to verify its proofs) of the request, and the file it was handed was issued then;
 * - `offline_proof_nonces`: each deactivation proof is accepted once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('license_policies').addColumn('lease_mode', 'text', (c) => c.notNull().defaultTo('MACHINE')).execute();
  await db.schema.alterTable('license_policies').addColumn('lease_ttl_seconds', 'integer').execute();
  await db.schema
    .createTable('instance_leases')
    .addColumn('tan_id', 'integer', (c) => c.notNull().references('tans.id').onDelete('cascade'))
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('leased_until', 'text', (c) => c.notNull())
    .addColumn('renewed_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('instance_leases_pkey', ['tan_id', 'instance_id'])
    .execute();
  await db.schema.createIndex('instance_leases_live').on('instance_leases').columns(['tan_id', 'leased_until']).execute();
  await db.schema.alterTable('licenses').addColumn('install_key_id', 'text').execute();
  await db.schema.alterTable('licenses').addColumn('install_public_key', 'text').execute();
  await db.schema.alterTable('licenses').addColumn('offline_file_issued_at', 'text').execute();
  await db.schema
    .createTable('offline_proof_nonces')
    .addColumn('nonce', 'text', (c) => c.primaryKey())
    .addColumn('license_id', 'integer', (c) => c.notNull().references('licenses.id').onDelete('cascade'))
    .addColumn('used_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('offline_proof_nonces').execute();
  await db.schema.alterTable('licenses').dropColumn('offline_file_issued_at').execute();
  await db.schema.alterTable('licenses').dropColumn('install_public_key').execute();
  await db.schema.alterTable('licenses').dropColumn('install_key_id').execute();
  await db.schema.dropTable('instance_leases').execute();
  await db.schema.alterTable('license_policies').dropColumn('lease_ttl_seconds').execute();
  await db.schema.alterTable('license_policies').dropColumn('lease_mode').execute();
}
