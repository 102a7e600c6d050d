import type { FastifyRequest } from 'fastify';
import { formatUserName, preferredLocale, type ListResult } from '@lm/contract';
import {
  INVITATION_VALID_DAYS,
  managesOrganization,
  ORGANIZATIONS_PER_ACCOUNT,
  type Invitation,
  type InvitationCreate,
  type InvitationInfo,
  type Organization,
  type OrganizationFields,
  type OrganizationMember,
  type OrganizationRole,
  type OrganizationUpdate,
} from '@lm/contract/organization';
import { hashToken, randomToken } from '../../platform/auth/secrets.ts';
import type { Actor, AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { actorOf, requireUser, type RequestUser } from '../../platform/http/auth.ts';
import { AppError, forbidden, notFound } from '../../platform/http/errors.ts';
import { requestLocale } from '../../platform/http/locale.ts';
import { queueInvitationMail } from './mail.ts';
import {
  countMembershipsOf,
  deleteInvitation,
  deleteMember,
  findAccountByEmail,
  findInvitationByHash,
  findMember,
  findOrganization,
  insertInvitation,
  insertMember,
  insertOrganization,
  listMembers,
  listOpenInvitations,
  listOrganizations,
  lockOwners,
  markInvitationAccepted,
  setMemberRole,
  updateOrganization,
  type InvitationRow,
  type MemberRow,
  type OrganizationRow,
} from './repo.ts';
import { activeSeatsOf } from './seats-repo.ts';
import { endSeat, recordOrganizationChange } from './changes.ts';

export const lastOwner = () => new AppError(422, 'ERR_LAST_OWNER', 'The last owner cannot leave or be demoted: make another member an owner first');
export const alreadyMember = () => new AppError(409, 'ERR_ALREADY_MEMBER', 'This person is already a member of the organization');
const invalidInvitation = () => new AppError(422, 'ERR_INVALID_TOKEN', 'The invitation link is invalid, was already used or has expired');

const toOrganization = (row: OrganizationRow): Organization => ({ id: row.id, name: row.name, company: row.company, role: row.role, memberCount: row.member_count, createdAt: row.created_at });

const toMember = (row: MemberRow): OrganizationMember => ({
  userId: row.user_id,
  name: formatUserName({ firstName: row.first_name, lastName: row.last_name, email: row.email }),
  email: row.email,
  role: row.role,
  joinedAt: row.created_at,
});

const toInvitation = (row: InvitationRow): Invitation => ({ id: row.id, email: row.email, role: row.role, createdAt: row.created_at, expiresAt: row.expires_at });

const isStaff = (user: RequestUser) => user.accessRole === 'ADMIN';

export interface OrganizationAccess {
  organization: OrganizationRow;
  user: RequestUser;
  /** The caller's role; null for an administrator of the installation who is no member. */
  role: OrganizationRole | null;
  manages: boolean;
  staff: boolean;
}

/**
 * The organization as the caller may see it: its members see it, the installation's administrators
 * too; to anyone else it does not exist (404, so that ids tell nothing).
 */
export async function organizationAccess(ctx: AppContext, request: FastifyRequest, id: number, db: Executor = ctx.db): Promise<OrganizationAccess> {
  const user = requireUser(request);
  const organization = await findOrganization(db, id, user.id);
  const staff = isStaff(user);
  if (!organization || (!organization.role && !staff)) throw notFound('Organization');
  return { organization, user, role: organization.role, manages: managesOrganization(organization.role), staff };
}

/** Owners and admins of the organization only (staff look, but do not act for it). */
export async function managerAccess(ctx: AppContext, request: FastifyRequest, id: number, db: Executor = ctx.db): Promise<OrganizationAccess> {
  const access = await organizationAccess(ctx, request, id, db);
  if (!access.manages) throw forbidden();
  return access;
}

export async function listMyOrganizations(ctx: AppContext, request: FastifyRequest, query: { filter?: string; offset: number; limit: number; all?: boolean }): Promise<ListResult<Organization>> {
  const user = requireUser(request);
  if (query.all && !isStaff(user)) throw forbidden();
  const { rows, totalCount } = await listOrganizations(ctx.db, user.id, { all: Boolean(query.all), text: query.filter, offset: query.offset, limit: query.limit });
  return { items: rows.map(toOrganization), totalCount };
}

export async function getOrganization(ctx: AppContext, request: FastifyRequest, id: number): Promise<Organization> {
  return toOrganization((await organizationAccess(ctx, request, id)).organization);
}

/** `POST /organizations`: a new organization, the caller its owner. */
export async function createOrganization(ctx: AppContext, request: FastifyRequest, fields: OrganizationFields): Promise<Organization> {
  const user = requireUser(request);
  if ((await countMembershipsOf(ctx.db, user.id)) >= ORGANIZATIONS_PER_ACCOUNT) {
    throw new AppError(422, 'ERR_LIMIT_EXCEEDED', `An account can belong to at most ${ORGANIZATIONS_PER_ACCOUNT} organizations`, { params: { max: ORGANIZATIONS_PER_ACCOUNT } });
  }
  const id = await ctx.db.transaction().execute(async (trx) => {
    const now = new Date().toISOString();
    const organizationId = await insertOrganization(trx, fields, now);
    await insertMember(trx, { organizationId, userId: user.id, role: 'owner' }, now);
    await recordOrganizationChange(trx, actorOf(request), { organizationId, operation: 'insert', newValues: { ...fields, owner: user.id } });
    return organizationId;
  });
  return getOrganization(ctx, request, id);
}

export async function editOrganization(ctx: AppContext, request: FastifyRequest, id: number, fields: OrganizationUpdate): Promise<Organization> {
  const { organization } = await managerAccess(ctx, request, id);
  await ctx.db.transaction().execute(async (trx) => {
    await updateOrganization(trx, id, fields, new Date().toISOString());
    await recordOrganizationChange(trx, actorOf(request), { organizationId: id, operation: 'update', oldValues: { name: organization.name, company: organization.company }, newValues: fields });
  });
  return getOrganization(ctx, request, id);
}

export async function listOrganizationMembers(ctx: AppContext, request: FastifyRequest, id: number, page: { filter?: string; offset: number; limit: number }): Promise<ListResult<OrganizationMember>> {
  await organizationAccess(ctx, request, id);
  const { rows, totalCount } = await listMembers(ctx.db, id, { text: page.filter, offset: page.offset, limit: page.limit });
  return { items: rows.map(toMember), totalCount };
}

/** `PUT /organizations/{id}/members/{userId}`: owners make owners; admins change admins and members; the last owner stays one. */
export async function changeMemberRole(ctx: AppContext, request: FastifyRequest, id: number, userId: number, role: OrganizationRole): Promise<OrganizationMember> {
  await ctx.db.transaction().execute(async (trx) => {
    const access = await managerAccess(ctx, request, id, trx);
    const owners = await lockOwners(trx, id);
    const member = await findMember(trx, id, userId);
    if (!member) throw notFound('Member');
    if ((member.role === 'owner' || role === 'owner') && access.role !== 'owner') throw forbidden();
    if (member.role === 'owner' && role !== 'owner' && owners.length <= 1) throw lastOwner();
    if (member.role === role) return;
    await setMemberRole(trx, id, userId, role);
    await recordOrganizationChange(trx, actorOf(request), { organizationId: id, operation: 'update', oldValues: { member: userId, role: member.role }, newValues: { member: userId, role } });
  });
  return toMember((await findMember(ctx.db, id, userId))!);
}

/**
 * Takes a member out of an organization, in the caller's transaction: their seats end at once (the
 * machines signed in on them are refused at their next refresh), then the membership goes.
 */
export async function removeMembership(trx: Executor, actor: Actor, organizationId: number, member: { user_id: number; role: OrganizationRole }, now: Date): Promise<void> {
  for (const seat of await activeSeatsOf(trx, organizationId, member.user_id)) await endSeat(trx, actor, organizationId, seat, now);
  await deleteMember(trx, organizationId, member.user_id);
  await recordOrganizationChange(
    trx,
    actor,
    { organizationId, operation: 'update', oldValues: { member: member.user_id, role: member.role }, newValues: { member: member.user_id, removed: true } },
    { type: 'organization.member_removed', userId: member.user_id, data: { role: member.role } },
  );
}

/** `DELETE /organizations/{id}/members/{userId}`: a manager removes a member, anyone leaves; the last owner cannot. */
export async function removeMember(ctx: AppContext, request: FastifyRequest, id: number, userId: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const access = await organizationAccess(ctx, request, id, trx);
    const leaving = userId === access.user.id;
    if (!leaving && !access.manages) throw forbidden();
    const owners = await lockOwners(trx, id);
    const member = await findMember(trx, id, userId);
    if (!member) throw notFound('Member');
    if (member.role === 'owner' && !leaving && access.role !== 'owner') throw forbidden();
    if (member.role === 'owner' && owners.length <= 1) throw lastOwner();
    await removeMembership(trx, actorOf(request), id, member, new Date());
  });
}

