import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';
import { isPostgres } from '../src/platform/db/dialect.ts';

type Table = CreateTableBuilder<string, any>;

/** An auto-numbered primary key on either database. */
export function withId(db: Kysely<any>, table: Table): Table {
  return isPostgres(db)
    ? table.addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

const notNull = (c: ColumnDefinitionBuilder) => c.notNull();
const timestamps = (table: Table) => table.addColumn('created_at', 'text', notNull).addColumn('updated_at', 'text', notNull);

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('users'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text')
    .addColumn('first_name', 'text', notNull)
    .addColumn('last_name', 'text', notNull)
    .addColumn('company', 'text')
    .addColumn('address', 'text')
    .addColumn('address2', 'text')
    .addColumn('zip', 'text')
    .addColumn('city', 'text')
    .addColumn('country', 'text')
    .addColumn('phone', 'text')
    .addColumn('fax', 'text')
    .addColumn('notes', 'text')
    .addColumn('access_role', 'text', notNull)
    .addColumn('opt_in_email', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('confirmed', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('locale', 'text')
    .$call(timestamps)
    .addColumn('last_login_at', 'text')
    .execute();
  await db.schema.createIndex('users_access_role').on('users').columns(['access_role', 'id']).execute();
  await db.schema.createIndex('users_created_at').on('users').column('created_at').execute();

  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', notNull)
    .addColumn('expires_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();

  await withId(db, db.schema.createTable('change_log'))
    .addColumn('model', 'text', notNull)
    .addColumn('record_id', 'integer', notNull)
    .addColumn('operation', 'text', notNull)
    .addColumn('timestamp', 'text', notNull)
    .addColumn('user_id', 'integer')
    .addColumn('old_values', 'text')
    .addColumn('new_values', 'text')
    .execute();
  await db.schema.createIndex('change_log_model_time').on('change_log').columns(['model', 'timestamp']).execute();
  await db.schema.createIndex('change_log_model_record').on('change_log').columns(['model', 'record_id', 'timestamp']).execute();

  await withId(db, db.schema.createTable('features'))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('localized_description', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('hidden', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('notes', 'text')
    .$call(timestamps)
    .execute();
  await db.schema
    .createTable('feature_expansions')
    .addColumn('feature_id', 'integer', (c) => c.notNull().references('features.id').onDelete('cascade'))
    .addColumn('expands_to_id', 'integer', (c) => c.notNull().references('features.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('feature_expansions_pk', ['feature_id', 'expands_to_id'])
    .execute();

  await withId(db, db.schema.createTable('license_policies'))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('public_name', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('type', 'text', notNull)
    .addColumn('license_max_valid_days', 'integer', notNull)
    .addColumn('refetch_interval_seconds', 'integer', notNull)
    .addColumn('refetch_before_expiry_seconds', 'integer', notNull)
    .addColumn('max_different_machines_count', 'integer', notNull)
    .addColumn('max_different_machines_interval_hours', 'integer', notNull)
    .addColumn('free_updates_period_days', 'real')
    .addColumn('notes', 'text')
    .$call(timestamps)
    .execute();

  await withId(db, db.schema.createTable('products'))
    .addColumn('name', 'text', notNull)
    .addColumn('version', 'text', notNull)
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('trial_days', 'integer')
    .addColumn('repeat_trial_after_months', 'integer')
    .addColumn('ignore_trials_before', 'text')
    .addColumn('release_date', 'text')
    .addColumn('default_license_policy_id', 'integer', (c) => c.references('license_policies.id'))
    .addColumn('notes', 'text')
    .$call(timestamps)
    .addUniqueConstraint('products_name_version', ['name', 'version'])
    .execute();
  await db.schema
    .createTable('product_features')
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('feature_id', 'integer', (c) => c.notNull().references('features.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('product_features_pk', ['product_id', 'feature_id'])
    .execute();
  await db.schema.createIndex('product_features_feature').on('product_features').column('feature_id').execute();
  await withId(db, db.schema.createTable('product_download_links'))
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('type', 'text', notNull)
    .addColumn('url', 'text', notNull)
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await withId(db, db.schema.createTable('tans'))
    .addColumn('code', 'text', (c) => c.notNull().unique())
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id'))
    .addColumn('license_policy_id', 'integer', (c) => c.references('license_policies.id'))
    .addColumn('license_count', 'integer', notNull)
    .addColumn('activated_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('distributor_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('revoked', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('free_updates_until', 'text')
    .addColumn('notes', 'text')
    .addColumn('created_by', 'integer')
    .$call(timestamps)
    .execute();
  await db.schema.createIndex('tans_created_at').on('tans').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('tans_distributor').on('tans').columns(['distributor_id', 'created_at']).execute();
  await db.schema.createIndex('tans_product').on('tans').column('product_id').execute();
  await db.schema
    .createTable('tan_tags')
    .addColumn('tan_id', 'integer', (c) => c.notNull().references('tans.id').onDelete('cascade'))
    .addColumn('tag', 'text', notNull)
    .addPrimaryKeyConstraint('tan_tags_pk', ['tan_id', 'tag'])
    .execute();
  await db.schema.createIndex('tan_tags_tag').on('tan_tags').columns(['tag', 'tan_id']).execute();

  await withId(db, db.schema.createTable('licenses'))
    .addColumn('kind', 'text', notNull)
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id'))
    .addColumn('license_policy_id', 'integer', (c) => c.notNull().references('license_policies.id'))
    .addColumn('tan_id', 'integer', (c) => c.references('tans.id'))
    .addColumn('machine_id', 'text')
    .addColumn('valid_until', 'text')
    .addColumn('permanent', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('revoked', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('free_updates_until', 'text')
    .addColumn('upgraded_to_id', 'integer')
    .$call(timestamps)
    .execute();
  await db.schema.createIndex('licenses_owner').on('licenses').columns(['owner_id', 'created_at']).execute();
  await db.schema.createIndex('licenses_machine_product').on('licenses').columns(['machine_id', 'product_id']).execute();
  await db.schema.createIndex('licenses_tan').on('licenses').column('tan_id').execute();
  await db.schema.createIndex('licenses_created_at').on('licenses').columns(['created_at', 'id']).execute();

  await withId(db, db.schema.createTable('license_machines'))
    .addColumn('license_id', 'integer', (c) => c.notNull().references('licenses.id').onDelete('cascade'))
    .addColumn('machine_id', 'text', notNull)
    .addColumn('bound_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('license_machines_license').on('license_machines').columns(['license_id', 'bound_at']).execute();

  const now = new Date().toISOString();
  const builtIn = {
    license_max_valid_days: 30,
    refetch_interval_seconds: 86400,
    refetch_before_expiry_seconds: 7 * 86400,
    max_different_machines_count: 3,
    max_different_machines_interval_hours: 30 * 24,
    free_updates_period_days: 366,
    created_at: now,
    updated_at: now,
  };
  await db
    .insertInto('license_policies')
    .values([
      { ...builtIn, name: 'SINGLE_HOST_INDEFINITE', type: 'INDEFINITE', public_name: '{}' },
      {
        ...builtIn,
        name: 'SINGLE_HOST_PERPETUAL',
        type: 'PERPETUAL',
        license_max_valid_days: 365,
        refetch_interval_seconds: 7 * 86400,
        refetch_before_expiry_seconds: 30 * 86400,
        public_name: JSON.stringify({
          en: 'Perpetual license for one computer',
          de: 'Dauerlizenz für einen Computer',
          es: 'Licencia perpetua para un ordenador',
          fr: 'Licence perpétuelle pour un ordinateur',
          it: 'Licenza perpetua per un computer',
        }),
      },
      {
        ...builtIn,
        name: 'FLOATING_DEFAULT',
        type: 'FLOATING',
        license_max_valid_days: 1,
        refetch_interval_seconds: 15 * 60,
        refetch_before_expiry_seconds: 3600,
        max_different_machines_count: 50,
        public_name: JSON.stringify({
          en: 'Floating license',
          de: 'Netzwerklizenz',
          es: 'Licencia flotante',
          fr: 'Licence flottante',
          it: 'Licenza floating',
        }),
      },
    ])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('The foundation migration cannot be undone');
}
