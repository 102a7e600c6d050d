/**
 * Table types for Kysely. Timestamps are ISO-8601 strings (`2026-01-31T12:00:00.000Z`) and dates
 * `YYYY-MM-DD` on both databases, so that one query code serves SQLite and PostgreSQL and a month
 * is `substr(x, 1, 7)` on both. Booleans are booleans in PostgreSQL and 0/1 in SQLite: read them
 * with `Boolean()`. JSON columns are text.
 */
import type { ColumnType, Generated } from 'kysely';

type Bool = boolean | number;

export interface UsersTable {
  id: Generated<number>;
  email: string;
  password_hash: string | null;
  first_name: string;
  last_name: string;
  company: string | null;
  address: string | null;
  address2: string | null;
  zip: string | null;
  city: string | null;
  country: string | null;
  phone: string | null;
  fax: string | null;
  notes: string | null;
  access_role: 'ADMIN' | 'DISTRIBUTOR' | 'USER';
  opt_in_email: Bool;
  confirmed: Bool;
  locale: string | null;
  created_at: string;
  updated_at: string;
  last_login_at: string | null;
  /** Set when the account was closed; its personal data is gone and it cannot log in. */
  closed_at: string | null;
}

export interface SessionsTable {
  token_hash: string;
  user_id: number;
  created_at: string;
  expires_at: string;
  /** Migration 0013: an id to name the session by (never the token), the browser, the address, the last use. */
  id: string;
  user_agent: string | null;
  address: string | null;
  last_used_at: string;
}

/** An account's TOTP secret (migration 0013); pending until confirmed_at. */
export interface UserTwoFactorTable {
  user_id: number;
  secret: string;
  confirmed_at: string | null;
  /** The time step of the last code accepted: a code of it or an earlier step is refused. */
  last_used_step: number | null;
  created_at: string;
}

export interface UserRecoveryCodesTable {
  id: Generated<number>;
  user_id: number;
  code_hash: string;
  used_at: string | null;
}

/** An attempt that counts toward a limit (migration 0008): `key` names the limit and whom it counts. */
export interface LimitEventsTable {
  id: Generated<number>;
  key: string;
  at: string;
}

/** A browser an account logged in from (a device cookie, hashed): its own login limit, not the account's. */
export interface LoginDevicesTable {
  token_hash: string;
  user_id: number;
  created_at: string;
  last_used_at: string;
}

