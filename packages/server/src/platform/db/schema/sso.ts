import type { Generated } from 'kysely';

/** An account's identity at the single sign-on provider (migration 0027). */
export interface SsoIdentitiesTable {
  id: Generated<number>;
  user_id: number;
  issuer: string;
  subject: string;
  created_at: string;
  last_login_at: string | null;
}

/** A sign-in on its way to the provider (migration 0027). */
export interface SsoLoginsTable {
  state_hash: string;
  nonce: string;
  code_verifier: string;
  link_user_id: number | null;
  expires_at: string;
}

/** An identity the provider vouched for, waiting for the account's second factor (migration 0037). */
export interface SsoSecondFactorsTable {
  token_hash: string;
  user_id: number;
  identity_id: number | null;
  attempts: Generated<number>;
  expires_at: string;
}

/** The runtime events of licenses (migration 0027): refusals, no seat, leases expired, ... */
export interface LicenseEventsTable {
  id: Generated<number>;
  license_id: number | null;
  tan_id: number | null;
  owner_id: number | null;
  type: string;
  code: string | null;
  machine_id: string | null;
  /** The same event again within a few seconds, folded into this row. */
  repeats: number;
  at: string;
}
