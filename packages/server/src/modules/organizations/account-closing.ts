import { recordChange } from '../../platform/changelog.ts';
import type { Actor } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { lockOwners, membershipsOf } from './repo.ts';
import { deleteSignInsOfUser, transferOrganizationLicenses } from './seats-repo.ts';
import { lastOwner, removeMembership } from './service.ts';

/**
 * An account that closes leaves its organizations first, in the closing transaction: refused while it
 * is the last owner of an organization others still belong to (ERR_LAST_OWNER: make another member
 * owner first); the organization's machine licenses it held pass to another owner (or member), its
 * seats end, and its desktop sign-ins go.
 */
export async function leaveAllOrganizations(trx: Executor, actor: Actor, userId: number, now: Date): Promise<void> {
  for (const membership of await membershipsOf(trx, userId)) {
    const organizationId = membership.organization_id;
    const owners = await lockOwners(trx, organizationId);
    const others = await trx.selectFrom('organization_members').select(['user_id', 'role']).where('organization_id', '=', organizationId).where('user_id', '!=', userId).execute();
    if (membership.role === 'owner' && owners.length <= 1 && others.length > 0) throw lastOwner();
    const heir = owners.find((id) => id !== userId) ?? others.find((other) => other.role === 'admin')?.user_id ?? others[0]?.user_id;
    if (heir !== undefined) {
      for (const id of await transferOrganizationLicenses(trx, organizationId, userId, heir, now.toISOString())) {
        await recordChange(trx, actor, { model: 'License', recordId: id, operation: 'update', oldValues: { ownerId: userId }, newValues: { ownerId: heir } });
      }
    }
    await removeMembership(trx, actor, organizationId, { user_id: userId, role: membership.role }, now);
  }
  await deleteSignInsOfUser(trx, userId);
}