export interface SettingsTable {
  key: string;
  value: string;
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

export interface TansTable {
  id: Generated<number>;
  code: string;
  product_id: number;
  license_policy_id: number | null;
  license_count: number;
  activated_count: number;
  distributor_id: number | null;
  revoked: Bool;
  free_updates_until: string | null;
  notes: string | null;
  created_by: number | null;
  created_at: string;
  updated_at: string;
}

export interface TanTagsTable {
  tan_id: number;
  tag: string;
}

export interface LicensesTable {
  id: Generated<number>;
  kind: 'TAN' | 'TEMPORARY';
  owner_id: number;
  product_id: number;
  license_policy_id: number;
  tan_id: number | null;
  /** The TAN's code, copied at activation (migration 0004): the license search reads no TAN rows. */
  tan_code: string | null;
  machine_id: string | null;
  valid_until: string | null;
  permanent: Bool;
  revoked: Bool;
  free_updates_until: string | null;
  upgraded_to_id: number | null;
  /** The license this one continues after a free upgrade (migration 0007); it counts as no new activation. */
  upgraded_from_id: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: string;
  updated_at: string;
}

/** Every machine a license was bound to, for the different-machines window. */
export interface LicenseMachinesTable {
  id: Generated<number>;
  license_id: number;
  machine_id: string;
  bound_at: string;
}

/** Every temporary license ever added, kept when the license is deleted (repeat-trial rule). */
export interface LicenseTrialsTable {
  id: Generated<number>;
  product_id: number;
  machine_id: string;
  owner_id: number | null;
  license_id: number | null;
  started_at: string;
}

/** Ed25519 key pairs; the active one signs, all stay published (migration 0005). */
export interface SigningKeysTable {
  kid: string;
  algorithm: string;
  public_key_pem: string;
  private_key: string;
  active: Bool;
  created_at: string;
}

export interface AnyLicLinksTable {
  id: Generated<number>;
  token_hash: string;
  product_id: number;
  format: 'lic' | 'json';
  valid_until: string;
  expires_at: string;
  created_by: number | null;
  created_at: string;
}

export interface FloatingSeatsTable {
  pool: string;
  machine_id: string;
  license_id: number;
  leased_until: string;
  renewed_at: string;
}

export interface LicenseLastSeenTable {
  license_id: number;
  machine_id: string;
  last_seen_at: string;
}

/** Statistics counters (migration 0006): triggers append deltas, reading folds them into statistics_daily. */
export interface StatisticsDeltasTable {
  id: Generated<number>;
  metric: string;
  day: string;
  product_id: number;
  distributor_id: number;
  delta: number;
}

export interface StatisticsDailyTable {
  metric: string;
  day: string;
  /** 0 where the metric has no product. */
  product_id: number;
  /** 0 where the metric has no distributor, or the TAN none. */
  distributor_id: number;
  count: number;
}

/** Each machine that tried a product: its first trial, and the first TAN license for that pair since. */
export interface StatisticsTrialsTable {
  machine_id: string;
  product_id: number;
  first_trial_at: string;
  converted_at: string | null;
}

/** Each machine's latest contact through the desktop protocol. */
export interface StatisticsMachinesTable {
  machine_id: string;
  last_seen_at: string;
}

export interface StatisticsMachineProductsTable {
  machine_id: string;
  product_id: number;
  last_seen_at: string;
}

/** Orders the webhook handled, one per order id (migration 0006). */
export interface WebhookOrdersTable {
  order_id: string;
  received_at: string;
  email: string;
  user_id: number | null;
  license_id: number | null;
  result: string;
}

/** API tokens (migration 0012): only the SHA-256 of a token is stored. */
export interface ApiTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_hash: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

/** Outbound webhook endpoints (migration 0012); `events` is a JSON array, `secret` encrypted with SECRET_KEY when set. */
export interface WebhookEndpointsTable {
  id: Generated<number>;
  user_id: number;
  url: string;
  events: string;
  description: string | null;
  enabled: Bool;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  disabled_reason: string | null;
  failing_since: string | null;
  /** The worker that delivers to the endpoint holds it until then (several instances share the outbox). */
  claimed_by: string | null;
  claimed_until: string | null;
  created_at: string;
  updated_at: string;
}

/** An event as delivered: `body` is the exact JSON that is signed and posted (null once erased). */
export interface WebhookEventsTable {
  id: Generated<number>;
  message_id: string;
  type: string;
  body: string | null;
  person_id: number | null;
  created_at: string;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  endpoint_id: number;
  event_id: number;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: string;
  first_attempt_at: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  response: string | null;
  error: string | null;
}

export interface DB {
  users: UsersTable;
  sessions: SessionsTable;
  user_two_factor: UserTwoFactorTable;
  user_recovery_codes: UserRecoveryCodesTable;
  limit_events: LimitEventsTable;
  login_devices: LoginDevicesTable;
  settings: SettingsTable;
  change_log: ChangeLogTable;
  features: FeaturesTable;
  feature_expansions: FeatureExpansionsTable;
  license_policies: LicensePoliciesTable;
  products: ProductsTable;
  product_features: ProductFeaturesTable;
  product_download_links: ProductDownloadLinksTable;
  tans: TansTable;
  tan_tags: TanTagsTable;
  licenses: LicensesTable;
  license_machines: LicenseMachinesTable;
  license_trials: LicenseTrialsTable;
  user_tokens: UserTokensTable;
  mail_outbox: MailOutboxTable;
  setting_files: SettingFilesTable;
  signing_keys: SigningKeysTable;
  anylic_links: AnyLicLinksTable;
  floating_seats: FloatingSeatsTable;
  license_last_seen: LicenseLastSeenTable;
  webhook_orders: WebhookOrdersTable;
  statistics_deltas: StatisticsDeltasTable;
  statistics_daily: StatisticsDailyTable;
  statistics_trials: StatisticsTrialsTable;
  statistics_machines: StatisticsMachinesTable;
  statistics_machine_products: StatisticsMachineProductsTable;
  api_tokens: ApiTokensTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}

export type UserTokenPurpose = 'confirm-registration' | 'reset-password' | 'change-email';

/** Single-use tokens of the e-mail flows; only their SHA-256 is stored. */
export interface UserTokensTable {
  id: Generated<number>;
  user_id: number;
  purpose: UserTokenPurpose;
  token_hash: string;
  /** The address an e-mail change goes to. */
  new_email: string | null;
  created_at: string;
  expires_at: string;
}

/** Mails waiting to be sent; written in the transaction of the change that causes them. */
export interface MailOutboxTable {
  id: Generated<number>;
  recipient: string;
  subject: string;
  text_body: string | null;
  html_body: string | null;
  created_at: string;
  attempts: Generated<number>;
  next_attempt_at: string;
  /** A worker that took the mail holds it until then (several app instances share one outbox). */
  claimed_until: string | null;
  last_error: string | null;
  /** Set when the mail was given up; its bodies are then removed. */
  failed_at: string | null;
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
