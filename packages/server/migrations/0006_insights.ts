import { sql, type Kysely } from 'kysely';
import { withId } from './0001_foundation.ts';

/**
 * Statistics and order automation (issue 7).
 *
 * Statistics: counting a million licenses per request is too slow, so the database keeps day-level
 * counters. Triggers on licenses, tans, users and license_last_seen (created by 0007) append ±n rows to
 * statistics_deltas; reading the statistics folds them into statistics_daily (metric, day, product,
 * distributor). Which machines tried a product (statistics_trials) and each machine's latest contact
 * (statistics_machines, statistics_machine_products) are kept as history the counters derive from.
 *
 * Orders: one row per order id the webhook handled, so that a repeated delivery changes nothing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('statistics_deltas'))
    .addColumn('metric', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('product_id', 'integer', (c) => c.notNull())
    .addColumn('distributor_id', 'integer', (c) => c.notNull())
    .addColumn('delta', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('statistics_daily')
    .addColumn('metric', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('product_id', 'integer', (c) => c.notNull())
    .addColumn('distributor_id', 'integer', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('statistics_daily_pk', ['metric', 'day', 'product_id', 'distributor_id'])
    .execute();
  await db.schema
    .createTable('statistics_trials')
    .addColumn('machine_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'integer', (c) => c.notNull())
    .addColumn('first_trial_at', 'text', (c) => c.notNull())
    .addColumn('converted_at', 'text')
    .addPrimaryKeyConstraint('statistics_trials_pk', ['machine_id', 'product_id'])
    .execute();
  await db.schema
    .createTable('statistics_machines')
    .addColumn('machine_id', 'text', (c) => c.primaryKey())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('statistics_machine_products')
    .addColumn('machine_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'integer', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('statistics_machine_products_pk', ['machine_id', 'product_id'])
    .execute();
  // A trial's conversion: the first TAN license of the same machine and product since.
  await db.schema.createIndex('licenses_machine_product_kind').on('licenses').columns(['machine_id', 'product_id', 'kind', 'created_at']).execute();
  // New and active users of one product: the owners of its licenses, and the users in a range by id.
  await db.schema.createIndex('licenses_product_owner').on('licenses').columns(['product_id', 'owner_id']).execute();
  await db.schema.createIndex('users_created_at_id').on('users').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('users_last_login_at_id').on('users').columns(['last_login_at', 'id']).execute();

  await backfill(db);
  // The triggers that keep the counters are created by the newest migration that changed them (0007).

  await db.schema
    .createTable('webhook_orders')
    .addColumn('order_id', 'text', (c) => c.primaryKey())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('license_id', 'integer', (c) => c.references('licenses.id').onDelete('set null'))
    // What the automation did, as JSON: the answer repeated deliveries get.
    .addColumn('result', 'text', (c) => c.notNull())
    .execute();
}

/** The counters of the rows that exist already (an installation upgraded to this version). */
async function backfill(db: Kysely<any>): Promise<void> {
  const statements = [
    `INSERT INTO statistics_trials (machine_id, product_id, first_trial_at, converted_at)
       SELECT machine_id, product_id, min(created_at), NULL FROM licenses WHERE kind = 'TEMPORARY' AND machine_id IS NOT NULL GROUP BY machine_id, product_id`,
    `UPDATE statistics_trials SET converted_at = (SELECT min(created_at) FROM licenses l WHERE l.kind = 'TAN' AND l.machine_id = statistics_trials.machine_id
       AND l.product_id = statistics_trials.product_id AND l.created_at >= statistics_trials.first_trial_at)`,
    `INSERT INTO statistics_machines (machine_id, last_seen_at) SELECT machine_id, max(last_seen_at) FROM license_last_seen GROUP BY machine_id`,
    `INSERT INTO statistics_machine_products (machine_id, product_id, last_seen_at)
       SELECT s.machine_id, l.product_id, max(s.last_seen_at) FROM license_last_seen s JOIN licenses l ON l.id = s.license_id GROUP BY s.machine_id, l.product_id`,
  ];
  const daily = (select: string) => `INSERT INTO statistics_daily (metric, day, product_id, distributor_id, count) ${select}`;
  const counters = [
    `SELECT CASE kind WHEN 'TAN' THEN 'tan_activations' ELSE 'trial_licenses' END, substr(created_at, 1, 10), product_id, 0, count(*) FROM licenses GROUP BY 1, 2, 3`,
    `SELECT 'tan_activations_distributor', substr(l.created_at, 1, 10), l.product_id, t.distributor_id, count(*)
       FROM licenses l JOIN tans t ON t.id = l.tan_id WHERE l.kind = 'TAN' AND t.distributor_id IS NOT NULL GROUP BY 2, 3, 4`,
    `SELECT 'tan_free_updates', substr(free_updates_until, 1, 10), product_id, 0, count(*) FROM tans WHERE free_updates_until IS NOT NULL GROUP BY 2, 3`,
    `SELECT 'tan_free_updates_licenses', substr(free_updates_until, 1, 10), product_id, 0, sum(activated_count) FROM tans
       WHERE free_updates_until IS NOT NULL AND activated_count <> 0 GROUP BY 2, 3`,
    `SELECT 'new_users', substr(created_at, 1, 10), 0, 0, count(*) FROM users GROUP BY 2`,
    `SELECT 'active_users', substr(last_login_at, 1, 10), 0, 0, count(*) FROM users WHERE last_login_at IS NOT NULL GROUP BY 2`,
    `SELECT 'trial_machines', substr(first_trial_at, 1, 10), product_id, 0, count(*) FROM statistics_trials GROUP BY 2, 3`,
    `SELECT 'trial_converted', substr(first_trial_at, 1, 10), product_id, 0, count(*) FROM statistics_trials WHERE converted_at IS NOT NULL GROUP BY 2, 3`,
    `SELECT 'active_machines', substr(last_seen_at, 1, 10), 0, 0, count(*) FROM statistics_machines GROUP BY 2`,
    `SELECT 'active_machine_products', substr(last_seen_at, 1, 10), product_id, 0, count(*) FROM statistics_machine_products GROUP BY 2, 3`,
  ].map(daily);
  for (const statement of [...statements, ...counters]) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_orders').execute();
  for (const table of ['statistics_machine_products', 'statistics_machines', 'statistics_trials', 'statistics_daily', 'statistics_deltas']) await db.schema.dropTable(table).execute();
  for (const index of ['users_last_login_at_id', 'users_created_at_id', 'licenses_product_owner']) await db.schema.dropIndex(index).execute();
  await db.schema.dropIndex('licenses_machine_product_kind').execute();
}
