import { z } from 'zod';
import { entitlementList, grantsView } from './entitlement.ts';
import { isoDateTime, listResponse, MAX_RECORD_ID, recordId, wholeNumberText } from './list.ts';

/** The shops a connection receives events from (DESIGN.md section 6c); `generic` is any other shop, signed like the order webhook. */
export const SHOP_PROVIDERS = ['stripe', 'paddle', 'fastspring', 'shopify', 'generic'] as const;
export type ShopProvider = (typeof SHOP_PROVIDERS)[number];

/** The largest number of seats (licenses) one unit sold may carry. */
export const SHOP_MAX_SEATS = 10_000;
/** The longest grace period after a subscription's paid period. */
export const SHOP_MAX_GRACE_DAYS = 365;

/**
 * A shop's product, price or variant id and what one unit of it makes: a TAN of the product with
 * `seats` licenses and the policy (the product's default when none), carrying `entitlements`
 * (DESIGN.md section 6g). `productId: null` marks the id as "no license" (support hours, a printed
 * manual): its lines are recorded and make no TAN. `addOn: true` makes no TAN either: its
 * `entitlements` are added to the buyer's TANs of the product (and so to their licenses' files), an
 * add-on sold after the sale; a refund of the add-on's line takes them away again.
 */
export const shopMapping = z
  .object({
    externalId: z.string().trim().min(1).max(200),
    productId: recordId.nullable(),
    licensePolicyId: recordId.nullish().transform((value) => value ?? null),
    seats: z.number().int().min(1).max(SHOP_MAX_SEATS).default(1),
    addOn: z.boolean().default(false),
    entitlements: entitlementList.default([]),
  })
  .superRefine((mapping, ctx) => {
    if (!mapping.addOn) return;
    if (mapping.productId === null) ctx.addIssue({ code: 'custom', path: ['productId'], message: 'validation.addOnWithoutProduct' });
    if (!mapping.entitlements.length) ctx.addIssue({ code: 'custom', path: ['entitlements'], message: 'validation.addOnWithoutFeatures' });
  });
export type ShopMapping = z.output<typeof shopMapping>;

const mappings = z
  .array(shopMapping)
  .max(1000)
  .refine((list) => new Set(list.map((mapping) => mapping.externalId)).size === list.length, { message: 'duplicateExternalId' });

/** `POST /api/shop-connections`: the secret is the shop's webhook signing secret; it is never sent back. */
export const shopConnectionFields = z.object({
  provider: z.enum(SHOP_PROVIDERS),
  name: z.string().trim().min(1).max(100),
  secret: z.string().trim().min(8).max(500),
  graceDays: z.number().int().min(0).max(SHOP_MAX_GRACE_DAYS).default(3),
  mappings: mappings.default([]),
});
export type ShopConnectionFields = z.output<typeof shopConnectionFields>;

/** `PUT /api/shop-connections/{id}`: fields left out keep their value; the provider stays. */
export const shopConnectionUpdate = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  secret: z.string().trim().min(8).max(500).optional(),
  graceDays: z.number().int().min(0).max(SHOP_MAX_GRACE_DAYS).optional(),
  mappings: mappings.optional(),
});
export type ShopConnectionUpdate = z.output<typeof shopConnectionUpdate>;

export const shopConnection = z.object({
    id: z.number().int(),
    provider: z.enum(SHOP_PROVIDERS),
    name: z.string(),
    graceDays: z.number().int(),
    mappings: z.array(
      z.object({
        externalId: z.string(),
        productId: z.number().int().nullable(),
        licensePolicyId: z.number().int().nullable(),
        seats: z.number().int(),
        addOn: z.boolean(),
        entitlements: grantsView,
      }),
    ),
    /** Where the shop sends its events, relative to the API: `/api/webhooks/shop/{id}`. */
    webhookPath: z.string(),
    failedEvents: z.number().int(),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
});
export type ShopConnection = z.output<typeof shopConnection>;

export const shopConnectionList = listResponse(shopConnection);

/**
 * What became of an event: `pending` is one about a subscription or payment not known yet (a renewal
 * or failed payment before the purchase): it is applied with the purchase that makes it known;
 * `partial` an order whose mapped lines made their TANs while others need a mapping (replayable).
 */
export const SHOP_EVENT_OUTCOMES = ['processed', 'partial', 'ignored', 'failed', 'pending'] as const;
export type ShopEventOutcome = (typeof SHOP_EVENT_OUTCOMES)[number];

/**
 * Why an event failed or was ignored (stable codes the web app translates): no mapping for an item,
 * a mapped product that is gone or inactive, no buyer account (automatic creation off or the account
 * closed), an event about an order or subscription that made no TAN here, an unpaid order, an
 * event type the connection does not act on, or a refund of no line item that made a TAN.
 */
export const SHOP_EVENT_REASONS = ['unknown-mapping', 'unknown-product', 'inactive-product', 'no-account', 'unknown-order', 'unpaid', 'not-handled', 'invalid-payload', 'no-refunded-items', 'partial-refund', 'refund-pending', 'invalid-email', 'stale-signature', 'no-base-license'] as const;
export type ShopEventReason = (typeof SHOP_EVENT_REASONS)[number];

