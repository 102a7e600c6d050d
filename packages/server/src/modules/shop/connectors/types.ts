import type { Locale } from '@lm/contract';

/** Who bought: enough to find or create the buyer's account as the order automation does. */
export interface Buyer {
  email: string;
  firstName: string;
  lastName: string;
  company: string | null;
  locale: Locale | null;
}

export interface LineItem {
  /** The ids by which the item may be mapped, most specific first (Shopify: variant, SKU, product). */
  externalIds: string[];
  quantity: number;
  /** The shop's own id of the line (Shopify's line item id), which a refund of that line names. */
  lineId?: string | null;
  /**
   * Whether the line is billed again with the order's subscription. A one-time line (false) of a
   * subscription's order, a perpetual item in the same cart, never follows the subscription's period;
   * left out: it does when the order is a subscription's.
   */
  recurring?: boolean;
}

/** A refunded line: by the shop's line id or by the ids it was mapped by. */
export interface RefundedLine {
  lineId: string | null;
  externalIds: string[];
}

/**
 * A provider's event, as the rules of DESIGN.md section 6c see it. Times are ISO strings; `at` is
 * when the provider says the event happened, which orders payments against failures.
 */
export type ShopAction =
  | {
      kind: 'purchase';
      /** The order, or for a subscription its id: a TAN per line item and reference is made once. */
      orderRef: string;
      subscriptionRef: string | null;
      /** What a refund or dispute names: a payment intent, invoice, transaction or order id. */
      paymentRefs: string[];
      buyer: Buyer | null;
      machineId: string | null;
      items: LineItem[];
      /** A subscription's paid period ends then (the TAN is valid to it plus grace); null for a perpetual purchase. */
      periodEnd: string | null;
      at: string;
    }
  | { kind: 'payment-failed'; subscriptionRef: string; at: string }
  | { kind: 'payment-recovered'; subscriptionRef: string; at: string }
  | { kind: 'cancel'; subscriptionRef: string; endsAt: string | null; at: string }
  /**
   * A payment of an invoice (Stripe's `invoice_payment.paid`): the payment intent or charge that paid
   * `invoiceRef` pays its order, so a refund or dispute naming them finds the order's TANs.
   */
  | { kind: 'payment'; invoiceRef: string; refs: string[]; at: string }
  /** `lines` when the refund names what it gives back (Shopify): only their TANs are revoked; otherwise every TAN of the payment. */
  | { kind: 'refund'; refs: string[]; lines?: RefundedLine[]; at: string }
  | { kind: 'ignore'; reason: 'unpaid' | 'not-handled' | 'no-refunded-items' | 'partial-refund' | 'refund-pending' };

/** One event of a delivery: its id at the provider (what makes it once), its type and what it means. */
export interface ParsedEvent {
  eventId: string;
  type: string;
  action: ShopAction;
  /** The event's own JSON, kept for the Orders page and a replay. */
  payload: unknown;
}

/** What a connector gets from the HTTP layer: the raw body for the signature and the headers. */
export interface Delivery {
  rawBody: string;
  headers: Record<string, string | string[] | undefined>;
  now: Date;
}

export interface Connector {
  /** Whether the delivery is signed with the secret as the provider documents it, and fresh where the scheme has a timestamp. */
  verify(secret: string, delivery: Delivery): boolean;
  /**
   * Where the scheme has a timestamp: whether the delivery is signed with the secret, however old.
   * A stale delivery so signed is recorded (nothing processed) for the administrator to see and replay.
   */
  signedAtAnyTime?(secret: string, delivery: Delivery): boolean;
  /** The events of a verified delivery (FastSpring batches several); throws SyntaxError-like errors on a malformed body. */
  parse(body: unknown, delivery: Delivery): ParsedEvent[];
}

export function header(delivery: Delivery, name: string): string | undefined {
  const value = delivery.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** A Unix time in seconds as an ISO string; null when absent or not a number. */
export function fromUnixSeconds(value: unknown): string | null {
  return typeof value === 'number' && Number.isFinite(value) ? new Date(value * 1000).toISOString() : null;
}

export function text(value: unknown): string | null {
  if (typeof value === 'string' && value.trim()) return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

export function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function quantity(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : 1;
}

/** A full name split into first and last as accounts keep them. */
export function splitName(name: string | null, email: string): { firstName: string; lastName: string } {
  const parts = (name ?? '').trim().split(/\s+/).filter(Boolean);
  if (!parts.length) return { firstName: email.split('@')[0] || email, lastName: '-' };
  if (parts.length === 1) return { firstName: parts[0], lastName: '-' };
  return { firstName: parts.slice(0, -1).join(' '), lastName: parts[parts.length - 1] };
}
