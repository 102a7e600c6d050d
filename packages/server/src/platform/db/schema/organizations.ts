/** Organizations, their members, invitations and named-user seats, and desktop sign-in (migration 0028). */
import type { Generated } from 'kysely';

export type OrganizationRole = 'owner' | 'admin' | 'member';

export interface OrganizationsTable {
  id: Generated<number>;
  name: string;
  company: string | null;
  created_at: string;
  updated_at: string;
}

export interface OrganizationMembersTable {
  organization_id: number;
  user_id: number;
  role: OrganizationRole;
  created_at: string;
}

export interface OrganizationInvitationsTable {
  id: Generated<number>;
  organization_id: number;
  email: string;
  role: OrganizationRole;
  token_hash: string;
  invited_by: number | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

/** A TAN's seat assigned to a member; kept after unassignment (its time holds the seat back for the reassignment wait). */
export interface OrganizationSeatsTable {
  id: Generated<number>;
  organization_id: number;
  tan_id: number;
  user_id: number | null;
  assigned_by: number | null;
  assigned_at: string;
  unassigned_at: string | null;
}

export interface DeviceAuthorizationsTable {
  id: Generated<number>;
  device_code_hash: string;
  user_code: string;
  product_id: number;
  machine_id: string;
  interval_seconds: number;
  status: 'pending' | 'approved' | 'denied' | 'used';
  user_id: number | null;
  created_at: string;
  expires_at: string;
  last_polled_at: string | null;
}

export interface DesktopSignInsTable {
  id: Generated<number>;
  token_hash: string;
  user_id: number;
  product_id: number;
  machine_id: string;
  created_at: string;
}