/** `POST /organizations/{id}/invitations`: a link by mail, in the invitee's language when known, else the inviter's. */
export async function inviteMember(ctx: AppContext, request: FastifyRequest, id: number, input: InvitationCreate): Promise<Invitation> {
  const access = await managerAccess(ctx, request, id);
  if (input.role === 'owner' && access.role !== 'owner') throw forbidden();
  const invitee = await findAccountByEmail(ctx.db, input.email);
  if (invitee && (await findMember(ctx.db, id, invitee.id))) throw alreadyMember();
  const token = randomToken(32);
  const now = new Date();
  const row = await ctx.db.transaction().execute(async (trx) => {
    const invitation = await insertInvitation(
      trx,
      { organizationId: id, email: input.email, role: input.role, tokenHash: hashToken(token), invitedBy: access.user.id, expiresAt: new Date(now.getTime() + INVITATION_VALID_DAYS * 86_400_000).toISOString() },
      now.toISOString(),
    );
    const locale = invitee?.locale ? preferredLocale([invitee.locale]) : (access.user.locale ? preferredLocale([access.user.locale]) : requestLocale(request));
    await queueInvitationMail(ctx, trx, { email: input.email, organizationName: access.organization.name, inviterName: access.user.formattedName, token, locale });
    return invitation;
  });
  ctx.mail.wake();
  return toInvitation(row);
}

