/** The catalogue and the installation: settings, the change log, features, license policies and products. */
import type { ColumnType, Generated } from 'kysely';
import type { Bool } from './columns.ts';

export interface SettingsTable {
  key: string;
  value: string;
  updated_at: string;
}

/** An uploaded theme file (logo, favicon); the setting of the same key holds its public URL. */
export interface SettingFilesTable {
  key: string;
  content_type: string;
  data: Uint8Array;
  size: number;
  /** A hash of the bytes: the URL's cache-busting version. */
  version: string;
  updated_at: string;
}

export interface ChangeLogTable {
  id: Generated<number>;
  model: string;
  record_id: number;
  operation: 'insert' | 'update' | 'delete';
  timestamp: string;
  user_id: number | null;
  old_values: string | null;
  new_values: string | null;
  /** The API token the change was made with (migration 0012), by its name at the time. */
  token_name: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface FeaturesTable {
  id: Generated<number>;
  name: string;
  localized_description: string;
  hidden: Bool;
  notes: string | null;
  /** Migration 0033: none, integer or string. */
  value_type: ColumnType<'none' | 'integer' | 'string', 'none' | 'integer' | 'string' | undefined, 'none' | 'integer' | 'string'>;
  created_at: string;
  updated_at: string;
}

export interface FeatureExpansionsTable {
  feature_id: number;
  expands_to_id: number;
}

export interface LicensePoliciesTable {
  id: Generated<number>;
  name: string;
  public_name: string;
  type: 'INDEFINITE' | 'PERPETUAL' | 'FLOATING';
  license_max_valid_days: number;
  refetch_interval_seconds: number;
  refetch_before_expiry_seconds: number;
  max_different_machines_count: number;
  max_different_machines_interval_hours: number;
  free_updates_period_days: number | null;
  /** Migration 0021: how many days a machine may borrow a floating seat for offline use; 0 = none. */
  max_borrow_days: ColumnType<number, number | undefined, number>;
  /** Migration 0031: licenses of the policy may have beta releases. */
  beta_updates: ColumnType<Bool, Bool | undefined, Bool>;
  /** Migration 0028: MACHINE (a TAN's count is machines) or USER (named users), the reassignment wait and machines per person. */
  seat_mode: ColumnType<'MACHINE' | 'USER', 'MACHINE' | 'USER' | undefined, 'MACHINE' | 'USER'>;
  seat_reassign_hours: ColumnType<number, number | undefined, number>;
  machines_per_user: ColumnType<number, number | undefined, number>;
  /** Migration 0033: grants (JSON) and the soft limit in percent. */
  entitlements: ColumnType<string, string | undefined, string>;
  overage_percent: ColumnType<number, number | undefined, number>;
  /** Migration 0034: INSTANCE (a FLOATING policy whose TAN leases a seat per process) or MACHINE, and the lease's time to live. */
  lease_mode: ColumnType<'MACHINE' | 'INSTANCE', 'MACHINE' | 'INSTANCE' | undefined, 'MACHINE' | 'INSTANCE'>;
  lease_ttl_seconds: ColumnType<number | null, number | null | undefined, number | null>;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProductsTable {
  id: Generated<number>;
  name: string;
  version: string;
  active: Bool;
  trial_days: number | null;
  repeat_trial_after_months: number | null;
  ignore_trials_before: string | null;
  release_date: string | null;
  default_license_policy_id: number | null;
  notes: string | null;
  /** Migration 0033: feature name → default value (JSON). */
  feature_values: ColumnType<string, string | undefined, string>;
  created_at: string;
  updated_at: string;
}

export interface ProductFeaturesTable {
  product_id: number;
  feature_id: number;
}

export interface ProductDownloadLinksTable {
  id: Generated<number>;
  product_id: number;
  type: 'mac' | 'win' | 'offline';
  url: string;
  position: number;
}

/** Migration 0031: a build of a product version (DESIGN.md section 6i). */
export interface ReleasesTable {
  id: Generated<number>;
  product_id: number;
  version: string;
  channel: 'stable' | 'beta';
  released_at: string;
  /** JSON: Markdown per language. */
  notes: string;
  yanked: Bool;
  created_at: string;
  updated_at: string;
}

export interface ReleaseArtifactsTable {
  id: Generated<number>;
  release_id: number;
  platform: 'windows' | 'macos' | 'linux' | 'any';
  arch: 'x86_64' | 'arm64' | 'any';
  filename: string;
  /** bigint: PostgreSQL answers a string; read it with Number(). */
  size: ColumnType<number | string, number, number>;
  sha256: string;
  sig: string;
  kid: string;
  storage_key: string;
  created_at: string;
}

export interface ReleaseDownloadsTable {
  release_id: number;
  month: string;
  count: number;
}
