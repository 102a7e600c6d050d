import type { Executor } from '../../platform/db/database.ts';
import { SYSTEM } from '../../platform/context.ts';
import { recordOrganizationChange } from './changes.ts';
import { insertMember, insertOrganization } from './repo.ts';
import { setTanOrganization, tanCountsUsers } from './seats-repo.ts';

/**
 * A bought TAN of a USER-seat policy belongs to the buyer's organization (DESIGN.md 6f): the first
 * one the buyer owns, else one made on the fly with the buyer its owner. Answers the organization's
 * id, or null for a TAN that counts machines (nothing changes).
 */
export async function placeBoughtTan(trx: Executor, tanId: number, buyer: { id: number; first_name: string; last_name: string; company: string | null }, now: Date): Promise<number | null> {
  if (!(await tanCountsUsers(trx, tanId))) return null;
  const owned = await trx.selectFrom('organization_members').select('organization_id').where('user_id', '=', buyer.id).where('role', '=', 'owner').orderBy('organization_id').executeTakeFirst();
  let organizationId = owned?.organization_id;
  if (organizationId === undefined) {
    const name = buyer.company || `${buyer.first_name} ${buyer.last_name}`.trim() || 'Organization';
    organizationId = await insertOrganization(trx, { name, company: buyer.company }, now.toISOString());
    await insertMember(trx, { organizationId, userId: buyer.id, role: 'owner' }, now.toISOString());
    await recordOrganizationChange(trx, SYSTEM, { organizationId, operation: 'insert', newValues: { name, owner: buyer.id } });
  }
  await setTanOrganization(trx, tanId, organizationId);
  await recordOrganizationChange(trx, SYSTEM, { organizationId, operation: 'update', newValues: { tanId, bought: true } });
  return organizationId;
}
