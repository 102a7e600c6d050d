import { z } from 'zod';
import { machineId } from './license.ts';
import { SEAT_MODES } from './license-policy.ts';
import { isoDateTime, listQuery, listResponse, MAX_RECORD_ID, recordId, wholeNumberText } from './list.ts';
import { tanCode } from './tan.ts';
import { email } from './user.ts';

/** Organizations and named users (DESIGN.md section 6f). */
export const ORGANIZATION_ROLES = ['owner', 'admin', 'member'] as const;
export type OrganizationRole = (typeof ORGANIZATION_ROLES)[number];
/** How long an invitation link works. */
export const INVITATION_VALID_DAYS = 7;
/** How many organizations one account may create or join, and members one organization may have. */
export const ORGANIZATIONS_PER_ACCOUNT = 100;
export const MEMBERS_PER_ORGANIZATION = 10_000;

/** Owners and admins manage members, seats and licenses; members see theirs. */
export const managesOrganization = (role: OrganizationRole | null | undefined) => role === 'owner' || role === 'admin';

export const organizationFields = z.object({
  name: z.string().trim().min(2).max(200),
  company: z.string().trim().max(200).nullish().transform((value) => value || null),
});
export type OrganizationFields = z.output<typeof organizationFields>;
export const organizationUpdate = organizationFields.partial();
export type OrganizationUpdate = z.output<typeof organizationUpdate>;

export const organization = z.object({
  id: z.number().int(),
  name: z.string(),
  company: z.string().nullable(),
  /** The caller's role in it; null for staff who are no member. */
  role: z.enum(ORGANIZATION_ROLES).nullable(),
  memberCount: z.number().int(),
  createdAt: isoDateTime,
});
export type Organization = z.output<typeof organization>;
export const organizationList = listResponse(organization);

export const organizationMember = z.object({
  userId: z.number().int(),
  name: z.string(),
  email: z.string(),
  role: z.enum(ORGANIZATION_ROLES),
  joinedAt: isoDateTime,
});
export type OrganizationMember = z.output<typeof organizationMember>;
export const organizationMemberList = listResponse(organizationMember);
export const memberRoleUpdate = z.object({ role: z.enum(ORGANIZATION_ROLES) });
export const memberParams = z.object({ id: wholeNumberText(1, MAX_RECORD_ID), userId: wholeNumberText(1, MAX_RECORD_ID) });
export const invitationParams = z.object({ id: wholeNumberText(1, MAX_RECORD_ID), invitationId: wholeNumberText(1, MAX_RECORD_ID) });
/** The organization lists: a page and a free-text filter; `all` (administrators): every organization, not only their own. */
export const organizationListQuery = listQuery(['name']).extend({ all: z.enum(['true', 'false']).transform((value) => value === 'true').optional() });
export const organizationPageQuery = listQuery(['name']);

export const invitationCreate = z.object({ email, role: z.enum(ORGANIZATION_ROLES).default('member') });
export type InvitationCreate = z.output<typeof invitationCreate>;
export const invitation = z.object({
  id: z.number().int(),
  email: z.string(),
  role: z.enum(ORGANIZATION_ROLES),
  createdAt: isoDateTime,
  expiresAt: isoDateTime,
});
export type Invitation = z.output<typeof invitation>;
export const invitationList = listResponse(invitation);
export const invitationTokenParams = z.object({ token: z.string().min(10).max(200) });
/** What the invitation page shows before accepting. */
export const invitationInfo = z.object({ organizationName: z.string(), email: z.string(), role: z.enum(ORGANIZATION_ROLES), expiresAt: isoDateTime });
export type InvitationInfo = z.output<typeof invitationInfo>;

export const claimTan = z.object({ tan: tanCode });
export const moveLicenseToOrganization = z.object({ licenseId: recordId });
export const organizationSuspend = z.object({ suspended: z.boolean() });
export const organizationSuspended = z.object({ tanCount: z.number().int() });

export const organizationTan = z.object({
  id: z.number().int(),
  code: z.string(),
  productId: z.number().int(),
  productName: z.string(),
  licenseCount: z.number().int(),
  seatMode: z.enum(SEAT_MODES),
  /** Seats assigned now (USER policies), or licenses activated (MACHINE). */
  used: z.number().int(),
  suspended: z.boolean(),
  revoked: z.boolean(),
});
export type OrganizationTan = z.output<typeof organizationTan>;
export const organizationTanList = listResponse(organizationTan);

export const organizationLicense = z.object({
  id: z.number().int(),
  productName: z.string(),
  machineId: z.string().nullable(),
  ownerId: z.number().int(),
  ownerName: z.string(),
  tanId: z.number().int().nullable(),
  revoked: z.boolean(),
  createdAt: isoDateTime,
});
export type OrganizationLicense = z.output<typeof organizationLicense>;
export const organizationLicenseList = listResponse(organizationLicense);

export const seatCreate = z.object({ tanId: recordId, userId: recordId });
export type SeatCreate = z.output<typeof seatCreate>;
export const seat = z.object({
  id: z.number().int(),
  tanId: z.number().int(),
  tanCode: z.string(),
  productName: z.string(),
  userId: z.number().int(),
  userName: z.string(),
  userEmail: z.string(),
  assignedAt: isoDateTime,
});
export type Seat = z.output<typeof seat>;
export const seatList = listResponse(seat);
export const seatParams = z.object({ id: wholeNumberText(1, MAX_RECORD_ID), seatId: wholeNumberText(1, MAX_RECORD_ID) });

// Desktop sign-in: the OAuth 2.0 Device Authorization Grant (RFC 8628).

export const DEVICE_CODE_EXPIRES_SECONDS = 900;
export const DEVICE_GRANT_ERRORS = ['authorization_pending', 'slow_down', 'access_denied', 'expired_token', 'invalid_grant'] as const;
/** The user code's alphabet: consonants only (no vowels make no words; RFC 8628 section 6.1), shown as XXXX-XXXX. */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export function normalizeUserCode(value: string): string {
  return value.toUpperCase().replace(/[^A-Z]/g, '');
}
export const userCode = z
  .string()
  .max(50)
  .transform(normalizeUserCode)
  .pipe(z.string().regex(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/, 'validation.userCode'));
export const formatUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

export const deviceAuthorizeRequest = z.object({
  product: z.string().trim().min(1).max(255),
  machineId,
  version: z.string().trim().min(1).max(100).optional(),
});
export type DeviceAuthorizeRequest = z.output<typeof deviceAuthorizeRequest>;
export const deviceAuthorizeResponse = z.object({
  device_code: z.string(),
  user_code: z.string(),
  verification_uri: z.string(),
  verification_uri_complete: z.string(),
  expires_in: z.number().int(),
  interval: z.number().int(),
});
export const deviceTokenRequest = z.object({ device_code: z.string().min(10).max(200) });
export const deviceTokenResponse = z.object({ access_token: z.string(), token_type: z.literal('Bearer') });
export const deviceGrantError = z.object({ error: z.enum(DEVICE_GRANT_ERRORS), error_description: z.string() });
export const deviceDecision = z.object({ userCode });
export const devicePendingQuery = z.object({ userCode });
/** What the /device page shows before the person decides. */
export const devicePending = z.object({ userCode: z.string(), productName: z.string(), machineId: z.string(), expiresAt: isoDateTime });
export type DevicePending = z.output<typeof devicePending>;

export const desktopSignIn = z.object({ id: z.number().int(), productName: z.string(), machineId: z.string(), createdAt: isoDateTime });
export type DesktopSignIn = z.output<typeof desktopSignIn>;
export const desktopSignInList = listResponse(desktopSignIn);
