import type { FastifyRequest } from 'fastify';
import type { ListResult } from '@lm/contract';
import type { ShopOrder, ShopOrderListQuery, ShopOrderTan } from '@lm/contract/shop';
import type { AppContext } from '../../platform/context.ts';
import { listOrderEvents, tansWithLicenses } from './repo.ts';
import { requireAdministrator, toShopEvent } from './service.ts';

/** At most this many licenses of the TANs on one page are listed (a TAN of many seats may have thousands). */
const MAX_LICENSES = 2000;

/**
 * `GET /shop-orders`: the Orders page. The events of every connection (or one), newest first, by
 * outcome (`duplicate`: delivered more than once) and found by order, subscription or event id or the
 * buyer's address; each with the TANs it made or changed and the licenses activated from them.
 */
export async function listShopOrders(ctx: AppContext, request: FastifyRequest, query: ShopOrderListQuery): Promise<ListResult<ShopOrder>> {
  requireAdministrator(request);
  const { rows, totalCount } = await listOrderEvents(ctx.db, { connectionId: query.connectionId, outcome: query.outcome, text: query.filter || undefined }, query);
  const events = rows.map((row) => ({ row, event: toShopEvent(row) }));
  const { tans, licenses } = await tansWithLicenses(
    ctx.db,
    events.flatMap(({ event }) => event.tanIds),
    MAX_LICENSES,
  );
  const byTan = new Map<number, ShopOrderTan>(
    tans.map((tan) => [
      tan.id,
      {
        id: tan.id,
        code: tan.code,
        productName: tan.product_name,
        licenseCount: tan.license_count,
        activatedCount: tan.activated_count,
        validUntil: tan.valid_until,
        suspended: Boolean(tan.suspended),
        revoked: Boolean(tan.revoked),
        licenses: [],
      },
    ]),
  );
  for (const license of licenses) byTan.get(license.tan_id!)?.licenses.push({ id: license.id, ownerId: license.owner_id, machineId: license.machine_id, revoked: Boolean(license.revoked) });
  return {
    items: events.map(({ row, event }) => ({
      ...event,
      connectionName: row.connection_name,
      provider: row.provider,
      tans: event.tanIds.flatMap((id) => (byTan.has(id) ? [byTan.get(id)!] : [])),
    })),
    totalCount,
  };
}
