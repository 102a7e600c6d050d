import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../src/platform/db/dialect.ts';

/**
 * The revenue path, hardened (issue 48, DESIGN.md section 6c):
 * - `shop_mappings.product_id` may be null: a mapping that marks a shop's id as "no license" (support
 *   hours, a printed manual), so that such a line of an order is recorded and makes no TAN;
 * - `shop_events.lines`: what the event did to each line and TAN (JSON `[{ externalId?, tanId?,
 *   effect }]`: made, renewed, suspended, reinstated, ends, revoked, no-license, needs-mapping, …),
 *   for the Orders page and for a replay of the lines still waiting for a mapping;
 * - `shop_payment_refs.renewal`: a payment of a subscription's renewal (not its first order), which
 *   paid the subscription's lines only: its refund revokes none of the order's one-time lines.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table shop_mappings alter column product_id drop not null`.execute(db);
  } else {
    // SQLite changes a column's constraint only by copying the table.
    await db.schema
      .createTable('shop_mappings_0025')
      .addColumn('connection_id', 'integer', (c) => c.notNull().references('shop_connections.id').onDelete('cascade'))
      .addColumn('external_id', 'text', (c) => c.notNull())
      .addColumn('product_id', 'integer', (c) => c.references('products.id'))
      .addColumn('license_policy_id', 'integer', (c) => c.references('license_policies.id'))
      .addColumn('seats', 'integer', (c) => c.notNull().defaultTo(1))
      .addPrimaryKeyConstraint('shop_mappings_pkey', ['connection_id', 'external_id'])
      .execute();
    await sql`insert into shop_mappings_0025 (connection_id, external_id, product_id, license_policy_id, seats) select connection_id, external_id, product_id, license_policy_id, seats from shop_mappings`.execute(db);
    await db.schema.dropTable('shop_mappings').execute();
    await db.schema.alterTable('shop_mappings_0025').renameTo('shop_mappings').execute();
  }
  await db.schema.alterTable('shop_events').addColumn('lines', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('shop_payment_refs').addColumn('renewal', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('shop_payment_refs').dropColumn('renewal').execute();
  await db.schema.alterTable('shop_events').dropColumn('lines').execute();
  await db.deleteFrom('shop_mappings').where('product_id', 'is', null).execute();
  if (isPostgres(db)) await sql`alter table shop_mappings alter column product_id set not null`.execute(db);
}
