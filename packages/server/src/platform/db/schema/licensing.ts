/** Licensing: TANs, licenses, the machines they were bound to, signing keys, ANY-Lic links, floating seats, last contact and the statistics counters. */
import type { ColumnType, Generated } from 'kysely';
import type { Bool } from './columns.ts';

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
  /** Migration 0021: suspended (reversible, an unpaid subscription) and the end of a subscription's paid period plus grace. */
  suspended: ColumnType<Bool, Bool | undefined, Bool>;
  valid_until: ColumnType<string | null, string | null | undefined, string | null>;
  /** Migration 0028: the organization that owns the TAN (and the licenses made from it). */
  organization_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** Migration 0033: grants and metadata (JSON). */
  entitlements: ColumnType<string, string | undefined, string>;
  metadata: ColumnType<string, string | undefined, string>;
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
  /** The TAN's distributor, kept equal to it (migration 0018): a distributor's list of an account reads no TAN rows. */
  distributor_id: ColumnType<number | null, number | null | undefined, number | null>;
  machine_id: string | null;
  valid_until: string | null;
  permanent: Bool;
  revoked: Bool;
  free_updates_until: string | null;
  upgraded_to_id: number | null;
  /** Copies of the TAN's `suspended` and `valid_until` (migration 0021), kept equal to them like distributor_id. */
  suspended: ColumnType<Bool, Bool | undefined, Bool>;
  tan_valid_until: ColumnType<string | null, string | null | undefined, string | null>;
  /** The license this one continues after a free upgrade (migration 0007); it counts as no new activation. */
  upgraded_from_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** Migration 0028: the organization that owns the license, and the named-user seat a signed-in machine uses. */
  organization_id: ColumnType<number | null, number | null | undefined, number | null>;
  seat_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** Migration 0033: the license's own grants and metadata (JSON), and copies of its TAN's. */
  entitlements: ColumnType<string, string | undefined, string>;
  metadata: ColumnType<string, string | undefined, string>;
  tan_entitlements: ColumnType<string, string | undefined, string>;
  tan_metadata: ColumnType<string, string | undefined, string>;
  /** Migration 0034: a license activated offline is bound to this install key (SHA-256 thumbprint), by a file issued then. */
  install_key_id: ColumnType<string | null, string | null | undefined, string | null>;
  install_public_key: ColumnType<string | null, string | null | undefined, string | null>;
  offline_file_issued_at: ColumnType<string | null, string | null | undefined, string | null>;
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
  /** Migration 0030: when it starts signing (published before); the newest started key signs. */
  activates_at: string | null;
  /** Migration 0030: set by `keys:retire`, after which it never signs. */
  retired_at: string | null;
  /** Migration 0030: when it leaves the published keys (null: published for good). */
  unpublish_at: string | null;
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
  /** Migration 0021: the end of a borrowed lease (the machine took the seat offline); null when not borrowed. */
  borrowed_until: ColumnType<string | null, string | null | undefined, string | null>;
  /** Migration 0033: granted beyond the count (a soft limit). */
  overage: ColumnType<Bool, Bool | undefined, Bool>;
}

/** Migration 0033: over-limit grants, one row per TAN, day, license and machine. */
export interface LicenseOveragesTable {
  tan_id: number;
  license_id: number;
  machine_id: string;
  day: string;
}

/** Migration 0034: a process's lease of a seat of an INSTANCE TAN; live while leased_until lies ahead. */
export interface InstanceLeasesTable {
  tan_id: number;
  instance_id: string;
  leased_until: string;
  renewed_at: string;
}

/** Migration 0034: the nonce of every deactivation proof accepted, so that none is accepted twice. */
export interface OfflineProofNoncesTable {
  nonce: string;
  license_id: number;
  used_at: string;
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

/** Migration 0039: each account holding a license of a product now, with the days it counts on. */
export interface StatisticsUserProductsTable {
  user_id: number;
  product_id: number;
  licenses: number;
  created_day: string;
  login_day: string | null;
}

/** Migration 0039: the over-limit grants of a TAN in a month (`YYYY-MM`), kept by triggers on license_overages. */
export interface LicenseOverageMonthsTable {
  tan_id: number;
  month: string;
  grants: number;
}