export async function listInvitations(ctx: AppContext, request: FastifyRequest, id: number): Promise<ListResult<Invitation>> {
  await managerAccess(ctx, request, id);
  const rows = await listOpenInvitations(ctx.db, id, new Date().toISOString());
  return { items: rows.map(toInvitation), totalCount: rows.length };
}

export async function withdrawInvitation(ctx: AppContext, request: FastifyRequest, id: number, invitationId: number): Promise<void> {
  await managerAccess(ctx, request, id);
  if (!(await deleteInvitation(ctx.db, id, invitationId))) throw notFound('Invitation');
}

async function openInvitation(db: Executor, token: string, options: { lock?: boolean } = {}) {
  const row = await findInvitationByHash(db, hashToken(token), options);
  if (!row || row.accepted_at !== null || row.expires_at <= new Date().toISOString()) throw invalidInvitation();
  return row;
}

/** `GET /invitations/{token}`: what the link's page shows (no sign-in needed: the token is the credential). */
export async function invitationInfo(ctx: AppContext, token: string): Promise<InvitationInfo> {
  const row = await openInvitation(ctx.db, token);
  return { organizationName: row.organization_name, email: row.email, role: row.role, expiresAt: row.expires_at };
}

/** `POST /invitations/{token}/accept`: the signed-in account with the invited address joins, once. */
export async function acceptInvitation(ctx: AppContext, request: FastifyRequest, token: string): Promise<Organization> {
  const user = requireUser(request);
  const organizationId = await ctx.db.transaction().execute(async (trx) => {
    const row = await openInvitation(trx, token, { lock: true });
    if (row.email.toLowerCase() !== user.email.toLowerCase()) {
      throw new AppError(403, 'ERR_FORBIDDEN', 'This invitation is for another e-mail address: sign in with the address it was sent to');
    }
    const now = new Date().toISOString();
    if (!(await markInvitationAccepted(trx, row.id, now))) throw invalidInvitation();
    if (!(await insertMember(trx, { organizationId: row.organization_id, userId: user.id, role: row.role }, now))) throw alreadyMember();
    await recordOrganizationChange(
      trx,
      actorOf(request),
      { organizationId: row.organization_id, operation: 'update', newValues: { member: user.id, role: row.role } },
      { type: 'organization.member_added', userId: user.id, data: { role: row.role } },
    );
    return row.organization_id;
  });
  return getOrganization(ctx, request, organizationId);
}
