/** Integration: the order webhook, API tokens, outbound webhooks and shop connections. */
import type { Generated } from 'kysely';
import type { Bool } from './columns.ts';

/** Orders the webhook handled, one per order id (migration 0006). */
export interface WebhookOrdersTable {
  order_id: string;
  received_at: string;
  email: string;
  user_id: number | null;
  license_id: number | null;
  result: string;
}

/** API tokens (migration 0012): only the SHA-256 of a token is stored. */
export interface ApiTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_hash: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  /** Migration 0026: the token's last write; its reads stay on the primary for READ_YOUR_WRITES_MS after it. */
  wrote_at: string | null;
}

/** Outbound webhook endpoints (migration 0012); `events` is a JSON array, `secret` encrypted with SECRET_KEY when set. */
export interface WebhookEndpointsTable {
  id: Generated<number>;
  user_id: number;
  url: string;
  events: string;
  description: string | null;
  enabled: Bool;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  disabled_reason: string | null;
  failing_since: string | null;
  /** The worker that delivers to the endpoint holds it until then (several instances share the outbox). */
  claimed_by: string | null;
  claimed_until: string | null;
  created_at: string;
  updated_at: string;
}

/** An event as delivered: `body` is the exact JSON that is signed and posted (null once erased). */
export interface WebhookEventsTable {
  id: Generated<number>;
  message_id: string;
  type: string;
  body: string | null;
  person_id: number | null;
  created_at: string;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  endpoint_id: number;
  event_id: number;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: string;
  first_attempt_at: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  response: string | null;
  /** Why it failed: one of WEBHOOK_FAILURE_REASONS (null when delivered, or when an older version wrote it). */
  reason: string | null;
  error: string | null;
}

/** An event waiting for the purchase that makes its subscription or payment known (migration 0024), by each reference that may. */
export interface ShopPendingRefsTable {
  connection_id: number;
  ref: string;
  event_row_id: number;
}

/** A payment a refund may name, to the order (or subscription) it paid. */
export interface ShopPaymentRefsTable {
  connection_id: number;
  ref: string;
  order_ref: string;
  /** A renewal's payment (migration 0025): it paid the subscription's lines, not the order's one-time lines. */
  renewal: Generated<boolean>;
}

/** Shop connections (migration 0023, DESIGN.md section 6c); the secret is encrypted with SECRET_KEY when one is set. */
export interface ShopConnectionsTable {
  id: Generated<number>;
  provider: 'stripe' | 'paddle' | 'fastspring' | 'shopify' | 'generic';
  name: string;
  secret: string;
  grace_days: number;
  created_at: string;
  updated_at: string;
}

export interface ShopMappingsTable {
  connection_id: number;
  external_id: string;
  /** Null: the shop's id is "no license" (migration 0025), its lines make no TAN. */
  product_id: number | null;
  license_policy_id: number | null;
  seats: number;
  /** What a unit of the id grants (JSON `[{ feature, value }]`, migration 0036); `add_on`: added to the buyer's TANs, no TAN made. */
  entitlements: Generated<string>;
  add_on: Generated<boolean>;
}

/** Each TAN an add-on's order line added its grants to (migration 0036); `removed_at` once refunded. */
export interface ShopAddOnsTable {
  id: Generated<number>;
  connection_id: number;
  order_ref: string;
  external_id: string;
  tan_id: number;
  /** The grants added (JSON `[{ feature, value }]`), and the shop's ids of the line items (JSON array). */
  grants: string;
  line_ids: Generated<string>;
  created_at: string;
  removed_at: string | null;
}

/** Each delivered event once per connection and provider event id; `tan_ids` a JSON array. */
export interface ShopEventsTable {
  id: Generated<number>;
  connection_id: number;
  event_id: string;
  type: string;
  outcome: 'processed' | 'partial' | 'ignored' | 'failed' | 'pending';
  reason: string | null;
  payload: string;
  /** The event as the rules see it (connectors/types.ts ShopAction), JSON: what a replay runs again. */
  action: string;
  tan_ids: string;
  received_at: string;
  handled_at: string;
  /** The order or subscription the event is about, and its buyer's address lowercased (migration 0024), for the Orders page's search. */
  order_ref: string | null;
  email: string | null;
  /** How often the shop delivered the event; every delivery after the first changed nothing. */
  deliveries: Generated<number>;
  /** What the event did to each line and TAN (migration 0025), JSON: see modules/shop/lines.ts. */
  lines: Generated<string>;
}

/** The TAN of a paid line item, by its order or subscription; a subscription's period and its last payment and failure. */
export interface ShopOrdersTable {
  id: Generated<number>;
  connection_id: number;
  order_ref: string;
  external_id: string;
  subscription_ref: string | null;
  tan_id: number;
  user_id: number | null;
  period_end: string | null;
  paid_at: string | null;
  failed_at: string | null;
  created_at: string;
  /** The shop's ids of the line items the TAN was made from (JSON array), for a refund of some lines. */
  line_ids: Generated<string>;
}
