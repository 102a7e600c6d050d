/**
 * Add-ons sold after the sale (DESIGN.md section 6g): a shop id mapped as an add-on makes no TAN; its
 * grants are laid over the TANs of the product the buyer already holds, and so reach each license's
 * file at its next refresh. A refund of the add-on's line takes them away again.
 */
import { addGrants, parseGrants, removeGrants, type EntitlementGrant } from '@lm/contract/entitlement';
import type { ShopEventLine } from '@lm/contract/shop';
import { SYSTEM } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { changeTanGrants } from '../entitlements/service.ts';
import { findUserByEmail, findUserById } from '../users/repo.ts';
import type { RefundedLine, ShopAction } from './connectors/types.ts';
import { addOnsOfOrders, buyersTansOfProduct, insertAddOn, markAddOnRemoved, type AddOnRow, type ConnectionRow, type MappingRow } from './repo.ts';

type Purchase = Extract<ShopAction, { kind: 'purchase' }>;

/** An order's line mapped as an add-on of a product. */
export interface AddOnItem {
  mapping: MappingRow & { product_id: number };
  productName: string;
  externalId: string;
  lineIds: string[];
}

/** What the add-on recorded on one TAN: its grants and those it replaced. */
interface AddedGrants {
  added: EntitlementGrant[];
  previous: EntitlementGrant[];
}

/**
 * The buyer an add-on is for: the order's address (an account is never made for an add-on: it adds
 * to a license the buyer has), or the owner of the order's earlier lines.
 */
async function buyerOf(trx: Executor, purchase: Purchase, ownerId: number | null): Promise<number | null> {
  const row = purchase.buyer ? await findUserByEmail(trx, purchase.buyer.email) : ownerId === null ? undefined : await findUserById(trx, ownerId);
  return row && !row.closed_at ? row.id : null;
}

/**
 * Each add-on line of an order, once per order and id: its grants go to every TAN of the product the
 * buyer holds (`added`, one line per TAN); without one, `needs-license` (a replay once the buyer has
 * a license adds it). A repeated delivery, a renewal or a replay adds nothing twice.
 */
export async function applyAddOns(trx: Executor, connection: ConnectionRow, purchase: Purchase, items: readonly AddOnItem[], ownerId: number | null, now: Date): Promise<ShopEventLine[]> {
  if (!items.length) return [];
  const done = await addOnsOfOrders(trx, connection.id, [purchase.orderRef]);
  const buyerId = await buyerOf(trx, purchase, ownerId);
  const lines: ShopEventLine[] = [];
  for (const item of items) {
    if (done.some((row) => row.external_id === item.externalId)) continue;
    const tanIds = buyerId === null ? [] : await buyersTansOfProduct(trx, buyerId, item.mapping.product_id);
    if (!tanIds.length) {
      lines.push({ externalId: item.externalId, tanId: null, effect: 'needs-license' });
      continue;
    }
    const added = parseGrants(item.mapping.entitlements);
    for (const tanId of tanIds) {
      let previous: EntitlementGrant[] = [];
      await changeTanGrants(
        trx,
        SYSTEM,
        tanId,
        (current) => {
          const result = addGrants(current, added);
          previous = result.previous;
          return result.grants;
        },
        now,
      );
      const grants: AddedGrants = { added, previous };
      await insertAddOn(trx, {
        connection_id: connection.id,
        order_ref: purchase.orderRef,
        external_id: item.externalId,
        tan_id: tanId,
        grants: JSON.stringify(grants),
        line_ids: JSON.stringify(item.lineIds),
        created_at: now.toISOString(),
      });
      lines.push({ externalId: item.externalId, tanId, effect: 'added' });
    }
  }
  return lines;
}

/** The reason an order's add-on lines give its event when one found no license of the buyer. */
export function addOnReason(lines: readonly ShopEventLine[], items: readonly AddOnItem[]): string | null {
  const waiting = lines.find((line) => line.effect === 'needs-license');
  if (!waiting) return null;
  return `no-base-license:${items.find((item) => item.externalId === waiting.externalId)?.productName ?? ''}`;
}

function isRefundedAddOn(row: AddOnRow, refundedLines: readonly RefundedLine[] | undefined): boolean {
  if (!refundedLines) return true;
  const lineIds = JSON.parse(row.line_ids) as string[];
  return refundedLines.some((refunded) => (refunded.lineId !== null && lineIds.includes(refunded.lineId)) || refunded.externalIds.includes(row.external_id));
}

/** The add-ons of refunded orders (all of their lines, or those the refund names), not taken away yet. */
export async function refundedAddOns(trx: Executor, connectionId: number, orderRefs: readonly string[], refundedLines: readonly RefundedLine[] | undefined): Promise<AddOnRow[]> {
  const rows = await addOnsOfOrders(trx, connectionId, orderRefs);
  return rows.filter((row) => row.removed_at === null && isRefundedAddOn(row, refundedLines));
}

/** Takes refunded add-ons' grants off their TANs (what they replaced comes back): `removed` per TAN. */
export async function removeAddOns(trx: Executor, rows: readonly AddOnRow[], now: Date): Promise<ShopEventLine[]> {
  const lines: ShopEventLine[] = [];
  for (const row of rows) {
    const { added, previous } = JSON.parse(row.grants) as AddedGrants;
    await changeTanGrants(trx, SYSTEM, row.tan_id, (current) => removeGrants(current, added, previous), now);
    await markAddOnRemoved(trx, row.id, now.toISOString());
    lines.push({ externalId: row.external_id, tanId: row.tan_id, effect: 'removed' });
  }
  return lines;
}
