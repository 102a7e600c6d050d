import type { Executor } from '../../platform/db/database.ts';
import { forUpdate } from '../../platform/db/dialect.ts';
import type { OrganizationRole } from '../../platform/db/schema.ts';

/** Organizations, their members and invitations: the only SQL of them (seats: seats-repo.ts). */

export interface OrganizationRow {
  id: number;
  name: string;
  company: string | null;
  created_at: string;
  role: OrganizationRole | null;
  member_count: number;
}

function organizationView(db: Executor, viewerId: number) {
  return db
    .selectFrom('organizations')
    .leftJoin('organization_members as mine', (join) => join.onRef('mine.organization_id', '=', 'organizations.id').on('mine.user_id', '=', viewerId))
    .select((eb) => [
      'organizations.id',
      'organizations.name',
      'organizations.company',
      'organizations.created_at',
      'mine.role',
      eb.selectFrom('organization_members as m').select((inner) => inner.fn.countAll<number>().as('c')).whereRef('m.organization_id', '=', 'organizations.id').as('member_count'),
    ]);
}

const normalize = (row: { id: number; name: string; company: string | null; created_at: string; role: OrganizationRole | null; member_count: number | null | string }): OrganizationRow => ({
  ...row,
  member_count: Number(row.member_count ?? 0),
});

export async function findOrganization(db: Executor, id: number, viewerId: number): Promise<OrganizationRow | undefined> {
  const row = await organizationView(db, viewerId).where('organizations.id', '=', id).executeTakeFirst();
  return row && normalize(row);
}

/** The viewer's organizations, or every one (`all`, staff), newest first, with a name filter. */
export async function listOrganizations(
  db: Executor,
  viewerId: number,
  options: { all: boolean; text?: string; offset: number; limit: number },
): Promise<{ rows: OrganizationRow[]; totalCount: number }> {
  let query = organizationView(db, viewerId);
  if (!options.all) query = query.where('mine.user_id', 'is not', null);
  if (options.text) {
    const pattern = `%${options.text.toLowerCase()}%`;
    query = query.where((eb) => eb.or([eb(eb.fn('lower', ['organizations.name']), 'like', pattern), eb(eb.fn('lower', ['organizations.company']), 'like', pattern)]));
  }
  const count = await query.clearSelect().select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  const rows = await query.orderBy('organizations.name').orderBy('organizations.id').offset(options.offset).limit(options.limit).execute();
  return { rows: rows.map(normalize), totalCount: Number(count.count) };
}

