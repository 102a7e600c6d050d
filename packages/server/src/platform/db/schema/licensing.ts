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
  /** Migration 0021: the end of a borrowed lease (the machine took the seat offline); null when not borrowed. */
  borrowed_until: ColumnType<string | null, string | null | undefined, string | null>;
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
