import { BUILT_IN_POLICY_NAMES } from '@lm/contract/license-policy';
import type { Executor } from '../../platform/db/database.ts';

/** Whether a query finds any row: one row read, no counting of a large table. */
async function any(query: { executeTakeFirst(): Promise<unknown> }): Promise<boolean> {
  return (await query.executeTakeFirst()) !== undefined;
}

/** What exists of the catalogue and the accounts a new installation sets up first. */
export async function setupRows(db: Executor) {
  const [hasProduct, hasOwnPolicy, hasTan, hasDistributor] = await Promise.all([
    any(db.selectFrom('products').select('id').limit(1)),
    any(db.selectFrom('license_policies').select('id').where('name', 'not in', [...BUILT_IN_POLICY_NAMES]).limit(1)),
    any(db.selectFrom('tans').select('id').limit(1)),
    any(db.selectFrom('users').select('id').where('access_role', '=', 'DISTRIBUTOR').where('closed_at', 'is', null).limit(1)),
  ]);
  return { hasProduct, hasOwnPolicy, hasTan, hasDistributor };
}