export async function insertOrganization(db: Executor, fields: { name: string; company: string | null }, now: string): Promise<number> {
  const row = await db.insertInto('organizations').values({ name: fields.name, company: fields.company, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function updateOrganization(db: Executor, id: number, fields: { name?: string; company?: string | null }, now: string): Promise<void> {
  await db.updateTable('organizations').set({ ...fields, updated_at: now }).where('id', '=', id).execute();
}

export async function countMembershipsOf(db: Executor, userId: number): Promise<number> {
  const row = await db.selectFrom('organization_members').select((eb) => eb.fn.countAll<number>().as('count')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.count);
}

export interface MemberRow {
  user_id: number;
  role: OrganizationRole;
  created_at: string;
  email: string;
  first_name: string;
  last_name: string;
  company: string | null;
}

function memberView(db: Executor) {
  return db
    .selectFrom('organization_members')
    .innerJoin('users', 'users.id', 'organization_members.user_id')
    .select(['organization_members.user_id', 'organization_members.role', 'organization_members.created_at', 'users.email', 'users.first_name', 'users.last_name', 'users.company']);
}

export async function listMembers(db: Executor, organizationId: number, page: { text?: string; offset: number; limit: number }): Promise<{ rows: MemberRow[]; totalCount: number }> {
  let query = memberView(db).where('organization_members.organization_id', '=', organizationId);
  if (page.text) {
    const pattern = `%${page.text.toLowerCase()}%`;
    query = query.where((eb) => eb.or([eb('users.email', 'like', pattern), eb(eb.fn('lower', ['users.first_name']), 'like', pattern), eb(eb.fn('lower', ['users.last_name']), 'like', pattern)]));
  }
  const count = await query.clearSelect().select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  const rows = await query.orderBy('users.last_name').orderBy('users.first_name').orderBy('users.id').offset(page.offset).limit(page.limit).execute();
  return { rows, totalCount: Number(count.count) };
}

export function findMember(db: Executor, organizationId: number, userId: number): Promise<MemberRow | undefined> {
  return memberView(db).where('organization_members.organization_id', '=', organizationId).where('organization_members.user_id', '=', userId).executeTakeFirst();
}

/** The caller's role in the organization, or undefined; with `lock`, the membership row stays as read until the transaction ends. */
export async function roleOf(db: Executor, organizationId: number, userId: number, options: { lock?: boolean } = {}): Promise<OrganizationRole | undefined> {
  const query = db.selectFrom('organization_members').select('role').where('organization_id', '=', organizationId).where('user_id', '=', userId);
  const row = await (options.lock ? forUpdate(db, query) : query).executeTakeFirst();
  return row?.role;
}

export async function insertMember(db: Executor, member: { organizationId: number; userId: number; role: OrganizationRole }, now: string): Promise<boolean> {
  const result = await db
    .insertInto('organization_members')
    .values({ organization_id: member.organizationId, user_id: member.userId, role: member.role, created_at: now })
    .onConflict((conflict) => conflict.columns(['organization_id', 'user_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function setMemberRole(db: Executor, organizationId: number, userId: number, role: OrganizationRole): Promise<void> {
  await db.updateTable('organization_members').set({ role }).where('organization_id', '=', organizationId).where('user_id', '=', userId).execute();
}

export async function deleteMember(db: Executor, organizationId: number, userId: number): Promise<void> {
  await db.deleteFrom('organization_members').where('organization_id', '=', organizationId).where('user_id', '=', userId).execute();
}

/** Locks the organization's owners (a change of owners waits for another) and counts them. */
export async function lockOwners(db: Executor, organizationId: number): Promise<number[]> {
  await forUpdate(db, db.selectFrom('organizations').select('id').where('id', '=', organizationId)).execute();
  const rows = await db.selectFrom('organization_members').select('user_id').where('organization_id', '=', organizationId).where('role', '=', 'owner').execute();
  return rows.map((row) => row.user_id);
}

export function membershipsOf(db: Executor, userId: number) {
  return db.selectFrom('organization_members').select(['organization_id', 'role']).where('user_id', '=', userId).execute();
}

export function findAccountByEmail(db: Executor, email: string) {
  return db.selectFrom('users').select(['id', 'email', 'locale', 'first_name', 'closed_at']).where('email', '=', email).executeTakeFirst();
}

export interface InvitationRow {
  id: number;
  organization_id: number;
  email: string;
  role: OrganizationRole;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

const INVITATION_COLUMNS = ['id', 'organization_id', 'email', 'role', 'created_at', 'expires_at', 'accepted_at'] as const;

export async function insertInvitation(
  db: Executor,
  invitation: { organizationId: number; email: string; role: OrganizationRole; tokenHash: string; invitedBy: number; expiresAt: string },
  now: string,
): Promise<InvitationRow> {
  return db
    .insertInto('organization_invitations')
    .values({
      organization_id: invitation.organizationId,
      email: invitation.email,
      role: invitation.role,
      token_hash: invitation.tokenHash,
      invited_by: invitation.invitedBy,
      created_at: now,
      expires_at: invitation.expiresAt,
      accepted_at: null,
    })
    .returning(INVITATION_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Open invitations (not accepted, not expired), newest first. */
export async function listOpenInvitations(db: Executor, organizationId: number, now: string): Promise<InvitationRow[]> {
  return db
    .selectFrom('organization_invitations')
    .select(INVITATION_COLUMNS)
    .where('organization_id', '=', organizationId)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('id', 'desc')
    .limit(1000)
    .execute();
}

export async function deleteInvitation(db: Executor, organizationId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('organization_invitations').where('organization_id', '=', organizationId).where('id', '=', id).where('accepted_at', 'is', null).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export function findInvitationByHash(db: Executor, tokenHash: string, options: { lock?: boolean } = {}) {
  const query = db
    .selectFrom('organization_invitations')
    .innerJoin('organizations', 'organizations.id', 'organization_invitations.organization_id')
    .select([...INVITATION_COLUMNS.map((column) => `organization_invitations.${column}` as const), 'organizations.name as organization_name'])
    .where('organization_invitations.token_hash', '=', tokenHash);
  return (options.lock ? forUpdate(db, query) : query).executeTakeFirst();
}

/** Marks the invitation used, if nobody did before: false when it was (a link is used once). */
export async function markInvitationAccepted(db: Executor, id: number, now: string): Promise<boolean> {
  const result = await db.updateTable('organization_invitations').set({ accepted_at: now }).where('id', '=', id).where('accepted_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
