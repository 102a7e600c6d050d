import type { Kysely } from 'kysely';

/**
 * Entitlements, values, metadata and soft limits (issue 51, DESIGN.md section 6g):
 * - `features.value_type` (none, integer, string) and `products.feature_values` (JSON, name → the
 *   product's default value);
 * - `license_policies.entitlements` (JSON grants `[{ feature, value }]`) and `overage_percent`;
 * - `tans.entitlements` and `tans.metadata`; a license's own (`entitlements`, `metadata`, granted
 *   after the sale) and copies of its TAN's (`tan_entitlements`, `tan_metadata`), kept equal to the
 *   TAN's in the TAN's transaction like `suspended` (migration 0021): the desktop protocol reads a
 *   machine's licenses in one lookup and joins no TAN;
 * - `floating_seats.overage`: the seat was granted beyond the count; `license_overages`: each
 *   over-limit grant (a machine on a day), for the statistics and the monthly true-up per TAN.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('features').addColumn('value_type', 'text', (c) => c.notNull().defaultTo('none')).execute();
  await db.schema.alterTable('products').addColumn('feature_values', 'text', (c) => c.notNull().defaultTo('{}')).execute();
  await db.schema.alterTable('license_policies').addColumn('entitlements', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('license_policies').addColumn('overage_percent', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('tans').addColumn('entitlements', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('tans').addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}')).execute();
  for (const column of ['entitlements', 'tan_entitlements']) await db.schema.alterTable('licenses').addColumn(column, 'text', (c) => c.notNull().defaultTo('[]')).execute();
  for (const column of ['metadata', 'tan_metadata']) await db.schema.alterTable('licenses').addColumn(column, 'text', (c) => c.notNull().defaultTo('{}')).execute();
  await db.schema.alterTable('floating_seats').addColumn('overage', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  await db.schema
    .createTable('license_overages')
    .addColumn('tan_id', 'integer', (c) => c.notNull().references('tans.id').onDelete('cascade'))
    .addColumn('license_id', 'integer', (c) => c.notNull().references('licenses.id').onDelete('cascade'))
    .addColumn('machine_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('license_overages_pkey', ['tan_id', 'day', 'license_id', 'machine_id'])
    .execute();
  await db.schema.createIndex('license_overages_license').on('license_overages').column('license_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('license_overages').execute();
  await db.schema.alterTable('floating_seats').dropColumn('overage').execute();
  for (const column of ['entitlements', 'tan_entitlements', 'metadata', 'tan_metadata']) await db.schema.alterTable('licenses').dropColumn(column).execute();
  await db.schema.alterTable('tans').dropColumn('metadata').execute();
  await db.schema.alterTable('tans').dropColumn('entitlements').execute();
  await db.schema.alterTable('license_policies').dropColumn('overage_percent').execute();
  await db.schema.alterTable('license_policies').dropColumn('entitlements').execute();
  await db.schema.alterTable('products').dropColumn('feature_values').execute();
  await db.schema.alterTable('features').dropColumn('value_type').execute();
}