/**
 * What an event did to one line of its order or one TAN: `made`, `renewed`, `suspended`,
 * `reinstated`, `ends` (a cancellation set its last day), `revoked`; an add-on's line `added` (its
 * features to a TAN the buyer has) and `removed` (refunded), or `needs-license` (the buyer has no
 * TAN of the product yet; a replay once they have one adds it); for a line that made no TAN:
 * `no-license` (mapped as no license), `needs-mapping`, `unknown-product`, `inactive-product`.
 */
export const SHOP_LINE_EFFECTS = ['made', 'renewed', 'suspended', 'reinstated', 'ends', 'revoked', 'added', 'removed', 'needs-license', 'no-license', 'needs-mapping', 'unknown-product', 'inactive-product'] as const;
export type ShopLineEffect = (typeof SHOP_LINE_EFFECTS)[number];
export const shopEventLine = z.object({
  externalId: z.string().nullable(),
  tanId: z.number().int().nullable(),
  effect: z.enum(SHOP_LINE_EFFECTS),
});
export type ShopEventLine = z.output<typeof shopEventLine>;

/** The answer to the shop: what became of its event. A repeated event id changes nothing and says `duplicate`. */
export const shopWebhookResult = z.object({
  eventId: z.string(),
  duplicate: z.boolean(),
  outcome: z.enum(SHOP_EVENT_OUTCOMES),
  reason: z.string().nullable(),
  tanIds: z.array(z.number().int()),
  lines: z.array(shopEventLine),
});
export type ShopWebhookResult = z.output<typeof shopWebhookResult>;

export const shopEvent = z.object({
    id: z.number().int(),
    connectionId: z.number().int(),
    eventId: z.string(),
    type: z.string(),
    outcome: z.enum(SHOP_EVENT_OUTCOMES),
    reason: z.string().nullable(),
    tanIds: z.array(z.number().int()),
    /** What it did to each line and TAN. */
    lines: z.array(shopEventLine),
    /** The order or subscription the event is about, and its buyer's address when the event names one. */
    orderRef: z.string().nullable(),
    email: z.string().nullable(),
    /** How often the shop delivered it; every delivery after the first changed nothing. */
    deliveries: z.number().int(),
    receivedAt: isoDateTime,
    handledAt: isoDateTime,
});
export type ShopEvent = z.output<typeof shopEvent>;
export const shopEventList = listResponse(shopEvent);

export const shopEventListQuery = z.object({
  outcome: z.enum(SHOP_EVENT_OUTCOMES).optional(),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
});
export type ShopEventListQuery = z.output<typeof shopEventListQuery>;

/** The Orders page's outcome filter: an event's outcome, or `duplicate` for the events delivered more than once. */
export const SHOP_ORDER_FILTERS = [...SHOP_EVENT_OUTCOMES, 'duplicate'] as const;
export type ShopOrderFilter = (typeof SHOP_ORDER_FILTERS)[number];

/** `GET /api/shop-orders`: the events of every connection (or one), newest first; `filter` finds an order, subscription or event id, or the buyer's address. */
export const shopOrderListQuery = z.object({
  connectionId: wholeNumberText(1, MAX_RECORD_ID).optional(),
  outcome: z.enum(SHOP_ORDER_FILTERS).optional(),
  filter: z.string().trim().max(200).optional(),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
});
export type ShopOrderListQuery = z.output<typeof shopOrderListQuery>;

/** A license activated from a bought TAN. */
export const shopOrderLicense = z.object({
  id: z.number().int(),
  ownerId: z.number().int(),
  machineId: z.string().nullable(),
  revoked: z.boolean(),
});

/** A TAN an order made, and the licenses activated from it. */
export const shopOrderTan = z.object({
  id: z.number().int(),
  code: z.string(),
  productName: z.string(),
  licenseCount: z.number().int(),
  activatedCount: z.number().int(),
  validUntil: z.string().nullable(),
  suspended: z.boolean(),
  revoked: z.boolean(),
  licenses: z.array(shopOrderLicense),
});
export type ShopOrderTan = z.output<typeof shopOrderTan>;

/** One row of the Orders page: an event of a connection with the TANs and licenses it made or changed. */
export const shopOrder = shopEvent.extend({
  connectionName: z.string(),
  provider: z.enum(SHOP_PROVIDERS),
  tans: z.array(shopOrderTan),
});
export type ShopOrder = z.output<typeof shopOrder>;
export const shopOrderList = listResponse(shopOrder);

/** The answer to a shop's delivery: one result per event (FastSpring batches several). */
export const shopDeliveryResult = z.object({ events: z.array(shopWebhookResult) });
export type ShopDeliveryResult = z.output<typeof shopDeliveryResult>;

/** `GET /api/shop-purchases`: the caller's bought TANs that are not revoked, newest first; "ready to activate" while activations are left. */
export const shopPurchase = z.object({
  tanId: z.number().int(),
  code: z.string(),
  productName: z.string(),
  licenseCount: z.number().int(),
  activatedCount: z.number().int(),
  suspended: z.boolean(),
  validUntil: z.string().nullable(),
  boughtAt: isoDateTime,
});
export type ShopPurchase = z.output<typeof shopPurchase>;
export const shopPurchaseList = z.object({ items: z.array(shopPurchase) });
