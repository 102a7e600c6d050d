import { z } from 'zod';
import { resolveLocale } from './messages.ts';
import { machineId } from './license.ts';
import { isoDateTime } from './list.ts';
import { email } from './user.ts';

/** The header carrying the lowercase hex HMAC-SHA256 of the raw request body, keyed with the webhook secret. */
export const ORDER_SIGNATURE_HEADER = 'x-signature';
/** How far an order's timestamp may be from the server's clock: older or newer deliveries are refused as replays. */
export const ORDER_MAX_CLOCK_SKEW_SECONDS = 300;

const optionalText = z
  .string()
  .trim()
  .max(255)
  .nullish()
  .transform((value) => (value ? value : null));

/**
 * The fields of an order. `timestamp` is when the shop sent it, as an ISO 8601 date-time or as Unix
 * seconds. `machineId`, when the order carries one, binds the temporary license (or activates a bought
 * TAN); otherwise the customer sets it later with "change machine".
 */
const orderFields = {
  orderId: z.string().trim().min(1).max(200),
  timestamp: z.union([isoDateTime, z.number().int().nonnegative()]),
  email,
  firstName: z.string().trim().min(1).max(255),
  lastName: z.string().trim().min(1).max(255),
  company: optionalText,
  /** The customer's language as shops send it (`de`, `de-DE`, `de_AT`); other languages mean English. */
  locale: z
    .string()
    .max(35)
    .nullish()
    .transform((value) => (value ? resolveLocale(value) : null)),
  /** Empty, blank or left out: the license is bound to no machine yet. */
  machineId: z
    .preprocess((value) => (typeof value === 'string' && value.trim() === '' ? null : value), machineId.nullish())
    .transform((value) => value ?? null),
};

/** A line of an order: the shop's product or price id and how many units were sold. */
export const orderItem = z.object({ externalId: z.string().trim().min(1).max(200), quantity: z.number().int().min(1).max(10_000).default(1) });

/**
 * `POST /api/webhooks/orders`: an order of the shop (the spec's order automation: the buyer's account
 * and a temporary license). It has no mapping of the shop's ids to products, so it makes no TANs: an
 * order with line items is refused (`items` must be empty or left out) rather than taken without its
 * items; a shop connection of provider `generic` takes this body with `items` (shopOrderWebhook).
 */
export const orderWebhook = z.object({
  ...orderFields,
  items: z.array(z.unknown()).max(0, 'validation.itemsNeedShopConnection').optional(),
});
export type OrderWebhook = z.output<typeof orderWebhook>;

/**
 * The body of a shop connection of provider `generic` (`POST /api/webhooks/shop/{id}`): the order
 * webhook's fields and what was sold, by the shop's product or price id, each line made a TAN by the
 * connection's mapping.
 */
export const shopOrderWebhook = z.object({
  ...orderFields,
  items: z.array(orderItem).max(100).default([]),
});
export type ShopOrderWebhook = z.output<typeof shopOrderWebhook>;

/** What became of the order's account: created now, an existing one, or none (automatic creation off). */
export const ORDER_ACCOUNT_OUTCOMES = ['created', 'existing', 'none'] as const;
/**
 * What became of the temporary license: created, or why not: the automation is off, there is no
 * account to own it, no active product is configured, or the order's machine already holds a license
 * of that product.
 */
export const ORDER_LICENSE_OUTCOMES = ['created', 'off', 'no-account', 'no-product', 'machine-has-license'] as const;

export const orderWebhookResult = z.object({
  orderId: z.string(),
  /** True when this order id was handled before: nothing was done again, the first result is repeated. */
  duplicate: z.boolean(),
  account: z.enum(ORDER_ACCOUNT_OUTCOMES),
  userId: z.number().int().nullable(),
  temporaryLicense: z.enum(ORDER_LICENSE_OUTCOMES),
  licenseId: z.number().int().nullable(),
});
export type OrderWebhookResult = z.output<typeof orderWebhookResult>;

/** The timestamp of an order in milliseconds since the epoch. */
export function orderTimeMs(timestamp: OrderWebhook['timestamp']): number {
  return typeof timestamp === 'number' ? timestamp * 1000 : Date.parse(timestamp);
}
