/**
 * The staff home's SQL: every figure a count over an index (DESIGN.md section 9: fast at a million
 * licenses). Activity comes from the statistics day counters (migration 0006), the TANs that need
 * someone from the partial indexes of migration 0029 (tans/attention.ts), the rest from small tables.
 */
import { sql } from 'kysely';
import type { TanAttentionState } from '@lm/contract/dashboard';
import type { Executor } from '../../platform/db/database.ts';
import { attentionCondition } from '../tans/attention.ts';

/** Whose TANs count: every TAN (null) or those of one distributor. */
export type DistributorScope = number | null;

/** A day counter of the statistics (already folded) per day from `since` on: day → count. */
export async function countsByDay(db: Executor, metric: 'tan_activations' | 'tan_activations_distributor' | 'active_machines', since: string, distributorId: DistributorScope): Promise<Map<string, number>> {
  let query = db
    .selectFrom('statistics_daily')
    .select(['day', (eb) => eb.fn.sum<number>('count').as('count')])
    .where('metric', '=', metric)
    .where('day', '>=', since);
  if (distributorId !== null) query = query.where('distributor_id', '=', distributorId);
  const rows = await query.groupBy('day').execute();
  return new Map(rows.map((row) => [row.day, Number(row.count ?? 0)]));
}

/** The TANs in one attention state, of one distributor or all. */
export async function countTansInState(db: Executor, state: TanAttentionState, today: string, distributorId: DistributorScope): Promise<number> {
  let query = db
    .selectFrom('tans')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where(attentionCondition(state, today));
  if (distributorId !== null) query = query.where('distributor_id', '=', distributorId);
  return Number((await query.executeTakeFirst())?.count ?? 0);
}

/** Shop events that failed and were not replayed since (index shop_events_outcome). */
export async function countFailedShopEvents(db: Executor): Promise<number> {
  const row = await db.selectFrom('shop_events').select((eb) => eb.fn.countAll<number>().as('count')).where('outcome', '=', 'failed').executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** The owner's webhook endpoints that fail now, or that were switched off after failing. */
export async function countFailingWebhooks(db: Executor, ownerId: number): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', ownerId)
    .where(sql<boolean>`(failing_since is not null or (enabled = false and disabled_reason is not null))`)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}
