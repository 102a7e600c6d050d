/**
 * The staff home (issue 49): what needs an administrator or a distributor today, in one answer, each
 * figure with the path of the list it summarises. A distributor counts only the TANs it distributes
 * (the TAN list's own scope) and sees no figure of the whole installation (machines, shop events).
 */
import type { FastifyRequest } from 'fastify';
import { DASHBOARD_DAYS, type Dashboard } from '@lm/contract/dashboard';
import { addDays, todayOf } from '@lm/contract/license';
import type { AppContext } from '../../platform/context.ts';
import { authorize, requireUser } from '../../platform/http/auth.ts';
import { listScope, scopedIds } from '../../platform/http/list-scope.ts';
import { foldCounterDeltas } from '../statistics/repo.ts';
import { countFailedShopEvents, countFailingWebhooks, countsByDay, countTansInState, type DistributorScope } from './repo.ts';

/** Every day from `since` to `today`, with its count (0 where nothing happened). */
function series(counts: Map<string, number>, since: string, today: string) {
  const days = [];
  for (let day = since; day <= today; day = addDays(day, 1)) days.push({ day, count: counts.get(day) ?? 0 });
  return { count: days.reduce((total, day) => total + day.count, 0), days };
}

export async function dashboardOf(ctx: AppContext, request: FastifyRequest): Promise<Dashboard> {
  const user = requireUser(request);
  authorize(request, 'view-list', 'Tan');
  const scope = listScope(request.ability, 'view-list', 'Tan');
  // A distributor's rules name its own id; anyone else here sees every TAN.
  const distributorId: DistributorScope = scope === 'all' ? null : (scopedIds(scope, 'distributorId')[0] ?? -1);
  const whole = distributorId === null;
  const today = todayOf();
  const since = addDays(today, 1 - DASHBOARD_DAYS);
  const db = ctx.db;
  await foldCounterDeltas(db);
  const [activations, refreshes, ending, suspended, nearCount, failedShopEvents, failingWebhooks] = await Promise.all([
    countsByDay(db, whole ? 'tan_activations' : 'tan_activations_distributor', since, distributorId),
    whole ? countsByDay(db, 'active_machines', since, null) : null,
    countTansInState(db, 'ending', today, distributorId),
    countTansInState(db, 'suspended', today, distributorId),
    countTansInState(db, 'nearCount', today, distributorId),
    whole && request.ability.can('update', 'Setting') ? countFailedShopEvents(db) : null,
    countFailingWebhooks(db, user.id),
  ]);
  return {
    since,
    activations: { ...series(activations, since, today), link: '/licenses' },
    refreshes: refreshes && { ...series(refreshes, since, today), link: '/statistics/active-machines' },
    subscriptionsEnding: { count: ending, link: '/tans?state=ending' },
    suspended: { count: suspended, link: '/tans?state=suspended' },
    tansNearCount: { count: nearCount, link: '/tans?state=nearCount' },
    failedShopEvents: failedShopEvents === null ? null : { count: failedShopEvents, link: '/tools/shop-orders?outcome=failed' },
    failingWebhooks: { count: failingWebhooks, link: '/tools/webhooks' },
    // Refused activations are runtime events (DESIGN.md section 6j), which this version does not keep yet.
    refusals: null,
  };
}
